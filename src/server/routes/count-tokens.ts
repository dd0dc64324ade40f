import type { H3Event } from 'h3';
import { checkEndpoint, checkModelScope, countedEndpoint, createModelsThatMayServe } from '../../accounts/index.ts';
import { GatewayError, isGatewayError, renameFields, validationError } from '../../errors/index.ts';
import { inlineStoredFiles, withConversationHistory } from '../../exchange/index.ts';
import { findFormat, type CountTokensFace, type FormatDefinition, type WrappedCount } from '../../formats/index.ts';
import type { ChatRequest } from '../../ir/index.ts';
import { checkConvertible, countInputTokens, overUpstreamLimit, patchCall } from '../../pipeline/index.ts';
import { baseModelOf, type CatalogModel } from '../../providers/index.ts';
import { readJsonBody } from '../../upstream/index.ts';
import { authenticateApiKey } from '../auth.ts';
import { checkInferenceBounds } from '../check-inference-bounds.ts';
import { requestState, setResponseHeader } from '../context.ts';
import { bodyLimit } from '../byte-limit.ts';
import { jsonBodyBounds, readJsonObject } from '../read-body.ts';
import { passLimitsFirst } from '../pass-limits.ts';
import { json } from '../send.ts';
import type { ServerDeps } from '../types.ts';
import { noRoute } from '../hint-base-url.ts';
import { forwardHeaders, servedModel } from './inference.ts';

/**
 * A format's token-count route (its face's `countTokens`: Anthropic `/v1/messages/count_tokens`,
 * OpenAI `/v1/responses/input_tokens`, Gemini `…:countTokens`): the serving upstream's own
 * counter when it has one for the client's format (`X-Gateway-Token-Count: upstream`), else a
 * local count with a tokenizer (`local`, never a fake zero; src/pipeline/count-input-tokens.ts).
 * An upstream that fails to count falls back to the local count: a number is what the client
 * needs to plan its context. With `wrapped`, the face's wrapped count on its own route (Bedrock's
 * CountTokens): the body unwrapped before anything reads it, the answer the cloud's.
 */
export function countTokensHandler(deps: ServerDeps, format: FormatDefinition, face: CountTokensFace, wrapped?: WrappedCount) {
  const modelsThatMayServe = createModelsThatMayServe(deps.registry, deps.config.routing);
  const readPath = wrapped ? (pathname: string) => wrapped.readPath(pathname) : face.readPath;
  const alsoKnownAs = wrapped ? wrapped.alsoKnownAs : face.alsoKnownAs;
  return async (event: H3Event): Promise<string> => {
    const fromPath = readPath ? readPath(event.url.pathname, event.url.searchParams) : undefined;
    if (readPath && fromPath === undefined) throw noRoute(event.req.method, event.url.pathname);
    // '' is a count URL whose body names the model (Vertex's Claude count-tokens:rawPredict).
    const pathModel = fromPath === '' ? undefined : fromPath;
    const auth = authenticateApiKey(event, deps, format.id);
    // The key's rate limit and slot before the body is read (issue 27): a count is a request like
    // any other; no admission takes the slot over, so the route wrapper gives it back at the end.
    const passing = passLimitsFirst(event, deps, auth, wrapped?.path ?? face.path);
    if (passing instanceof Promise) await passing;
    const read = readJsonObject(event, jsonBodyBounds(deps, bodyLimit(deps, 'inference')));
    let { body } = read instanceof Promise ? await read : read;
    if (wrapped) {
      // The route let in a key scoped to any format the wrap may hold; the body says which one it counts (Bedrock's input.converse: Converse's).
      if (auth.key.endpoints) checkEndpoint(auth.key, countedEndpoint(event.url.pathname, body), event.url.pathname);
      body = unwrapCount(wrapped, face, body, pathModel ?? 'count');
    }
    checkInferenceBounds(body);
    // A Responses count naming a conversation counts its items too, as OpenAI's does (the id never goes upstream).
    if (format.id === 'responses') body = await withConversationHistory(deps, auth.account.id, body);
    // Files uploaded to the gateway that the count names (Gemini fileData, a file_id: a conversation's items' too) are counted inline, as the request would send them.
    const files = format.storedFiles?.find(body) ?? [];
    if (files.length > 0) ({ body } = await inlineStoredFiles(deps, format.id, { body, raw: JSON.stringify(body) }, files, auth));
    const named = pathModel ?? (typeof body.model === 'string' && body.model !== '' ? body.model : undefined);
    // A cloud's id (Vertex's `claude-sonnet-4-5@20250929`) as the model the gateway serves under it.
    const model = named === undefined ? undefined : servedModel(deps, named, alsoKnownAs?.(named));
    // Absent: 400 (spec §7's missing field); there but not a name: 422, as on the inference route.
    if (face.requiresModel && model === undefined) throw validationError({ model: body.model === undefined || body.model === null ? 'is required' : 'must be a non-empty string' });
    // A key scoped to other models gets the refusal it would get on the inference route.
    if (model !== undefined && auth.key.models) checkModelScope(auth.key, model, modelsThatMayServe(model));
    // The request log and the live window name the model counted for, and the provider when an upstream counted.
    const record = requestState(event).record;
    if (record) record.requestedModel = model;
    const request = face.decode(body, model ?? 'count');
    // A request the inference route would refuse before any upstream call (what no other format can carry, for a model served only
    // converted: a Responses `prompt` template) is refused here too, in the same words: a count of what could never be sent is no count.
    if (model !== undefined && request.unconvertible !== undefined) checkCountConvertible(deps, format.id, model, request);
    const upstream = model !== undefined ? await countUpstream(deps, event, format.id, face, body, request) : undefined;
    if (record && upstream) record.servedBy(upstream.provider, upstream.model);
    const tokens = upstream?.tokens ?? (await countInputTokens(request));
    setResponseHeader(event, 'x-gateway-token-count', upstream === undefined ? 'local' : 'upstream');
    return json(event, wrapped ? wrapped.encode(tokens) : face.encode(tokens, { upstream: upstream?.answer, request }));
  };
}

