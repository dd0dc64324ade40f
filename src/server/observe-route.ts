import { formatOfRoute, listFormats } from '../formats/index.ts';
import type { WireFormat } from '../ir/index.ts';

/** A registered format's inbound route (the registry says which: a plugin's format is one too). */
function isInference(path: string): boolean {
  return formatOfRoute(path) !== undefined;
}

/** The GenAI operation of a route pattern (`gen_ai_operation_name`): chat, images, audio, embeddings, moderations, batch; '' for other routes. */
export function operationOfRoute(path: string): string {
  if (isInference(path)) return 'chat';
  if (path.startsWith('/v1/images/')) return 'images';
  if (path.startsWith('/v1/audio/')) return 'audio';
  if (path === '/v1/embeddings') return 'embeddings';
  if (path === '/v1/moderations') return 'moderations';
  if (path.startsWith('/v1/batches') || path.startsWith('/v1/messages/batches') || path.startsWith('/v1beta/batches')) return 'batch';
  return '';
}

/** The `api_format` label of a route: its wire format's id (a built-in one or a plugin's), the media kind, or ''. */
export function apiFormatOfRoute(path: string, format: WireFormat | undefined): string {
  if (format && isInference(path)) return format;
  const operation = operationOfRoute(path);
  return operation === 'chat' ? '' : operation;
}

/** The status a handler's result was sent with (a returned Response carries its own). */
export function statusOfResult(result: unknown, eventStatus: number | undefined): number {
  if (result instanceof Response) return result.status;
  return eventStatus ?? 200;
}

/** Routes whose 4xx answers leave a warn line (src/server/warn-client-error.ts): inference and its helpers. */
export function isInferenceRoute(path: string): boolean {
  return isInference(path) || listFormats().some((format) => format.countTokens?.path === path || format.countTokens?.wrapped?.path === path) || path === '/v1/embeddings' || path === '/v1/moderations';
}

/**
 * Operators' routes (admin procedures, the metrics scrape, health probes) and the dashboard's
 * page and files: in metrics, not in the request log or the live window (a balancer probing
 * `/health` every few seconds would fill the latest requests and the rates).
 */
export function isInternalRoute(path: string, metricsPath: string): boolean {
  return path.startsWith('/admin/') || path === metricsPath || path === '/health' || path === '/' || path === '/assets/**';
}

/**
 * The web dashboard's own API (`/api/**`: sign-in, sign-out and the account procedures it
 * polls): not client traffic, so the live figures count it apart (docs/observability.md).
 */
export function isDashboardRoute(path: string): boolean {
  return path.startsWith('/api/');
}
