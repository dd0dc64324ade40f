import { randomBytes } from 'node:crypto';

/** A fresh Responses-style id: `msg_…`, `fc_…`, `rs_…`, `resp_…`. */
export function createItemId(prefix: 'msg' | 'fc' | 'rs' | 'resp'): string {
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
