import { chatFormat } from './chat/index.ts';
import { messagesFormat } from './messages/index.ts';
import { responsesFormat } from './responses/index.ts';
import { geminiFormat } from './gemini/index.ts';
import { completionsFormat } from './completions/index.ts';
import type { CloudFace, FormatCodec, FormatDefinition, FormatRoute, StreamFraming } from './types.ts';

/** The formats the gateway ships with; the next is one folder and its entry here (or a plugin's `wireFormats`). */
const BUILTIN = [chatFormat, responsesFormat, messagesFormat, geminiFormat, completionsFormat] as const satisfies readonly FormatDefinition[];

/** The ids of the built-in formats, as a type (read from BUILTIN). */
export type BuiltinFormat = (typeof BUILTIN)[number]['id'];

const FORMAT_ID = /^[a-z][a-z0-9-]{0,39}$/;
const registered = new Map<string, FormatDefinition>();
/** Moves on whenever a format is registered or removed: what is derived from the registry is kept until then. */
let generation = 0;

/** Why a definition cannot be registered, or undefined: checked here because a plugin's format is not ours. */
function problemOf(format: FormatDefinition): string | undefined {
  if (!format || typeof format !== 'object') return 'a format definition must be an object (defineFormat({...}))';
  if (typeof format.id !== 'string' || !FORMAT_ID.test(format.id)) return `format id '${String(format.id)}' must be lowercase letters, digits and '-' (at most 40)`;
  if (!format.codec || format.codec.format !== format.id) return `format '${format.id}': its codec says format '${String(format.codec?.format)}'`;
  if (typeof format.terminal !== 'function') return `format '${format.id}': terminal(record) is missing`;
  const framing = format.framing;
  if (!framing || typeof framing.createReader !== 'function' || typeof framing.createWriter !== 'function' || typeof framing.contentType !== 'string') {
    return `format '${format.id}': framing needs contentType, createReader() and createWriter()`;
  }
  for (const [name, other] of Object.entries(format.framings ?? {})) {
    if (!other || typeof other.createReader !== 'function' || typeof other.createWriter !== 'function' || typeof other.contentType !== 'string') {
      return `format '${format.id}': framing '${name}' needs contentType, createReader() and createWriter()`;
    }
  }
  if (!Array.isArray(format.routes) || !Array.isArray(format.credentials) || !format.passthrough) return `format '${format.id}': routes, credentials and passthrough are required`;
  for (const route of format.routes) {
    if (route.method !== 'POST' || typeof route.path !== 'string' || !route.path.startsWith('/')) return `format '${format.id}': a route needs method POST and a path`;
    if (route.from === 'path' ? typeof route.readPath !== 'function' : route.from !== 'body') return `format '${format.id}': route ${route.path} reads from 'body' or 'path' (with readPath)`;
    for (const other of registered.values()) {
      if (other.id !== format.id && other.routes.some((r) => r.path === route.path)) return `format '${format.id}': route ${route.path} is already format '${other.id}''s`;
    }
  }
  return cloudProblemOf(format);
}

/** A path root: `/` and segments, no trailing `/` (CloudFace.paths). */
const PATH_ROOT = /^(\/[^/]+)+$/;

/** Why a format's `clouds` cannot be taken, or undefined. */
function cloudProblemOf(format: FormatDefinition): string | undefined {
  if (format.clouds === undefined) return undefined;
  if (!Array.isArray(format.clouds)) return `format '${format.id}': clouds is a list`;
  for (const cloud of format.clouds as readonly CloudFace[]) {
    if (!Array.isArray(cloud?.paths) || cloud.paths.length === 0 || !cloud.paths.every((root) => typeof root === 'string' && PATH_ROOT.test(root))) {
      return `format '${format.id}': a cloud's paths are path roots such as '/model' (no trailing '/')`;
    }
    for (const other of cloud.otherFormats ?? []) {
      if (other?.method !== 'POST' || !(other.pattern instanceof RegExp) || typeof other.format !== 'string' || typeof other.missing !== 'string') {
        return `format '${format.id}': a cloud's otherFormats entry needs format, method POST, a RegExp pattern and missing`;
      }
    }
  }
  return undefined;
}

/**
 * Adds a wire format (a plugin's `wireFormats` at plugin load, or a test). The same
 * definition again is a no-op; another one under a taken id, or a taken route, throws.
 */
export function registerFormat(format: FormatDefinition): void {
  const known = registered.get(format?.id);
  if (known === format) return;
  if (known) throw new Error(`format '${format.id}' is already registered (by another definition)`);
  const problem = problemOf(format);
  if (problem) throw new Error(problem);
  registered.set(format.id, format);
  generation += 1;
}

/** Removes a format a test registered (never a built-in one). */
export function unregisterFormat(id: string): void {
  if (BUILTIN.some((format) => format.id === id)) throw new Error(`format '${id}' is built in`);
  if (registered.delete(id)) generation += 1;
}

/** A number that changes whenever the registered formats do: a table derived from them is current while it holds. */
export function formatsGeneration(): number {
  return generation;
}

for (const format of BUILTIN) registerFormat(format);

/** A registered format's face; throws for an id nobody registered (config and plugins are checked before that). */
export function getFormat(id: string): FormatDefinition {
  const format = registered.get(id);
  if (!format) throw new Error(`unknown wire format '${id}' (registered: ${[...registered.keys()].join(', ')})`);
  return format;
}

/** A format's framing by name (its `framings`), else its default one. */
export function framingOf(format: FormatDefinition, name: string | undefined): StreamFraming {
  return (name === undefined ? undefined : format.framings?.[name]) ?? format.framing;
}

/** A registered format, or undefined. */
export function findFormat(id: string): FormatDefinition | undefined {
  return registered.get(id);
}

