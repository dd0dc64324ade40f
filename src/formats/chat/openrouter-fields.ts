import type { PassthroughRequest, PassthroughTarget } from '../types.ts';
import { budgetTokensToEffort, FieldChecker, isRecord, openAIEffortFor } from '../shared/index.ts';
import { decodeOpenRouterReasoning } from './decode-request.ts';

/** OpenRouter's request fields that only an OpenRouter upstream takes (routing preferences, its plugins, middle-out, the old `route`). */
const ROUTING_FIELDS = ['provider', 'plugins', 'transforms', 'route'] as const;

/**
 * A Chat body written for OpenRouter, fitted to an upstream that is not OpenRouter (OpenAI refuses
 * every field it does not know with a 400 `unknown_parameter`): `provider`, `plugins`,
 * `transforms` and `route` are taken out (said in `X-Gateway-Adapted`); `usage: {include: true}`
 * is taken out and a stream asks for its usage chunk instead (the gateway's answers always carry
 * usage); OpenRouter's `reasoning` object becomes `reasoning_effort` fitted to the model (an
 * effort as asked, a `max_tokens` budget as the nearest effort, `enabled: false` the model's least),
 * or is left out for a model that does not reason and beside the client's own `reasoning_effort`.
 * A bad `reasoning` is the 422 the converted route gives. Undefined when the body has none of them
 * (nearly all) or the upstream takes them.
 */
export function withoutOpenRouterFields(request: PassthroughRequest, target: PassthroughTarget | undefined): (PassthroughRequest & { adapted: string[] }) | undefined {
  if (!target || target.openRouterFields) return undefined;
  const { body, stream } = request;
  if (body.usage === undefined && body.reasoning === undefined && ROUTING_FIELDS.every((field) => body[field] === undefined)) return undefined;
  const out: Record<string, unknown> = { ...body };
  const adapted: string[] = [];
  for (const field of ROUTING_FIELDS) {
    if (out[field] === undefined) continue;
    delete out[field];
    adapted.push(`${field}=removed`);
  }
  if (out.usage !== undefined) {
    const usage = out.usage;
    delete out.usage;
    if (stream && isRecord(usage) && usage.include === true) out.stream_options = { ...(isRecord(out.stream_options) ? out.stream_options : {}), include_usage: true };
  }
  if (out.reasoning !== undefined) {
    const check = new FieldChecker();
    const config = decodeOpenRouterReasoning(out.reasoning, check);
    check.throwIfAny();
    delete out.reasoning;
    const own = out.reasoning_effort !== undefined && out.reasoning_effort !== null;
    const asked = config?.effort ?? (config?.enabled && config.budgetTokens !== undefined ? budgetTokensToEffort(config.budgetTokens) : undefined);
    const effort = config && !own && !target.noReasoning ? openAIEffortFor(target.baseModel, config, asked) : undefined;
    if (effort !== undefined) {
      out.reasoning_effort = effort;
      adapted.push(`reasoning=reasoning_effort(${effort})`);
    } else {
      adapted.push('reasoning=removed');
    }
  }
  return { body: out, raw: JSON.stringify(out), stream, adapted };
}
