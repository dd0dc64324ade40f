import { GatewayError } from '../errors/index.ts';
import { findFormat, formatsGeneration, listFormats, wireFormatIds, type FormatDefinition, type FormatRoute, type WrappedCount } from '../formats/index.ts';
import type { ProviderRegistry } from '../providers/index.ts';
import type { CatalogModel } from '../providers/index.ts';
import type { RoutingConfig } from '../config/index.ts';
import type { ApiKeyRecord, KeyEndpoint, SpendLimitReset } from '../store/index.ts';

/** The endpoint groups that are not a wire format's routes. */
const OTHER_ENDPOINTS: Array<[string, KeyEndpoint]> = [
  ['/v1/images', 'images'],
  ['/v1/audio', 'audio'],
  ['/v1/files', 'files'],
  ['/v1/batches', 'batches'],
  ['/v1/videos', 'videos'],
  ['/v1/embeddings', 'embeddings'],
  ['/v1/moderations', 'moderations'],
];

/** The endpoint groups a key's `endpoints` scope may name: every registered wire format (a plugin's too), then the media and batch groups. */
export function keyEndpoints(): KeyEndpoint[] {
  return [...wireFormatIds(), ...OTHER_ENDPOINTS.map(([, endpoint]) => endpoint)];
}

/** The periods after which a key's spend limit starts over. */
export const SPEND_LIMIT_RESETS = ['daily', 'weekly', 'monthly'] as const satisfies readonly SpendLimitReset[];

/** The fixed part of a route pattern: up to its first `:param` or `*` segment (`/v1beta/models/**` → `/v1beta/models`). */
function prefixOf(pattern: string): string {
  const segments = pattern.split('/');
  const fixed = segments.findIndex((segment) => segment.startsWith(':') || segment.includes('*'));
  return fixed === -1 ? pattern : segments.slice(0, fixed).join('/');
}

/**
 * A path prefix of an endpoint group; `method`: it governs only paths below the prefix asked with
 * that method; `reads`: the route's own reading of a path, which tells two groups under one prefix
 * apart (Bedrock's `/model/{id}/invoke` is the Messages face's, `/model/{id}/converse` the bedrock
 * plugin's Converse format's).
 */
type EndpointPath = [prefix: string, endpoint: KeyEndpoint, method?: string, reads?: (path: string) => boolean, holds?: RegExp];

const NO_QUERY = new URLSearchParams();

/** The paths a route pattern holds: `:param` one segment, `**` (or `**:name`) the rest. Compiled once per set of formats (fromRegistry). */
function holdsOf(pattern: string): RegExp {
  const segments = pattern.split('/').map((segment) => (segment.startsWith('**') ? '.*' : segment.startsWith(':') ? '[^/]+' : segment.replace(/[.+?^${}()|[\]\\*]/g, '\\$&')));
  return new RegExp(`^${segments.join('/')}$`);
}

function endpointPathOf(route: FormatRoute, endpoint: KeyEndpoint): EndpointPath {
  const method = route.path.split('/').some((segment) => segment.startsWith('**:')) ? route.method : undefined;
  // Admission checks the scope against the route's pattern (`/model/**`), authentication against the URL.
  const reads = route.from === 'path' ? (path: string) => path === route.path || route.readPath(path, NO_QUERY) !== undefined : undefined;
  return [prefixOf(route.path), endpoint, method, reads, reads && holdsOf(route.path)];
}

/**
 * Path prefixes of each endpoint group (a prefix matches itself and anything below it, whatever
 * the method), read from the format registry. A route of one segment or more (`**:name`) shares
 * its prefix with another group's routes (Gemini's `POST /v1/models/{model}:generateContent`
 * below OpenAI's `GET /v1/models`): it governs only its own method, below the prefix.
 */
function buildEndpointPaths(): EndpointPath[] {
  const formats = listFormats().flatMap((format) => format.routes.map((route) => endpointPathOf(route, format.id)));
  // Anthropic's Message Batches sit below the messages routes but are batches (their lines are admitted as batch lines); Gemini's too.
  // Gemini's Files API sits below the Gemini routes' `/v1beta` but is the files group, as /v1/files is.
  // OpenAI's Conversations are the Responses store's (a conversation is a Responses request's history): the responses group.
  return [
    ['/v1/conversations', 'responses'],
    ['/v1/messages/batches', 'batches'],
    ['/v1beta/batches', 'batches'],
    ['/v1beta/files', 'files'],
    ['/upload/v1beta/files', 'files'],
    ['/download/v1beta/files', 'files'],
    ['/upload/v1/files', 'files'],
    ['/download/v1/files', 'files'],
    ...formats,
    ...OTHER_ENDPOINTS,
  ];
}

