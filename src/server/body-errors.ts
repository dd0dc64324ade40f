import { GatewayError } from '../errors/index.ts';

/** 413 naming the byte limit. */
export function tooLarge(limit: number): GatewayError {
  return new GatewayError('request_too_large', `The request body exceeds the limit of ${limit} bytes.`, { details: { limit_bytes: limit } });
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
