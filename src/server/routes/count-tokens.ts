import type { H3Event } from 'h3';
import { checkModelScope, modelsThatMayServe } from '../../accounts/index.ts';
import { GatewayError } from '../../errors/index.ts';
import { getCodec } from '../../formats/index.ts';
import type { ChatRequest } from '../../ir/index.ts';
import { countInputTokens } from '../../pipeline/index.ts';
import { patchCall } from '../../pipeline/index.ts';
import type { CatalogModel } from '../../providers/index.ts';
import { readJsonBody } from '../../upstream/index.ts';
import { authenticateApiKey } from '../auth.ts';
import { checkInferenceBounds } from '../check-inference-bounds.ts';
import { setResponseHeader } from '../context.ts';
import { jsonBodyBounds, readJsonObjectNow } from '../read-body.ts';
import { passLimitsFirst } from '../pass-limits.ts';
import { json } from '../send.ts';
import type { ServerDeps } from '../types.ts';
import { forwardHeaders } from './inference.ts';

type CountFormat = 'messages' | 'responses';

const COUNT_ROUTES: Record<CountFormat, string> = { messages: '/v1/messages/count_tokens', responses: '/v1/responses/input_tokens' };

/** What a body of each format needs to decode that a count request may leave out. */
const DECODE_DEFAULTS: Record<CountFormat, Record<string, unknown>> = { messages: { max_tokens: 1 }, responses: { input: [] } };

/**
 * POST /v1/messages/count_tokens (Anthropic's shape) and POST /v1/responses/input_tokens
 * (OpenAI's): the serving upstream's own counter when it has one for the client's format
 * (`X-Gateway-Token-Count: upstream`), else a local count with a tokenizer (`local`, never a
 * fake zero; src/pipeline/count-input-tokens.ts). An upstream that fails to count falls back
 * to the local count: a number is what the client needs to plan its context.
 */
export function countTokensHandler(deps: ServerDeps, format: CountFormat) {
  return async (event: H3Event): Promise<string> => {
    const auth = authenticateApiKey(event, deps);
    // The key's rate limit and slot before the body is read (issue 27): a count is a request like
    // any other; no admission takes the slot over, so the route wrapper gives it back at the end.
    const passing = passLimitsFirst(event, deps, auth, COUNT_ROUTES[format]);
    if (passing instanceof Promise) await passing;
    const read = readJsonObjectNow(event, jsonBodyBounds(deps, deps.config.server.bodyLimits.inference));
    const { body } = read instanceof Promise ? await read : read;
    checkInferenceBounds(body);
    const hasModel = typeof body.model === 'string' && body.model !== '';
    if (format === 'messages' && !hasModel) throw new GatewayError('validation_error', "Invalid parameter 'model': is required.", { details: { fields: { model: 'is required' } } });
    // A key scoped to other models gets the refusal it would get on the inference route.
    if (hasModel && auth.key.models) checkModelScope(auth.key, body.model as string, modelsThatMayServe(deps.registry, deps.config.routing, body.model as string));
    const request = getCodec(format).decodeRequest({ ...DECODE_DEFAULTS[format], ...body, model: hasModel ? body.model : 'count', stream: false });
    const upstream = hasModel ? await countUpstream(deps, event, format, body, request) : undefined;
    const tokens = upstream ?? (await countInputTokens(request));
    setResponseHeader(event, 'x-gateway-token-count', upstream === undefined ? 'local' : 'upstream');
    return json(event, format === 'messages' ? { input_tokens: tokens } : { object: 'response.input_tokens', input_tokens: tokens });
  };
}

/** The first candidate that speaks the client's format and has a counter, asked; undefined when none could answer. */
async function countUpstream(deps: ServerDeps, event: H3Event, format: CountFormat, body: Record<string, unknown>, request: ChatRequest): Promise<number | undefined> {
  const plan = deps.router.plan(request.model, (model) => (model.spec.type ?? 'chat') === 'chat');
  const model = [...plan.primary, ...plan.chain].find((candidate: CatalogModel) => candidate.formats.includes(format) && candidate.provider.instance.countTokens);
  if (!model?.provider.instance.countTokens) return undefined;
  const upstreamBody: Record<string, unknown> = { ...body, model: model.upstreamId };
  delete upstreamBody.stream;
  try {
    const call = { format, body: upstreamBody, rawBody: JSON.stringify(upstreamBody), model: model.upstreamId, stream: false, headers: forwardHeaders(event), signal: AbortSignal.timeout(30_000) };
    const response = await model.provider.instance.countTokens(patchCall(model.provider.instance, model.provider.id, 'countTokens', call));
    const answer = (await readJsonBody(response.body)) as { input_tokens?: unknown } | undefined;
    if (response.status >= 200 && response.status < 300 && typeof answer?.input_tokens === 'number' && answer.input_tokens > 0) return answer.input_tokens;
    deps.log.warn('upstream token count failed; counted locally', { provider: model.provider.id, status: response.status });
  } catch (error) {
    deps.log.warn('upstream token count failed; counted locally', { provider: model.provider.id, error: error instanceof Error ? error.message : String(error) });
  }
  return undefined;
}
