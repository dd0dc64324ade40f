import type { H3Event } from 'h3';
import { createModelsThatMayServe, modelsKeyMayUse, type AuthContext } from '../../accounts/index.ts';
import { GatewayError } from '../../errors/index.ts';
import { toModelObject } from '../../providers/index.ts';
import { anthropicModelPage, toAnthropicModelObject } from '../../providers/index.ts';
import { requestHeader } from '../context.ts';
import { authenticateApiKey } from '../auth.ts';
import { json } from '../send.ts';
import type { ServerDeps } from '../types.ts';
import { formatOfClient, type FormatDefinition, type ListedModel, type ModelListFace, type ModelPathFace } from '../../formats/index.ts';
import { noRoute } from '../hint-base-url.ts';
import type { CatalogModel } from '../../providers/index.ts';
import type { RouteDef } from './types.ts';

/** An Anthropic SDK (or Claude Code's model discovery) asks: it always sends `anthropic-version`. */
function wantsAnthropicShape(event: H3Event): boolean {
  return requestHeader(event, 'anthropic-version') !== undefined;
}

/**
 * The format whose SDK asks `/v1/models` by the headers it always sends (or its key in the query:
 * Google's `?key=`), when that format lists models in its own shape (Google's SDKs with
 * `apiVersion: 'v1'` list and get models there).
 */
function clientFace(event: H3Event): { format: FormatDefinition; face: ModelListFace } | undefined {
  const format = formatOfClient(event.url.pathname, (name) => requestHeader(event, name), event.url.searchParams);
  return format?.models ? { format, face: format.models } : undefined;
}

/**
 * The catalog models a key may ask (a key scoped to some models sees only those, as an OpenAI
 * project key or an OpenRouter key does): a model whose fallback lies outside the scope is not shown.
 */
function modelsVisibleTo(deps: ServerDeps): (auth: AuthContext) => readonly CatalogModel[] {
  const mayServe = createModelsThatMayServe(deps.registry, deps.config.routing);
  return (auth) => modelsKeyMayUse(auth.key, deps.registry.models, mayServe);
}

/**
 * Whether a key may see one model (see modelsVisibleTo): a model outside its scope is answered
 * as an unknown one (404 `model_not_found`), as OpenAI answers a project key for a model it may not use.
 */
function modelVisibleTo(deps: ServerDeps): (auth: AuthContext, model: CatalogModel) => boolean {
  const mayServe = createModelsThatMayServe(deps.registry, deps.config.routing);
  return (auth, model) => modelsKeyMayUse(auth.key, [model], mayServe).length > 0;
}

const unknownModel = (id: string) => new GatewayError('model_not_found', `The model '${id}' does not exist.`, { details: { model: id } });

/** GET /v1/models?type=…&capability=… (Anthropic's page shape, `limit`/`after_id`/`before_id`, when `anthropic-version` is sent) */
export function listModels(deps: ServerDeps) {
  const visible = modelsVisibleTo(deps);
  const faces = new Map<FormatDefinition, (event: H3Event) => string>();
  return (event: H3Event): string => {
    const client = clientFace(event);
    if (client) {
      let list = faces.get(client.format);
      if (!list) faces.set(client.format, (list = listIn(deps, client.format, client.face)));
      return list(event);
    }
    const auth = authenticateApiKey(event, deps);
    const type = event.url.searchParams.get('type');
    const capability = event.url.searchParams.get('capability');
    const models = visible(auth)
      .filter((m) => !type || (m.spec.type ?? 'chat') === type)
      .filter((m) => !capability || (m.spec.capabilities ?? []).includes(capability as never));
    if (wantsAnthropicShape(event)) return json(event, anthropicModelPage(models, event.url.searchParams));
    return json(event, { object: 'list', data: models.map(toModelObject) });
  };
}

/** GET /v1/models/{model_id}; the SDKs send `provider/model` with the slash encoded. */
export function getModel(deps: ServerDeps) {
  const visible = modelVisibleTo(deps);
  const faces = new Map<FormatDefinition, (event: H3Event) => string>();
  return (event: H3Event): string => {
    const client = clientFace(event);
    if (client) {
      let one = faces.get(client.format);
      if (!one) faces.set(client.format, (one = oneIn(deps, client.format, client.face, '/v1/models')));
      return one(event);
    }
    const auth = authenticateApiKey(event, deps);
    const rawId = event.url.pathname.slice('/v1/models/'.length);
    let id: string;
    try {
      id = decodeURIComponent(rawId);
    } catch {
      throw new GatewayError('bad_request', 'The model id in the path is not valid percent-encoding.');
    }
    const model = deps.registry.get(id) ?? deps.registry.models.find((m) => m.upstreamId === id);
    if (!model || !visible(auth, model)) throw unknownModel(id);
    return json(event, wantsAnthropicShape(event) ? toAnthropicModelObject(model) : toModelObject(model));
  };
}

