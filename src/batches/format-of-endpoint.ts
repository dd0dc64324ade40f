import type { CallBody } from '../exchange/index.ts';
import { batchEndpoints, formatOfRoute } from '../formats/index.ts';
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

/** Every endpoint a batch may run: each format's body-model route, and embeddings. */
export function batchEndpointList(): string[] {
  return [...batchEndpoints(), EMBEDDINGS_ENDPOINT];
}
