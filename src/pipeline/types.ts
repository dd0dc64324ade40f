import type { RequestIds } from '../errors/index.ts';
import type { RouteTarget } from '../formats/index.ts';
import type { AbortWatch } from '../util/index.ts';
import type { ChatRequest, ChatResponse, StreamPart, Usage, WireFormat } from '../ir/index.ts';
import type { CatalogModel } from '../providers/index.ts';
import type { FallbackInfo, RoutingInfo } from '../routing/index.ts';
import type { AttemptObserver } from '../observability/index.ts';
import type { InboundRequest } from './inbound.ts';

/** One inbound chat-like request, as the HTTP layer hands it to the pipeline. */
export interface ChatExchange {
  format: WireFormat;
  /** The model and stream flag read from the URL, for a route whose format carries them in the path. */
  target?: RouteTarget;
  /** The body text as received (forwarded as is when formats match). */
  raw: string;
  body: Record<string, unknown>;
  /** Client headers worth forwarding upstream (anthropic-beta, …). */
  forwardHeaders: Record<string, string>;
  /** The client's `X-Session-Id` header, a sticky-routing session key (routing.sticky). */
  sessionId?: string;
  /** Fires when the client goes away. */
  readonly signal: AbortSignal;
  /** The same as `signal`, cheaper to watch (its AbortSignal is made only if read). */
  client?: AbortWatch;
  ids: RequestIds;
  /** The client's `X-Gateway-Events` header: asks for routing events in streams (docs/routing.md). */
  gatewayEvents?: string;
  /** Wants the answer as IR (e.g. to store a Responses result), read from what the relay already decoded. */
  capture?: ResponseCapture;
  /**
   * The id the client sees for the response, minted by the gateway (a stored Responses answer
   * is kept under it): replaces the upstream's id, in a passthrough too.
   */
  responseId?: string;
  /** The stored response the request followed (`previous_response_id`): the answer names it, in a passthrough too (the upstream got the history instead). */
  previousResponseId?: string;
  /** The conversation the request named (`conversation`): the answer names it, in a passthrough too. */
  conversationId?: string;
  /**
   * Told what the exchange used, synchronously, before the answer's last bytes are written
   * (the usage ledger line is recorded first); `ChatOutcome.settled` resolves with the same.
   */
  onSettled?: (settlement: Settlement) => void;
  /** Told about every upstream attempt (metrics, traces). */
  attempts?: AttemptObserver;
  /** A `POST /v1/responses/compact` body (ExchangeCall.compact). */
  compact?: boolean;
}

/** The part tap of an exchange: what was answered, as IR, without reading the client's bytes again. */
export interface ResponseCapture {
  /** A whole (non-streamed) answer. */
  response(response: ChatResponse): void;
  /** One part of a streamed answer, in order; a complete one ends with `finish`, …, `end`. False: no more parts wanted (the copy was dropped). */
  part(part: StreamPart): boolean | void;
  /** The upstream's answer (whole, or a passthrough stream's records for the part tap) could not be read as IR. */
  unreadable(error: unknown): void;
}

/** What was metered once an exchange ended (stream finished, failed or client gone). */
export interface Settlement {
  model: CatalogModel;
  usage: Usage;
  /** True when the upstream never reported usage and it was estimated from text length. */
  estimated: boolean;
  /** True when the client went away before the end. */
  aborted: boolean;
  /** The response id sent to the client. */
  responseId?: string;
  /** How the request was routed (mode, resolved model, attempts). */
  routing?: RoutingInfo;
  /** Set when a fallback served: billing takes `discount` (a fraction) off the cost. */
  fallback?: FallbackInfo;
  /** The error code of a stream that failed after its first byte, or of a whole answer that failed but reported what it used. */
  error?: string;
  /** The upstream's finish reason, when known (whole responses, converted streams). */
  finishReason?: string;
  /** The model the upstream says answered, when known. */
  responseModel?: string;
  /** The answer was streamed (told by the exchange, from its record). */
  streamed?: boolean;
  /** Epoch ms the request arrived (its record's), for the ledger line's latency. */
  arrivedAt?: number;
}

/** Headers that describe how a request was routed (spec §6.4). */
export type RoutingHeaders = Record<string, string>;

/** Where a relayed stream is pushed: the HTTP layer's response. */
export interface StreamTarget {
  /** Writes a chunk; false asks for a pause until `onDrain`. */
  write(chunk: string | Uint8Array): boolean;
  /**
   * Ends the response, with its last chunk when there is one (one write for both). `apart`: bytes
   * a client reads only from a network chunk of their own (FrameWriter.apart), written after the
   * rest has gone out, with the end.
   */
  end(chunk?: string | Uint8Array, apart?: string): void;
  /** Calls `listener` once when the target takes writes again. */
  onDrain(listener: () => void): void;
  /** Calls `listener` once if the client goes away before the end. */
  onClose(listener: () => void): void;
  /** The stream's terminal record is being written: hold writes so the end goes out with it. */
  hold?(): void;
  /**
   * Cuts the response without its end (the answer's records could not be written): the client
   * sees a broken stream, never a whole answer. Absent: the end is sent without what was held.
   */
  abort?(): void;
}

/** A relayed stream: iterate it, or push it into a target with no promise per chunk (one or the other). */
export interface RelayedStream extends AsyncIterable<string | Uint8Array> {
  pushTo(target: StreamTarget): void;
}

export interface ChatOutcome {
  status: number;
  headers: Record<string, string>;
  /** Exactly one of json / stream is set. */
  json?: string;
  stream?: RelayedStream;
  /** Resolves when the exchange is over; never rejects. */
  settled: Promise<Settlement>;
  /** The request: its facts, and its IR if anything decoded it. */
  request: InboundRequest;
  model: CatalogModel;
  routing?: RoutingInfo;
  fallback?: FallbackInfo;
  /** What was changed to fit the serving model (`X-Gateway-Adapted`). */
  adapted?: string[];
  /** Hosted tools left out because the serving upstream cannot run them (`X-Gateway-Dropped-Tools`). */
  droppedTools?: string[];
  /**
   * The client asked for OpenRouter's usage accounting (`usage: {include: true}`): the exchange
   * adds what it charged to the answer's usage (`usage.cost`) once it is settled, in the client's
   * format and stream framing. Absent: the answer goes as it is.
   */
  reportCost?: { format: WireFormat; framing?: string };
}
