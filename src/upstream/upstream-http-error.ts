/**
 * Thrown by a plugin's media calls when the upstream answers with a non-2xx status. The
 * gateway maps it to the spec's codes (429 → rate_limit_exceeded, 5xx → provider_error, …)
 * the same way it maps chat errors, so plugins never pick gateway error codes themselves.
 */
export class UpstreamHttpError extends Error {
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