/**
 * The endpoint group of a request path (asked with `method`, when known), or undefined for paths
 * no scope governs (every format's model list and models.get, usage endpoints, health): a key always reaches those.
 */
export function endpointOfPath(path: string, method?: string): KeyEndpoint | undefined {
  // HEAD answers every GET route as its GET does (status included).
  if ((method === 'GET' || method === 'HEAD') && fromRegistry().lists.some((lists) => lists(path))) return undefined;
  // Gemini's batch create shares its path-model route's pattern (`…/models/{model}:batchGenerateContent`).
  if (path.endsWith(':batchGenerateContent')) return 'batches';
  // The first group whose route reads the path; else the first whose route pattern holds it (Gemini's `/projects/**`
  // holds a Vertex `:predict` that Claude's `/projects/:p/locations/:l/publishers/anthropic/models/**` does not); else
  // the first whose prefix holds it.
  let held: KeyEndpoint | undefined;
  let below: KeyEndpoint | undefined;
  for (const [prefix, endpoint, only, reads, holds] of fromRegistry().paths) {
    if (!path.startsWith(prefix)) continue;
    if (only !== undefined ? (method === undefined || method === only) && path[prefix.length] === '/' : path.length === prefix.length || path[prefix.length] === '/') {
      if (!reads || reads(path)) return endpoint;
      if (holds?.test(path)) held ??= endpoint;
      below ??= endpoint;
    }
  }
  return held ?? below;
}

/** A wrapped count that may hold another registered format's body (Bedrock's CountTokens: `input.converse`), with its face. */
type MixedCount = { face: FormatDefinition; wrapped: WrappedCount & { otherFormat: NonNullable<WrappedCount['otherFormat']> } };

/** The wrapped counts that may hold another registered format's body. */
function buildMixedCounts(): MixedCount[] {
  const out: MixedCount[] = [];
  for (const face of listFormats()) {
    const wrapped = face.countTokens?.wrapped;
    if (wrapped?.otherFormat && findFormat(wrapped.otherFormat.format)) out.push({ face, wrapped: wrapped as MixedCount['wrapped'] });
  }
  return out;
}

/** The media groups a format may serve in its own shape, each on its face of the same name (`FormatDefinition.embeddings`, `.images`). */
const MEDIA_FACES = ['embeddings', 'images'] as const satisfies ReadonlyArray<keyof FormatDefinition>;

/** A format's own face of a media group (Gemini's `…:embedContent` of `embeddings`, Imagen's `…:predict` of `images`): `reads` a URL's path. */
type MediaFace = { format: KeyEndpoint; group: KeyEndpoint; reads(path: string): boolean };

/** The media faces of the registered formats. */
function buildMediaFaces(): MediaFace[] {
  return listFormats().flatMap((format) =>
    MEDIA_FACES.flatMap((group) => {
      const face = format[group];
      return face ? [{ format: format.id, group, reads: (path: string) => face.readPath(path, NO_QUERY) !== undefined }] : [];
    }),
  );
}

/** Reads whether a GET path is a format's model list or one of its models (not a POST method's URL, whose GET is that method's 405). */
type ListsModels = (path: string) => boolean;

function decoded(rest: string): string {
  try {
    return decodeURIComponent(rest);
  } catch {
    return rest;
  }
}

/** The model lists of the registered formats (Gemini's `GET /v1beta/models[/{model}]`, Vertex's publisher models), which no scope governs, as `/v1/models`. */
function buildModelLists(): ListsModels[] {
  return listFormats().flatMap((format) => {
    const out: ListsModels[] = [];
    const list = format.models;
    if (list) {
      out.push((path) => path === list.path || (path.startsWith(`${list.path}/`) && list.readPostMethod?.(decoded(path.slice(list.path.length + 1))) === undefined));
    }
    const paths = format.modelPaths;
    if (paths) {
      out.push((path) => {
        const target = paths.readPath(path);
        return target !== undefined && ('list' in target || paths.readPostMethod?.(target.rest) === undefined);
      });
    }
    return out;
  });
}

let derived: { generation: number; paths: EndpointPath[]; mixed: MixedCount[]; faces: MediaFace[]; lists: ListsModels[] } | undefined;

/** What the scope checks read from the registry, built once per set of registered formats (every scoped request reads it). */
function fromRegistry(): { paths: EndpointPath[]; mixed: MixedCount[]; faces: MediaFace[]; lists: ListsModels[] } {
  const generation = formatsGeneration();
  if (derived?.generation !== generation) derived = { generation, paths: buildEndpointPaths(), mixed: buildMixedCounts(), faces: buildMediaFaces(), lists: buildModelLists() };
  return derived;
}

