import type { H3Event } from 'h3';
import { checkModelScope, createModelsThatMayServe } from '../../accounts/index.ts';
import { GatewayError, validationError } from '../../errors/index.ts';
import type { CountTokensFace, FormatDefinition } from '../../formats/index.ts';
import type { ChatRequest } from '../../ir/index.ts';
import { countInputTokens, patchCall } from '../../pipeline/index.ts';
import type { CatalogModel } from '../../providers/index.ts';
import { readJsonBody } from '../../upstream/index.ts';
import { authenticateApiKey } from '../auth.ts';
import { checkInferenceBounds } from '../check-inference-bounds.ts';
import { setResponseHeader } from '../context.ts';
import { jsonBodyBounds, readJsonObject } from '../read-body.ts';
import { passLimitsFirst } from '../pass-limits.ts';
import { json } from '../send.ts';
import type { ServerDeps } from '../types.ts';
import { forwardHeaders } from './inference.ts';

/**
 * A format's token-count route (its face's `countTokens`: Anthropic `/v1/messages/count_tokens`,
 * OpenAI `/v1/responses/input_tokens`, Gemini `…:countTokens`): the serving upstream's own
 * counter when it has one for the client's format (`X-Gateway-Token-Count: upstream`), else a
 * local count with a tokenizer (`local`, never a fake zero; src/pipeline/count-input-tokens.ts).
 * An upstream that fails to count falls back to the local count: a number is what the client
 * needs to plan its context.
 */
export function countTokensHandler(deps: ServerDeps, format: FormatDefinition, face: CountTokensFace) {
  const modelsThatMayServe = createModelsThatMayServe(deps.registry, deps.config.routing);
  return async (event: H3Event): Promise<string> => {
    const pathModel = face.readPath ? face.readPath(event.url.pathname, event.url.searchParams) : undefined;
    if (face.readPath && pathModel === undefined) throw new GatewayError('not_found', `No route for ${event.req.method} ${event.url.pathname}.`);
    const auth = authenticateApiKey(event, deps, format.id);
    // The key's rate limit and slot before the body is read (issue 27): a count is a request like
    // any other; no admission takes the slot over, so the route wrapper gives it back at the end.
    const passing = passLimitsFirst(event, deps, auth, face.path);
    if (passing instanceof Promise) await passing;
    const read = readJsonObject(event, jsonBodyBounds(deps, deps.config.server.bodyLimits.inference));
    const { body } = read instanceof Promise ? await read : read;
    checkInferenceBounds(body);
    const model = pathModel ?? (typeof body.model === 'string' && body.model !== '' ? body.model : undefined);
    // Absent: 400 (spec §7's missing field); there but not a name: 422, as on the inference route.
    if (face.requiresModel && model === undefined) throw validationError({ model: body.model === undefined || body.model === null ? 'is required' : 'must be a non-empty string' });
    // A key scoped to other models gets the refusal it would get on the inference route.
    if (model !== undefined && auth.key.models) checkModelScope(auth.key, model, modelsThatMayServe(model));
    const request = face.decode(body, model ?? 'count');
    const upstream = model !== undefined ? await countUpstream(deps, event, format.id, face, body, request) : undefined;
    const tokens = upstream?.tokens ?? (await countInputTokens(request));
    setResponseHeader(event, 'x-gateway-token-count', upstream === undefined ? 'local' : 'upstream');
    return json(event, face.encode(tokens, { upstream: upstream?.answer, request }));
  };
}

/** The first candidate that speaks the client's format and has a counter, asked: its count and whole answer; undefined when none could answer. */
async function countUpstream(
  deps: ServerDeps,
  event: H3Event,
  format: string,
  face: CountTokensFace,
  body: Record<string, unknown>,
  request: ChatRequest,
): Promise<{ tokens: number; answer: Record<string, unknown> } | undefined> {
  const plan = deps.router.plan(request.model, (model) => (model.spec.type ?? 'chat') === 'chat');
  const model = [...plan.primary, ...plan.chain].find((candidate: CatalogModel) => candidate.formats.includes(format) && candidate.provider.instance.countTokens);
  if (!model?.provider.instance.countTokens) return undefined;
  const upstreamBody = face.upstreamBody(body, model.upstreamId);
  try {
    const call = { format, body: upstreamBody, rawBody: JSON.stringify(upstreamBody), model: model.upstreamId, stream: false, headers: forwardHeaders(event), signal: AbortSignal.timeout(30_000) };
    const response = await model.provider.instance.countTokens(patchCall(model.provider.instance, model.provider.id, 'countTokens', call));
    const answer = await readJsonBody(response.body);
    const tokens = response.status >= 200 && response.status < 300 ? face.readUpstream(answer) : undefined;
    if (tokens !== undefined) return { tokens, answer: answer as Record<string, unknown> };
    deps.log.warn('upstream token count failed; counted locally', { provider: model.provider.id, status: response.status });
  } catch (error) {
    deps.log.warn('upstream token count failed; counted locally', { provider: model.provider.id, error: error instanceof Error ? error.message : String(error) });
  }
  return undefined;
}
