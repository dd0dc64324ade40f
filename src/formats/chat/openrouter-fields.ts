import type { PassthroughRequest, PassthroughTarget } from '../types.ts';
import { asksForUsageCost, isRecord, openRouterReasoningEffort, takeOutOpenRouterRouting } from '../shared/index.ts';

/**
 * A Chat body written for OpenRouter, fitted to an upstream that is not OpenRouter (OpenAI refuses
 * every field it does not know with a 400 `unknown_parameter`): `provider`, `plugins`,
 * `transforms` and `route` are taken out (said in `X-Gateway-Adapted`); `usage: {include: true}`
 * is taken out and a stream asks for its usage chunk instead (the gateway's answers always carry
 * usage); OpenRouter's `reasoning` object becomes `reasoning_effort` fitted to the model (an
 * effort as asked, a `max_tokens` budget as the nearest effort, `enabled: false` the model's least),
 * or is left out for a model that does not reason and beside the client's own `reasoning_effort`.
 * `reasoning.exclude` makes the answer a converted one (`convertAnswer`), which carries no reasoning.
 * A bad `reasoning` is the 422 the converted route gives. Undefined when the body has none of them
 * (nearly all) or the upstream takes them. The Responses passthrough does the same (src/formats/responses/openrouter-fields.ts).
 * `usage: {include: true}` also asks for the gateway's charge in the answer (`reportCost`), on
 * an OpenRouter upstream too: its own `cost` is what the operator pays OpenRouter, not the client the gateway.
 */
export function withoutOpenRouterFields(request: PassthroughRequest, target: PassthroughTarget | undefined): (PassthroughRequest & { adapted: string[]; convertAnswer?: boolean; reportCost?: boolean }) | undefined {
  if (!target) return undefined;
  // Read only on the way to an OpenRouter upstream (a provider with openRouterFields: 'forward').
  if (target.openRouterFields) return asksForUsageCost(request.body.usage) ? { ...request, adapted: [], reportCost: true } : undefined;
  const { body, stream } = request;
  const taken = takeOutOpenRouterRouting(body);
  if (!taken && body.reasoning === undefined) return undefined;
  const out = taken?.body ?? { ...body };
  const adapted = taken?.adapted ?? [];
  const reportCost = asksForUsageCost(taken?.usage);
  if (stream && reportCost) out.stream_options = { ...(isRecord(out.stream_options) ? out.stream_options : {}), include_usage: true };
  // `exclude` keeps the reasoning out of the answer, which such an upstream (DeepSeek, vLLM: `reasoning_content`) never hears of: the answer is converted, and the Chat encoder leaves it out.
  let convertAnswer = false;
  if (out.reasoning !== undefined) {
    convertAnswer = isRecord(out.reasoning) && out.reasoning.exclude === true && !target.noReasoning;
    const asked = openRouterReasoningEffort(out.reasoning, target);
    delete out.reasoning;
    const own = out.reasoning_effort !== undefined && out.reasoning_effort !== null;
    if (asked !== undefined && !own) {
      out.reasoning_effort = asked;
      adapted.push(`reasoning=reasoning_effort(${asked})`);
    } else {
      adapted.push('reasoning=removed');
    }
  }
  return { body: out, raw: JSON.stringify(out), stream, adapted, ...(convertAnswer ? { convertAnswer } : {}), ...(reportCost ? { reportCost } : {}) };
}