/** The wrapped count whose route is `path` (the URL, or the route's pattern as admission asks it), when it may hold another registered format's body. */
function mixedCountOf(path: string): MixedCount | undefined {
  return fromRegistry().mixed.find(({ wrapped }) => path === wrapped.path || wrapped.readPath(path) !== undefined);
}

/**
 * The endpoint groups a request to `path` may belong to, any one of which lets a key call it: one (its route's),
 * none (open to every key), or:
 * - on a wrapped count that may hold another format's body (Bedrock's CountTokens), both formats': the body says
 *   which (countedEndpoint), so before the body is read a key scoped to either passes. From the registry: the count
 *   counts as the operation whose body it holds, `input.invokeModel` InvokeModel's (messages), `input.converse`
 *   Converse's (bedrock-converse);
 * - on a URL a format's media face reads (Gemini's `…:embedContent`, Imagen's `…:predict`), the format's and the
 *   media group's (`gemini`, `embeddings`): the format's own method, the media group's operation. Vertex's
 *   `:predict` is read by both faces (the model says which): each group passes here, admission tells them apart.
 * `enough`: a key's scope; when it holds the route's group, that group alone is returned (it lets the key through).
 */
function endpointsOfPath(path: string, method?: string, enough?: readonly KeyEndpoint[]): KeyEndpoint[] {
  const mixed = mixedCountOf(path);
  if (mixed) return [mixed.face.id, mixed.wrapped.otherFormat.format];
  const endpoint = endpointOfPath(path, method);
  if (endpoint === undefined) return [];
  if ((method !== undefined && method !== 'POST') || enough?.includes(endpoint)) return [endpoint];
  const groups = fromRegistry().faces.filter((face) => face.format === endpoint && face.reads(path)).map((face) => face.group);
  return [endpoint, ...groups];
}

/**
 * The groups of a request admitted on `route` (a media route: `/v1/embeddings`) that the client asked at `called`:
 * the route's, and the format's whose media face of that group reads `called` (Gemini's `…:embedContent` is
 * `embeddings` or `gemini`), first.
 */
function endpointsCalled(route: string, called: string, method?: string): KeyEndpoint[] {
  const groups = endpointsOfPath(route, method);
  const formats = fromRegistry().faces.filter((face) => groups.includes(face.group) && !groups.includes(face.format) && face.reads(called)).map((face) => face.format);
  return [...new Set(formats), ...groups];
}

/**
 * The endpoint group of a count of `path` whose body is `body`: on a wrapped count that holds another
 * registered format's body (Bedrock's `input.converse`), that format's; otherwise the route's own.
 */
export function countedEndpoint(path: string, body: Record<string, unknown>): KeyEndpoint | undefined {
  const mixed = mixedCountOf(path);
  if (!mixed) return endpointOfPath(path, 'POST');
  return mixed.wrapped.otherFormat.read(body) === undefined ? mixed.face.id : mixed.wrapped.otherFormat.format;
}

/** 403 naming `endpoint` when the key's `endpoints` scope leaves it out. */
export function checkEndpoint(key: ApiKeyRecord, endpoint: KeyEndpoint | undefined, path: string): void {
  const allowed = key.endpoints;
  if (!allowed || endpoint === undefined || allowed.includes(endpoint)) return;
  refuse(allowed, [endpoint], path);
}

/** The 403 for a call to `path` that any one of `endpoints` would let through (`details.endpoints` when several would). */
function refuse(allowed: readonly KeyEndpoint[], endpoints: readonly KeyEndpoint[], path: string): never {
  const [endpoint] = endpoints;
  const several = endpoints.length > 1;
  const named = several ? `${endpoints.slice(0, -1).join(', ')} or ${endpoints.at(-1)} endpoints (${path}, which any one of these groups allows)` : `${endpoint} endpoints (${path})`;
  throw new GatewayError('authorization_error', `This API key may not call the ${named}; it is scoped to: ${allowed.join(', ')}.`, {
    details: several ? { endpoint, endpoints, allowed_endpoints: allowed } : { endpoint, allowed_endpoints: allowed },
  });
}

/**
 * 403 when the key's `endpoints` scope leaves out every group `path` may be of (asked with `method`, when known).
 * `called`: the URL's path when `path` is the route it is admitted on and not the URL (a format's media face,
 * admitted as `/v1/embeddings` or `/v1/images/generations`): the face's format is a group too, and the 403 names `called`.
 */
