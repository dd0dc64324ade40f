import type { ReasoningConfig, ReasoningEffort } from '../../ir/index.ts';
import { fitEffort } from './fit-effort.ts';

/**
 * The reasoning efforts an OpenAI reasoning model takes, weakest first, as OpenAI documents them
 * (November 2026): o-series low–high; gpt-5, -mini, -nano minimal–high; gpt-5-pro high only; the
 * codex models low–high (xhigh from gpt-5.1-codex-max on); gpt-5.1 none–high, later gpt-5.x none–xhigh
 * (their -pro medium–xhigh), their -chat-latest medium only. Undefined for an id that is none of these
 * (gpt-5-chat-latest does not reason: isOpenAIChatModelWithoutReasoning).
 */
export function openAIReasoningEfforts(model: string): readonly ReasoningEffort[] | undefined {
  const id = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  if (/^o\d+(?:$|-)/.test(id)) return ['low', 'medium', 'high'];
  const m = /^gpt-5(?:\.(\d+))?(?:$|-)/.exec(id);
  if (!m || id.startsWith('gpt-5-chat')) return undefined;
  // gpt-5.2-chat-latest: "'reasoning_effort' does not support 'high' with this model. Supported values are: 'medium'."
  if (/-chat(?:$|-)/.test(id)) return ['medium'];
  const minor = m[1] === undefined ? 0 : Number(m[1]);
  if (id.includes('codex')) return minor === 0 || (minor === 1 && !id.includes('-max')) ? ['low', 'medium', 'high'] : ['low', 'medium', 'high', 'xhigh'];
  if (/-pro(?:$|-)/.test(id)) return minor === 0 ? ['high'] : ['medium', 'high', 'xhigh'];
  if (minor === 0) return ['minimal', 'low', 'medium', 'high'];
  return minor === 1 ? ['none', 'low', 'medium', 'high'] : ['none', 'low', 'medium', 'high', 'xhigh'];
}

/**
 * The effort to ask an OpenAI reasoning model for, or undefined for its default. Reasoning
 * switched off with no effort named (Gemini's `thinkingBudget: 0`, Anthropic's disabled thinking)
 * asks for the least the model does; an effort the model does not take becomes the next stronger
 * one it does (the strongest when none is). A model the gateway does not know gets the effort as asked.
 */
export function openAIEffortFor(model: string, reasoning: ReasoningConfig, asked: string | undefined): string | undefined {
  const efforts = openAIReasoningEfforts(model);
  if (!efforts) return asked;
  if (asked === undefined) return reasoning.enabled || reasoning.effort !== undefined ? undefined : efforts[0];
  return fitEffort(efforts, asked);
}
