import { hasMark } from '../util/index.ts';

/** The mark of an UpstreamHttpError from any copy of the plugin kit (see GatewayError's). */
const MARK = Symbol.for('gateway.upstream-http-error');

/**
 * Thrown by a plugin's calls, chat and media alike, when the upstream answers with a non-2xx
 * status (a chat call may also return the non-2xx response itself). The gateway maps it to the
 * spec's codes (429 → rate_limit_exceeded, 5xx → provider_error, …) with the call format's
 * error decoder, so plugins never pick gateway error codes themselves.
 */
export class UpstreamHttpError extends Error {
  /** Checks the mark, so an error from a plugin's own bundled copy of the kit counts. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== UpstreamHttpError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return isUpstreamHttpError(value);
  }

  readonly [MARK] = true;
  readonly status: number;
  /** The upstream body: parsed JSON when it was JSON, else the text. */
  readonly body: unknown;
  readonly headers: Record<string, string | string[] | undefined>;

  constructor(status: number, body: unknown, headers: Record<string, string | string[] | undefined> = {}) {
    super(`upstream answered ${status}`);
    this.name = 'UpstreamHttpError';
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

/** True for an UpstreamHttpError from any copy of the plugin kit (its mark, not the class). */
export function isUpstreamHttpError(value: unknown): value is UpstreamHttpError {
  return hasMark(value, MARK);
}
