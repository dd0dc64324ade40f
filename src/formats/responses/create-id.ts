import { randomBytes } from 'node:crypto';
import type { ProviderMetadata } from '../../ir/index.ts';
import { readToolId, toolIdForClient } from '../shared/index.ts';

/** A fresh Responses-style id: `msg_…`, `fc_…`, `rs_…`, `resp_…`. */
export function createItemId(prefix: 'msg' | 'fc' | 'rs' | 'resp' | 'ig'): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

/**
 * The `resp_…` id a Responses client sees for an IR response id. Deterministic, so the
 * pipeline can store a response under the same id the client will send as previous_response_id.
 */
export function responseIdFor(id: string): string {
  if (id.startsWith('resp_')) return id;
  const clean = id.replace(/[^A-Za-z0-9_-]/g, '');
  return clean.length > 0 ? `resp_${clean}` : createItemId('resp');
}

/** An `fc_…` item id for a call that has none; derived from the call id so re-encoding is stable. */
export function functionCallItemIdFor(callId: string): string {
  if (callId.startsWith('fc_')) return callId;
  const clean = callId.replace(/[^A-Za-z0-9_-]/g, '');
  return clean.length > 0 ? `fc_${clean}` : createItemId('fc');
}

/**
 * A reasoning item id the gateway made up (`rs_gw…`). OpenAI's ids are `rs_` + hex, so the two
 * never collide, and a made-up id is never sent to OpenAI as if it could be looked up.
 */
export function createReasoningItemId(): string {
  return `rs_gw${randomBytes(12).toString('hex')}`;
}

/** True for a reasoning id from {@link createReasoningItemId}. */
export function isGatewayReasoningId(id: string): boolean {
  return id.startsWith('rs_gw');
}

const MINTED_RESPONSE = /^resp_([0-9a-f]{48})$/;
const STORED_ITEM = /^(?:msg|rs|fc)_gw([0-9a-f]{48})o(\d{1,5})$/;

/**
 * The id of output item `index` of a response the gateway minted the id of (and so may have
 * stored): `msg_gw<hex>o<index>`, `rs_gw…`, `fc_gw…`. An `item_reference` to it names the stored
 * response and the item's place there (see {@link storedItemPlace}); undefined for other ids.
 */
export function storedItemId(prefix: 'msg' | 'rs' | 'fc', responseId: string | undefined, index: number): string | undefined {
  const minted = responseId === undefined ? undefined : MINTED_RESPONSE.exec(responseId);
  return minted ? `${prefix}_gw${minted[1]}o${index}` : undefined;
}

/** The stored response and output index an id from {@link storedItemId} points at. */
export function storedItemPlace(itemId: string): { responseId: string; index: number } | undefined {
  const match = STORED_ITEM.exec(itemId);
  return match ? { responseId: `resp_${match[1]}`, index: Number(match[2]) } : undefined;
}

/**
 * The id of an `image_generation_call` item for an image the model made: `ig_…`, and when the
 * image has provider metadata (a Gemini 3 image model's thought signature) `ig_` + the carried
 * id (shared/carry-opaque.ts), since the id is what every client sends back with the item.
 */
export function imageItemId(metadata: ProviderMetadata | undefined): string {
  const id = createItemId('ig');
  const carried = toolIdForClient(id, metadata);
  return carried === id ? id : `ig_${carried}`;
}

/** The provider metadata an image item's id carries (see imageItemId), if any. */
export function metadataOfImageItemId(id: unknown): ProviderMetadata | undefined {
  return typeof id === 'string' && id.startsWith('ig_') ? readToolId(id.slice(3)).providerMetadata : undefined;
}
