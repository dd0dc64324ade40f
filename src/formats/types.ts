import type { ChatRequest, ChatResponse, RoutingEvent, StreamPart, Usage, WireFormat } from '../ir/types.ts';
import type { SseRecord } from '../sse/parse-sse.ts';
import type { GatewayError, RequestIds } from '../errors/index.ts';

/** Options an encoder of an upstream request gets from the pipeline. */
export interface EncodeRequestOptions {
  /** The model id as the upstream knows it (without the `provider/` prefix). */
  upstreamModel: string;
  /** Default max tokens for formats that require one (Messages). */
  defaultMaxTokens?: number;
  /**
   * Messages upstreams: place prompt-cache breakpoints (system/tools, last stable turn) on a
   * request converted from another format (docs/formats.md, prompt caching). Ignored elsewhere.
   */
  autoCache?: boolean;
}

/** Decodes an upstream stream incrementally: SSE records in, IR stream parts out. */
export interface StreamDecoder {
  push(record: SseRecord): StreamPart[];
  /** The upstream closed; returns what is still pending (e.g. a finish with no usage). */
  end(): StreamPart[];
}

/** Encodes IR stream parts into SSE records for a client of this format (the relay frames them). */
export interface StreamEncoder {
  /** The records for this part (possibly none: parts may be held back). */
  encode(part: StreamPart): SseRecord[];
}

/** What an upstream error body or error record says, whatever its format (classifyUpstreamError reads it). */
export interface DecodedUpstreamError {
  message: string;
  type?: string;
  code?: string;
}

/** Identity and usage read from a same-format (passthrough) response without converting it. */
export interface PassthroughInfo {
  id?: string;
  model?: string;
  usage?: Usage;
  /** The upstream's own finish reason (whole responses; for traces). */
  finishReason?: string;
}

/** Reads usage out of a passthrough stream, record by record. */
export interface UsageTap {
  push(record: SseRecord): void;
  readonly info: PassthroughInfo;
}

/** Everything the pipeline needs from one wire format. One implementation per folder. */
export interface FormatCodec {
  readonly format: WireFormat;
  /** The inbound body → IR; throws GatewayError (400/422) on an invalid body. */
  decodeRequest(body: unknown): ChatRequest;
  /** IR → the body to send upstream in this format. */
  encodeRequest(request: ChatRequest, options: EncodeRequestOptions): Record<string, unknown>;
  /** An upstream response body of this format → IR. */
  decodeResponse(body: unknown): ChatResponse;
  /** IR → a response body for a client of this format. */
  encodeResponse(response: ChatResponse, request: ChatRequest): Record<string, unknown>;
  createStreamDecoder(): StreamDecoder;
  createStreamEncoder(request: ChatRequest): StreamEncoder;
  /** Reads an upstream error body of this format. */
  decodeError(status: number, body: unknown): DecodedUpstreamError;
  /** Reads an upstream stream record of this format that reports an error; undefined for any other record. */
  decodeStreamError(record: SseRecord): DecodedUpstreamError | undefined;
  /** The error body for a client of this format: the spec envelope plus native fields. */
  encodeError(error: GatewayError, ids: RequestIds): Record<string, unknown>;
  /** The record that reports an error after a stream has started (a stream this codec's encoder did not produce). */
  encodeStreamError(error: GatewayError, ids: RequestIds): SseRecord;
  /**
   * The client stream's records with the gateway's routing events put where this format's SDKs
   * tolerate them; undefined while the place has not come yet (try again with the next records).
   */
  insertRoutingEvents(records: readonly SseRecord[], events: readonly RoutingEvent[]): SseRecord[] | undefined;
  /** Reads id/model/usage from a same-format JSON response. */
  readPassthroughResponse(body: unknown): PassthroughInfo;
  createUsageTap(): UsageTap;
}
