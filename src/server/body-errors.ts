import { GatewayError } from '../errors/index.ts';
import type { ByteLimit } from './byte-limit.ts';

/** 413 naming the byte limit and what sets it, so the operator knows which key to raise. */
export function tooLarge(limit: ByteLimit): GatewayError {
  return new GatewayError('request_too_large', `The request body exceeds the limit of ${limit.bytes} bytes (${limit.setting}).`, { details: { limit_bytes: limit.bytes } });
}

/**
 * The client went away before its body was read: a normal event (a cancelled upload), not a
 * failure of the gateway. Nobody is left to read the answer; the route wrapper logs it at debug.
 */
export class ClientClosedError extends GatewayError {
  constructor() {
    super('client_closed', 'The client closed the connection before the body was read.');
    this.name = 'ClientClosedError';
  }
}
