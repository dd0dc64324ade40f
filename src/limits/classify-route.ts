import { formatOfPath } from '../formats/index.ts';
import type { EndpointLimit } from '../config/index.ts';

/** Strips the query string and trailing slashes so `/v1/models/` and `/v1/models?x` match `/v1/models`. */
export function normalizePath(path: string): string {
  // A route pattern (what the guards pass on every request) has nothing to strip: no regex.
  if (path.length > 1 && path.charCodeAt(path.length - 1) !== 47 /* / */ && path.indexOf('?') === -1 && path.indexOf('#') === -1) return path;
  const q = path.search(/[?#]/);
  const bare = q === -1 ? path : path.slice(0, q);
  const trimmed = bare.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

const HEALTH = /^\/(?:v1\/)?(?:health|healthz|livez|readyz|ready|live|ping)$/;
const MODEL_LIST = /^\/v1\/models(?:\/.+)?$/;
const BATCHES = /^\/v1\/(?:messages\/)?batches(?:\/.*)?$/;
const MEDIA_LIBRARY = /^\/v1\/media(?:\/.*)?$/;
const FILES = /^\/v1\/files(?:\/.*)?$/;

/**
 * Spec §8.1 exemptions: health checks, the model list, batch endpoints and collection
 * management (media library CRUD, listing/reading/deleting files). CORS preflights (OPTIONS)
 * are exempt too, so browsers' double requests never cost budget.
 */
export function isExemptRoute(method: string, path: string): boolean {
  let answers = exemptAnswers.get(method);
  if (answers === undefined) {
    if (exemptAnswers.size >= ANSWERS_KEPT) exemptAnswers.clear();
    answers = new Map();
    exemptAnswers.set(method, answers);
  }
  let exempt = answers.get(path);
  if (exempt === undefined) {
    exempt = exemptOf(method, path);
    if (answers.size >= ANSWERS_KEPT) answers.clear();
    answers.set(path, exempt);
  }
  return exempt;
}

/**
 * isExemptRoute's answers by method, then path: the guards ask it of the same few route
 * patterns on every request (five RegExp tests each before). Bounded: paths a client made up
 * (an unknown route's) only ever cost a clear.
 */
const exemptAnswers = new Map<string, Map<string, boolean>>();
const ANSWERS_KEPT = 256;

function exemptOf(method: string, path: string): boolean {
  const m = method.toUpperCase();
  const p = normalizePath(path);
  if (m === 'OPTIONS') return true;
  if (HEALTH.test(p)) return m === 'GET' || m === 'HEAD';
  if (MODEL_LIST.test(p)) return m === 'GET' || m === 'HEAD';
  if (BATCHES.test(p) || MEDIA_LIBRARY.test(p)) return true;
  if (FILES.test(p)) return m === 'GET' || m === 'HEAD' || m === 'DELETE';
  return false;
}

const GENERATION_PREFIX = /^\/v1\/(?:images|audio)\/.+$/;

/** AI-generation endpoints (where the tier limit applies): every wire format's routes (chat/completions, responses, messages, a plugin's), images/*, audio/*. */
export function isGenerationRoute(method: string, path: string): boolean {
  if (method.toUpperCase() !== 'POST') return false;
  const p = normalizePath(path);
  return GENERATION_PREFIX.test(p) || formatOfPath(p) !== undefined;
}

/** The configured endpoint limit for a route: an exact "METHOD /path" entry, else the longest matching "METHOD /prefix*". */
export function matchEndpointLimit(
  endpoints: Readonly<Record<string, EndpointLimit>>,
  method: string,
  path: string,
): { pattern: string; limit: EndpointLimit } | undefined {
  const route = `${method.toUpperCase()} ${normalizePath(path)}`;
  const exact = endpoints[route];
  if (exact) return { pattern: route, limit: exact };
  let best: { pattern: string; limit: EndpointLimit } | undefined;
  for (const [pattern, limit] of Object.entries(endpoints)) {
    if (!pattern.endsWith('*')) continue;
    const prefix = pattern.slice(0, -1);
    if (route.startsWith(prefix) && (!best || prefix.length > best.pattern.length - 1)) best = { pattern, limit };
  }
  return best;
}
