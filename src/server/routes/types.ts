import type { H3Event } from 'h3';
import type { CloudFace } from '../../formats/index.ts';
import type { WireFormat } from '../../ir/index.ts';

/** One route of the gateway: method, path, handler, and the format whose error shape its clients read. */
export interface RouteDef {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  path: string;
  handler: (event: H3Event) => unknown;
  /** The wire format whose error shape the route's clients read. */
  format?: WireFormat;
  /**
   * The route answers only its format's SDKs (a path prefix or header only they send, or its credential in the
   * query: FormatDefinition.clients, credentials); anyone else gets the other route on the same method and path,
   * or the unknown route's answer (Gemini's `GET /v1/files` for @google/genai 3, beside OpenAI's).
   */
  formatClientsOnly?: true;
  /** The pattern also covers paths the gateway does not serve: it never makes another method a 405 there. */
  broad?: true;
  /** The cloud whose API the route is on (cloudOfRoute): its request id header beside X-Request-ID and the format's own, its SDKs' error headers. */
  cloud?: CloudFace;
}
