import type { H3Event } from 'h3';
import type { WireFormat } from '../../ir/index.ts';

/** One route of the gateway: method, path, handler, and the format whose error shape its clients read. */
export interface RouteDef {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  path: string;
  handler: (event: H3Event) => unknown;
  /** The wire format whose error shape the route's clients read. */
  format?: WireFormat;
  /** The pattern also covers paths the gateway does not serve: it never makes another method a 405 there. */
  broad?: true;
  /** A response header its clients read the request id from, sent beside X-Request-ID and the format's own. */
  requestIdHeader?: string;
  /** Errors also carry the AWS SDKs' `x-amzn-errortype` and a top-level `message` (FormatRoute.awsErrors). */
  awsErrors?: true;
}
