import { formatOfRoute } from '../formats/index.ts';
import type { WireFormat } from '../ir/index.ts';

/** The wire format of a batch endpoint (a registered format's route). */
export function formatOfEndpoint(endpoint: string): WireFormat {
  const format = formatOfRoute(endpoint)?.format.id;
  if (format === undefined) throw new Error(`no wire format serves the batch endpoint ${endpoint}`);
  return format;
}