/** The codec of a registered format. */
export function getCodec(id: string): FormatCodec {
  return getFormat(id).codec;
}

/** Every registered format, built-in ones first. */
export function listFormats(): FormatDefinition[] {
  return [...registered.values()];
}

/** The ids of every registered format. */
export function wireFormatIds(): string[] {
  return [...registered.keys()];
}

const patterns = new WeakMap<FormatRoute, RegExp>();

/** A route pattern (`:name` one segment, `**` the rest, `**:name` the rest but never nothing) as a RegExp over request paths. */
function patternOf(route: FormatRoute): RegExp {
  let pattern = patterns.get(route);
  if (!pattern) {
    const source = route.path
      .split('/')
      .map((segment) => (segment === '**' ? '.*' : segment.startsWith('**:') ? '.+' : segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    pattern = new RegExp(`^${source}/?$`);
    patterns.set(route, pattern);
  }
  return pattern;
}

/**
 * The path routes of other formats whose patterns cover the whole of `route`'s (Gemini's `/v1/projects/**`
 * around Claude's `/v1/projects/:project/…/publishers/anthropic/models/**`): where a URL of `route`'s
 * pattern that its format does not read goes. Empty for most routes.
 */
export function routesAround(format: FormatDefinition, route: FormatRoute): FormatRoute[] {
  const out: FormatRoute[] = [];
  for (const other of registered.values()) {
    if (other.id === format.id) continue;
    for (const candidate of other.routes) if (candidate.from === 'path' && candidate.path !== route.path && patternOf(candidate).test(route.path)) out.push(candidate);
  }
  return out;
}

/** The format whose inbound route a request path is (`/v1/messages`, `/v1beta/models/x:generateContent`), or undefined. */
export function formatOfPath(pathname: string): FormatDefinition | undefined {
  for (const format of registered.values()) {
    for (const route of format.routes) if (route.path === pathname || patternOf(route).test(pathname)) return format;
  }
  return undefined;
}

/** The format whose SDKs alone ask under this path (FormatDefinition.clients.pathPrefixes), or undefined. */
function formatOfClientPath(pathname: string): FormatDefinition | undefined {
  for (const format of registered.values()) {
    if (format.clients?.pathPrefixes?.some((prefix) => pathname.startsWith(prefix))) return format;
  }
  return undefined;
}

/**
 * The format whose SDKs a request off the formats' own routes comes from (FormatDefinition.clients):
 * a path prefix only they use, else a header they always send, else (given the URL's `query`) its
 * key in a query parameter only that format reads (Gemini's `?key=`, Google's REST examples);
 * undefined for anyone else.
 */
export function formatOfClient(pathname: string, header: (name: string) => string | undefined, query?: URLSearchParams): FormatDefinition | undefined {
  const byPath = formatOfClientPath(pathname);
  if (byPath) return byPath;
  for (const format of registered.values()) {
    const names = format.clients?.header;
    if (names === undefined) continue;
    if ((typeof names === 'string' ? [names] : names).some((name) => header(name) !== undefined)) return format;
  }
  if (query === undefined || query.size === 0) return undefined;
  for (const format of registered.values()) if (format.credentials.some((source) => source.query !== undefined && query.has(source.query))) return format;
  return undefined;
}

/** True when a path is under a prefix only one format's SDKs use (an API path, never the dashboard's). */
export function isFormatClientPath(pathname: string): boolean {
  return formatOfClientPath(pathname) !== undefined;
}

/** Whether a path is one of a cloud's API (under one of CloudFace.paths: `/model` is `/model` and `/model/…`). */
export function isCloudPath(cloud: CloudFace, pathname: string): boolean {
  return cloud.paths.some((root) => pathname.startsWith(root) && (pathname.length === root.length || pathname[root.length] === '/'));
}

/**
 * The cloud of a format whose API a route pattern is on: every path the pattern holds is under one
 * of its paths (`/model/:model/invoke` is Bedrock Runtime's, `/:x/invoke` no cloud's); else undefined.
 * Its SDKs read the route's errors and request id as the cloud says (CloudFace.requestIdHeader, awsErrors).
 */
export function cloudOfRoute(format: FormatDefinition, pattern: string): CloudFace | undefined {
  if (!format.clouds) return undefined;
  const segments = pattern.split('/');
  const dynamic = segments.findIndex((segment) => segment.startsWith(':') || segment.startsWith('*'));
  const literal = dynamic === -1 ? pattern : segments.slice(0, dynamic).join('/');
  return format.clouds.find((cloud) => isCloudPath(cloud, literal));
}

/**
 * What to configure for a path of a cloud's API that another format serves, while no plugin has
 * registered that format (CloudFace.otherFormats: Converse with no bedrock provider); else undefined.
 */
export function missingFormatHint(method: string, pathname: string): string | undefined {
  for (const format of registered.values()) {
    for (const cloud of format.clouds ?? []) {
      const other = cloud.otherFormats?.find((o) => o.method === method && o.pattern.test(pathname) && !registered.has(o.format));
      if (other) return other.missing;
    }
  }
  return undefined;
}

/** The endpoints a batch may run: every route that reads its model from the body (a batch line's `url`). */
export function batchEndpoints(): string[] {
  return listFormats().flatMap((format) => format.routes.filter((route) => route.from === 'body').map((route) => route.path));
}

/** The format and route whose inbound path is `path` exactly (a route pattern, as the route table registers it). */
export function formatOfRoute(path: string): { format: FormatDefinition; route: FormatRoute } | undefined {
  for (const format of registered.values()) {
    const route = format.routes.find((r) => r.path === path);
    if (route) return { format, route };
  }
  return undefined;
}