/** As the inference route's check of a certain conversion (every candidate of the model in another format): its 400/422. */
function checkCountConvertible(deps: ServerDeps, format: string, model: string, request: ChatRequest): void {
  let candidates: readonly CatalogModel[];
  try {
    candidates = deps.registry.resolve(model).candidates;
  } catch {
    return;
  }
  if (candidates.length === 0 || candidates.some((candidate) => candidate.formats.includes(format))) return;
  checkConvertible(request, candidates[0]);
}

/**
 * A wrapped count's body as the face counts it: its own, unwrapped; or another format's (Bedrock's
 * `input.converse`) decoded by that format's codec, found in the registry (a plugin's format:
 * core names no plugin), and written as the face's body for the same request (`bodyFor`, as a
 * converted count is), so it is counted as the face's own bodies are, upstream or locally.
 */
function unwrapCount(wrapped: WrappedCount, face: CountTokensFace, body: Record<string, unknown>, model: string): Record<string, unknown> {
  const other = wrapped.otherFormat;
  const held = other?.read(body);
  if (!other || held === undefined) return wrapped.unwrap(body);
  const format = findFormat(other.format);
  if (!format || !face.bodyFor) throw new GatewayError('bad_request', other.missing);
  let request: ChatRequest;
  try {
    request = format.codec.decodeRequest(held, { model, stream: false });
  } catch (error) {
    throw isGatewayError(error) ? renameFields(error, (field) => `${other.at}.${field}`) : error;
  }
  return face.bodyFor(request, model);
}

/** The format a candidate's counter is asked in: the client's when the candidate speaks it, else the first of its formats with a counter body for a converted count. */
function counterOf(candidate: CatalogModel, format: string, face: CountTokensFace): { format: string; face: CountTokensFace } | undefined {
  if (!candidate.provider.instance.countTokens) return undefined;
  if (candidate.formats.includes(format)) return { format, face };
  for (const id of candidate.formats) {
    const other = findFormat(id)?.countTokens;
    if (other?.bodyFor) return { format: id, face: other };
  }
  return undefined;
}

/**
 * The first candidate with a counter, asked: its count, and its whole answer when it speaks the
 * client's format (a converted count's answer is in another format); undefined when none could answer.
 */
async function countUpstream(
  deps: ServerDeps,
  event: H3Event,
  format: string,
  face: CountTokensFace,
  body: Record<string, unknown>,
  request: ChatRequest,
): Promise<{ tokens: number; provider: string; model: string; answer?: Record<string, unknown> } | undefined> {
  const plan = deps.router.planChat(request.model);
  let counter: { format: string; face: CountTokensFace } | undefined;
  const model = [...plan.primary, ...plan.chain].find((candidate: CatalogModel) => (counter = counterOf(candidate, format, face)) !== undefined);
  if (!model?.provider.instance.countTokens || !counter) return undefined;
  const same = counter.format === format;
  try {
    // Converted: the request as the counter's format writes it for the model the candidate is (a deployment name says
    // nothing of it), as the inference route does; it may refuse what that format cannot say: counted locally then.
    const upstreamBody = same ? face.upstreamBody(body, model.upstreamId) : counter.face.bodyFor!(request, model.upstreamId, baseModelOf(model));
    const call = { format: counter.format, body: upstreamBody, rawBody: JSON.stringify(upstreamBody), model: model.upstreamId, stream: false, headers: same ? forwardHeaders(event) : {}, signal: AbortSignal.timeout(30_000) };
    const patched = patchCall(model.provider.instance, model.provider.id, 'countTokens', call);
    // More than the upstream takes (its files inline, say): it would refuse after the whole upload; counted here instead.
    if (overUpstreamLimit(model, patched.rawBody)) {
      deps.log.debug('token count larger than the upstream takes; counted locally', { provider: model.provider.id, limit_bytes: model.provider.maxRequestBytes });
      return undefined;
    }
    const response = await model.provider.instance.countTokens(patched);
    const answer = await readJsonBody(response.body);
    const tokens = response.status >= 200 && response.status < 300 ? counter.face.readUpstream(answer) : undefined;
    const by = { provider: model.provider.id, model: model.id };
    if (tokens !== undefined) return same ? { tokens, ...by, answer: answer as Record<string, unknown> } : { tokens, ...by };
    deps.log.warn('upstream token count failed; counted locally', { provider: model.provider.id, status: response.status });
  } catch (error) {
    deps.log.warn('upstream token count failed; counted locally', { provider: model.provider.id, error: error instanceof Error ? error.message : String(error) });
  }
  return undefined;
}