export function checkEndpointScope(key: ApiKeyRecord, path: string, method?: string, called?: string): void {
  const allowed = key.endpoints;
  if (!allowed) return;
  const endpoints = called === undefined || called === path ? endpointsOfPath(path, method, allowed) : endpointsCalled(path, called, method);
  if (endpoints.length === 0 || endpoints.some((endpoint) => allowed.includes(endpoint))) return;
  refuse(allowed, endpoints, called ?? path);
}

const compiled = new WeakMap<readonly string[], RegExp[]>();

/** A model glob as a RegExp: `*` any run of characters (slashes too), `?` one character. */
export function compileModelPattern(pattern: string): RegExp {
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${source}$`);
}

function patternsOf(models: readonly string[]): RegExp[] {
  let list = compiled.get(models);
  if (!list) {
    list = models.map(compileModelPattern);
    compiled.set(models, list);
  }
  return list;
}

/** True when a pattern names `provider/model` or the model's own id (any provider). */
function allows(patterns: RegExp[], model: Pick<CatalogModel, 'id' | 'upstreamId'>): boolean {
  return patterns.some((p) => p.test(model.id) || p.test(model.upstreamId));
}

/** Requested ids remembered by one lookup (the catalog and the routing config do not change while it lives). */
const SERVED_BY_KEPT = 1024;

/**
 * The lookup of every catalog model a request for an id may end up on: the providers serving
 * the id and the config's fallback chain for it (docs/routing.md); empty when the id is unknown.
 * Answers are remembered in the lookup, so its owner makes it once (the guards, a route). A
 * request's own fallbacks (OpenRouter's `models`) add what each of theirs may be served by.
 */
export function createModelsThatMayServe(registry: ProviderRegistry, routing: RoutingConfig | undefined): (requested: string, fallbacks?: readonly string[]) => CatalogModel[] {
  const cache = new Map<string, CatalogModel[]>();
  const lookup = (requested: string, fallbacks?: readonly string[]): CatalogModel[] => {
    if (fallbacks && fallbacks.length > 0) return [...new Set([requested, ...fallbacks].flatMap((id) => lookup(id)))];
    const known = cache.get(requested);
    if (known) return known;
    const out: CatalogModel[] = [];
    const add = (id: string) => {
      try {
        out.push(...registry.resolve(id).candidates);
      } catch {
        // unknown ids are skipped, as routing skips them
      }
    };
    add(requested);
    for (const entry of routing?.models[requested]?.fallbacks ?? []) add(entry);
    if (cache.size >= SERVED_BY_KEPT) cache.clear();
    cache.set(requested, out);
    return out;
  };
  return lookup;
}

/** The first model of a request (the requested id, or a model that may serve it) that no pattern of `models` allows. */
function outsideScope(models: readonly string[], requested: string, mayServe: ReadonlyArray<Pick<CatalogModel, 'id' | 'upstreamId'>>): string | undefined {
  const patterns = patternsOf(models);
  if (mayServe.length === 0) return patterns.some((p) => p.test(requested)) ? undefined : requested;
  return mayServe.find((m) => !allows(patterns, m))?.id;
}

/**
 * The models a key may ask by their catalog id (all of them for a key without a models scope):
 * what its model lists show, so a listed model is one `checkModelScope` lets through.
 */
export function modelsKeyMayUse<M extends Pick<CatalogModel, 'id'>>(key: ApiKeyRecord, models: readonly M[], mayServe: (requested: string) => ReadonlyArray<Pick<CatalogModel, 'id' | 'upstreamId'>>): readonly M[] {
  const scope = key.models;
  if (!scope) return models;
  return models.filter((m) => outsideScope(scope, m.id, mayServe(m.id)) === undefined);
}

/**
 * 403 when the key's `models` scope does not cover the request: the requested id and every
 * model it may be routed to (a fallback on another provider included) must match a pattern.
 * `servedBy` replaces the registry lookup when the route knows its candidates (media).
 */
export function checkModelScope(key: ApiKeyRecord, requested: string, mayServe: ReadonlyArray<Pick<CatalogModel, 'id' | 'upstreamId'>>): void {
  const models = key.models;
  if (!models) return;
  const outside = outsideScope(models, requested, mayServe);
  if (outside === undefined) return;
  const via = outside === requested ? '' : ` (the request for '${requested}' may be served by '${outside}')`;
  throw new GatewayError('authorization_error', `This API key may not use the model '${outside}'${via}; it is scoped to: ${models.join(', ')}.`, {
    details: { model: requested, not_allowed: outside, allowed_models: models },
  });
}