/** The catalog's facts a format's model list shows. */
function listedOf(model: CatalogModel): ListedModel {
  const spec = model.spec;
  const listed: ListedModel = { id: model.id, provider: model.provider.id, displayName: spec.displayName ?? spec.id, type: spec.type ?? 'chat' };
  if (spec.contextWindow !== undefined) listed.contextWindow = spec.contextWindow;
  if (spec.maxOutputTokens !== undefined) listed.maxOutputTokens = spec.maxOutputTokens;
  if (spec.capabilities !== undefined) listed.capabilities = spec.capabilities;
  return listed;
}

/** A format's model list in its own shape, with its credentials. */
function listIn(deps: ServerDeps, format: FormatDefinition, face: ModelListFace) {
  const visible = modelsVisibleTo(deps);
  return (event: H3Event): string => {
    const auth = authenticateApiKey(event, deps, format.id);
    return json(event, face.list(visible(auth).map(listedOf), event.url.searchParams));
  };
}

/** One model in a format's own shape (the id after `${prefix}/`), with its credentials. */
function oneIn(deps: ServerDeps, format: FormatDefinition, face: ModelListFace, prefix: string) {
  const visible = modelVisibleTo(deps);
  return (event: H3Event): string => {
    const auth = authenticateApiKey(event, deps, format.id);
    let rest: string;
    try {
      rest = decodeURIComponent(event.url.pathname.slice(prefix.length + 1));
    } catch {
      throw new GatewayError('bad_request', 'The model id in the path is not valid percent-encoding.');
    }
    const shown = (model: CatalogModel) => visible(auth, model);
    return json(event, face.one(listedOf(modelNamed(deps, event, { id: face.readId ? face.readId(rest) : rest, rest, shown }, face.readPostMethod))));
  };
}

/**
 * The gateway's model `id` (or the one whose upstream id it is) when the key is `shown` it; a 405 when the path's `rest`
 * names a POST method, the no-route 404 (as a POST there gets) when it names a method of a model that exists but is not
 * served here, else a 404 (a model the key may not see is not there for it).
 */
function modelNamed(
  deps: ServerDeps,
  event: H3Event,
  { id, rest, shown }: { id: string; rest: string; shown: (model: CatalogModel) => boolean },
  readPostMethod: ((rest: string) => string | undefined) | undefined,
): CatalogModel {
  const find = (name: string) => {
    const model = deps.registry.get(name) ?? deps.registry.models.find((m) => m.upstreamId === name);
    return model && shown(model) ? model : undefined;
  };
  const model = find(id);
  if (model) return model;
  // `GET …/models/{model}:generateContent` (a browser, a client with the wrong verb): the model is not what is wrong.
  const method = readPostMethod?.(rest);
  if (method !== undefined) {
    const allow = 'POST, OPTIONS';
    throw new GatewayError('method_not_allowed', `Method ${event.req.method} is not allowed on ${event.url.pathname}: ${method} is served by POST. Allowed: ${allow}.`, { headers: { Allow: allow } });
  }
  // `GET /v1beta/models/{model}:predict`: Vertex's method on AI Studio's path, where no verb is served.
  const colon = id.lastIndexOf(':');
  if (colon > 0 && find(id.slice(0, colon))) throw noRoute(event.req.method, event.url.pathname);
  throw unknownModel(id);
}

/** A format's own model list and one-model routes (its face's `models`: Gemini's `GET /v1beta/models`), with its credentials. */
export function formatModelRoutes(deps: ServerDeps, format: FormatDefinition, face: ModelListFace): RouteDef[] {
  return [
    { method: 'GET', path: face.path, handler: listIn(deps, format, face), format: format.id },
    { method: 'GET', path: `${face.path}/**`, handler: oneIn(deps, format, face, face.path), format: format.id },
  ];
}

/**
 * A format's model list on paths its face reads (its `modelPaths`: Vertex AI's publisher models), with its
 * credentials: broad GET routes, so a URL the face does not read stays a 404 (the POST routes there are the format's inference).
 */
export function formatModelPathRoutes(deps: ServerDeps, format: FormatDefinition, face: ModelPathFace): RouteDef[] {
  const visible = modelsVisibleTo(deps);
  const visibleOne = modelVisibleTo(deps);
  const handler = (event: H3Event): string => {
    const target = face.readPath(event.url.pathname);
    if (!target) throw noRoute(event.req.method, event.url.pathname);
    const auth = authenticateApiKey(event, deps, format.id);
    if ('list' in target) return json(event, face.list(target.list === 'all' ? visible(auth).map(listedOf) : [], event.url.searchParams));
    const shown = (model: CatalogModel) => visibleOne(auth, model);
    return json(event, face.one(listedOf(modelNamed(deps, event, { id: target.id, rest: target.rest, shown }, face.readPostMethod))));
  };
  return face.paths.map((path) => ({ method: 'GET' as const, path, handler, format: format.id, broad: true as const }));
}
