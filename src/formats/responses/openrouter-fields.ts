import type { PassthroughRequest, PassthroughTarget } from '../types.ts';
import { isRecord, openRouterReasoningEffort, takeOutOpenRouterRouting } from '../shared/index.ts';

/** What OpenAI's Responses `reasoning` object takes; OpenRouter's adds `max_tokens`, `enabled` and `exclude`, which OpenAI refuses as unknown parameters. */
const OPENAI_REASONING_KEYS: ReadonlySet<string> = new Set(['effort', 'summary', 'generate_summary']);

/** A `reasoning` object written for OpenRouter's Responses API (one key OpenAI's lacks). */
function isOpenRouterReasoning(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && Object.keys(value).some((key) => !OPENAI_REASONING_KEYS.has(key));
}

/**
 * A Responses body written for OpenRouter's Responses API, fitted to an upstream that is not
 * OpenRouter, as a Chat body is (src/formats/chat/openrouter-fields.ts): `provider`, `plugins`,
 * `transforms` and `route` are taken out (said in `X-Gateway-Adapted`), `usage` silently (a
 * Responses answer always carries usage); a `reasoning` object with OpenRouter's own keys
 * (`max_tokens`, `enabled`, `exclude`) becomes OpenAI's: `effort` fitted to the model (as asked, a
 * budget as the nearest effort, `enabled: false` the least), `summary` kept; left out for a model
 * that does not reason. OpenAI's own `reasoning` goes as written. A bad one is the 422 the
 * converted route gives. Undefined when the body has none of them or the upstream takes them.
 */
export function withoutOpenRouterFields(request: PassthroughRequest, target: PassthroughTarget | undefined): (PassthroughRequest & { adapted: string[] }) | undefined {
  if (!target || target.openRouterFields) return undefined;
  const { body, stream } = request;
  const taken = takeOutOpenRouterRouting(body);
  const reasoning = body.reasoning;
  if (!taken && !isOpenRouterReasoning(reasoning)) return undefined;
  const out = taken?.body ?? { ...body };
  const adapted = taken?.adapted ?? [];
  if (isOpenRouterReasoning(reasoning)) {
    const effort = openRouterReasoningEffort(reasoning, target);
    const kept: Record<string, unknown> = {};
    for (const key of ['summary', 'generate_summary']) if (reasoning[key] !== undefined) kept[key] = reasoning[key];
    if (effort !== undefined) {
      out.reasoning = { ...kept, effort };
      adapted.push(`reasoning=reasoning.effort(${effort})`);
    } else if (!target.noReasoning && Object.keys(kept).length > 0) {
      out.reasoning = kept;
      adapted.push('reasoning=reasoning.summary');
    } else {
      delete out.reasoning;
      adapted.push('reasoning=removed');
    }
  }
  return { body: out, raw: JSON.stringify(out), stream, adapted };
}
