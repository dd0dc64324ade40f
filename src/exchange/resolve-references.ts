import { GatewayError } from '../errors/index.ts';
import type { RouteTarget } from '../formats/index.ts';
import { storedItemPlace } from '../formats/index.ts';
import type { ChatRequest, WireFormat } from '../ir/index.ts';
import { decodeInbound } from '../pipeline/index.ts';
import type { AuthContext } from '../accounts/index.ts';
import type { ExchangeDeps } from './types.ts';

/** The body being resolved, with its text: replaced in place when references are resolved. */
export interface ReferencedBody {
  format: WireFormat;
  target?: RouteTarget;
  body: Record<string, unknown>;
  raw: string;
}

/** Stored responses one request may read to resolve its references (each read is one store get). */
const MAX_RESPONSES = 16;

type Item = Record<string, unknown>;

/**
 * `item_reference`s to items of responses the gateway stored (ids from `storedItemId`, which no
 * upstream can look up) are replaced by the stored items themselves, for the calling account
 * only, and the request is decoded again. Works for every route: a converted one then carries
 * the reasoning (and its signature) and calls; a Responses upstream gets items it can read.
 * Other references are left for the upstream (passthrough) or the pipeline's 422. The body with
 * the items in it is bounded as a body sent whole is (`server.bodyLimits.inference`), counted per
 * reference before it is built: a reference is a few dozen bytes, the item it names up to a whole
 * stored answer, and one item may be named any number of times.
 */
export async function resolveStoredReferences(deps: Pick<ExchangeDeps, 'store' | 'config'>, exchange: ReferencedBody, request: ChatRequest, auth: AuthContext): Promise<ChatRequest> {
  const ids = (request.unresolvedReferences ?? []).filter((id) => storedItemPlace(id) !== undefined);
  if (ids.length === 0) return request;
  const outputs = new Map<string, unknown[] | undefined>();
  for (const id of ids) {
    const { responseId } = storedItemPlace(id)!;
    if (outputs.has(responseId) || outputs.size >= MAX_RESPONSES) continue;
    const stored = await deps.store.responses.get(auth.account.id, responseId);
    const output = (stored?.response as { output?: unknown } | undefined)?.output;
    outputs.set(responseId, Array.isArray(output) ? output : undefined);
  }
  const body = exchange.body as { input?: unknown };
  if (!Array.isArray(body.input)) return request;
  const limit = deps.config.server.bodyLimits.inference;
  const sizes = new Map<string, number>();
  let size = exchange.raw.length;
  let changed = false;
  const input = body.input.map((item: unknown) => {
    const id = referenceId(item);
    const found = id === undefined ? undefined : storedItem(outputs, id);
    if (!found) return item;
    changed = true;
    let itemSize = sizes.get(id!);
    if (itemSize === undefined) sizes.set(id!, (itemSize = JSON.stringify(found).length));
    size += itemSize;
    if (size > limit) throw tooLarge(limit);
    return found;
  });
  if (!changed) return request;
  exchange.body = { ...body, input };
  exchange.raw = JSON.stringify(exchange.body);
  return decodeInbound(exchange);
}

function tooLarge(limit: number): GatewayError {
  return new GatewayError(
    'request_too_large',
    `The request with the stored items its item_references name would exceed the limit of ${limit} bytes for a request (server.bodyLimits.inference); name fewer, or send the items themselves.`,
    { details: { limit_bytes: limit } },
  );
}

function referenceId(item: unknown): string | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const { type, id } = item as Item;
  return type === 'item_reference' && typeof id === 'string' ? id : undefined;
}

/**
 * The stored item a reference names: by its id, else at its place when of the same kind (a
 * stream's items and the stored copy's are numbered alike but were named in separate passes).
 */
function storedItem(outputs: Map<string, unknown[] | undefined>, id: string): Item | undefined {
  const place = storedItemPlace(id)!;
  const output = outputs.get(place.responseId);
  if (!output) return undefined;
  const byId = output.find((item) => typeof item === 'object' && item !== null && (item as Item).id === id) as Item | undefined;
  if (byId) return byId;
  const atPlace = output[place.index] as Item | undefined;
  const kind = { msg: 'message', rs: 'reasoning', fc: 'function_call' }[id.slice(0, id.indexOf('_'))];
  return atPlace && typeof atPlace === 'object' && atPlace.type === kind ? { ...atPlace, id } : undefined;
}
