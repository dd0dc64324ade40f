import type { CallBody } from '../exchange/index.ts';
import { batchEndpoints, formatOfRoute } from '../formats/index.ts';
import { DEFAULT_MODERATION_MODEL } from '../media/index.ts';
import type { WireFormat } from '../ir/index.ts';

/** The wire format of a batch endpoint (a registered format's route). */
export function formatOfEndpoint(endpoint: string): WireFormat {
  const format = formatOfRoute(endpoint)?.format.id;
  if (format === undefined) throw new Error(`no wire format serves the batch endpoint ${endpoint}`);
  return format;
}

/**
 * A batch line's request as the exchange takes it, never streamed. A line's `body.model` names
 * its model whatever the format; a format that reads the model from its URL (Gemini, whose
 * batches run on its path-model route) gets it as the route target, and the body it sends is
 * the format's own, without that key.
 */
export function callBodyOfLine(endpoint: string, body: Record<string, unknown>): CallBody {
  const served = formatOfRoute(endpoint);
  if (served === undefined) throw new Error(`no wire format serves the batch endpoint ${endpoint}`);
  const format = served.format.id;
  if (served.route.from !== 'path') return { format, body: { ...body, stream: false } };
  const { model, ...rest } = body;
  return { format, target: { model: String(model), stream: false }, body: rest };
}

/** The embeddings endpoint: its lines are embeddings media calls, not chat exchanges. */
export const EMBEDDINGS_ENDPOINT = '/v1/embeddings';
/** The moderations endpoint: its lines are moderation media calls, `model` defaulting as on the route. */
export const MODERATIONS_ENDPOINT = '/v1/moderations';

/** Endpoints whose lines are media calls answered in OpenAI's shape, not chat exchanges. */
const MEDIA_ENDPOINTS: ReadonlySet<string> = new Set([EMBEDDINGS_ENDPOINT, MODERATIONS_ENDPOINT]);

/** True for a media endpoint (embeddings, moderations). */
export function isMediaEndpoint(endpoint: string): boolean {
  return MEDIA_ENDPOINTS.has(endpoint);
}

/** The model a line of `endpoint` without one asks for (OpenAI's default moderation model), if the endpoint has one. */
export function defaultModelOf(endpoint: string): string | undefined {
  return endpoint === MODERATIONS_ENDPOINT ? DEFAULT_MODERATION_MODEL : undefined;
}

/** Every endpoint a batch may run: each format's body-model route, embeddings and moderations. */
export function batchEndpointList(): string[] {
  return [...batchEndpoints(), ...MEDIA_ENDPOINTS];
}

/** The first of a line's own fallback models (OpenRouter's `models`, where the endpoint's format takes such a list), which stands for a `model` left out. */
export function firstListedModelOf(endpoint: string, body: Record<string, unknown>): string | undefined {
  const field = formatOfRoute(endpoint)?.format.passthrough.modelFallbacks;
  const list = field === undefined ? undefined : body[field];
  return Array.isArray(list) && typeof list[0] === 'string' && list[0] !== '' ? list[0] : undefined;
}
