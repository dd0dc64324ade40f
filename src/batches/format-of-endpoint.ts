import { batchEndpoints, formatOfRoute } from '../formats/index.ts';
import type { WireFormat } from '../ir/index.ts';

/** The wire format of a batch endpoint (a registered format's route). */
export function formatOfEndpoint(endpoint: string): WireFormat {
  const format = formatOfRoute(endpoint)?.format.id;
  if (format === undefined) throw new Error(`no wire format serves the batch endpoint ${endpoint}`);
  return format;
}

/** The embeddings endpoint: its lines are embeddings media calls, not chat exchanges. */
export const EMBEDDINGS_ENDPOINT = '/v1/embeddings';

/** Every endpoint a batch may run: each format's body-model route, and embeddings. */
export function batchEndpointList(): string[] {
  return [...batchEndpoints(), EMBEDDINGS_ENDPOINT];
}
