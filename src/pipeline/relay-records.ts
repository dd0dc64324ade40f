import { GatewayError, toGatewayError, type RequestIds, isGatewayError } from '../errors/index.ts';
import { framingOf, getFormat, type FormatCodec, type FrameReader, type FrameWriter, type PassthroughRules, type RewriteContext, type StreamDecoder, type StreamEncoder, type UsageTap, type WireRecord as SseRecord } from '../formats/index.ts';
import type { ChatRequest, RoutingEvent, StreamPart, Usage, WireFormat } from '../ir/index.ts';
import { classifyUpstreamError, isUpstreamHttpError, mapTransportError, upstreamError } from '../upstream/index.ts';
import type { AbortWatch } from '../util/index.ts';
import type { UpstreamSuccess } from './call-upstream.ts';
import { StopCutter } from './emulate-stop.ts';
import { estimateInputTokens, estimateTokens } from './estimate-usage.ts';
import { restoreToolName, type ToolNames } from './fit-tool-names.ts';
import { changedRecords, markedRecords, rewritePassedRecords, type RecordChanges } from './pass-records.ts';
import { truncatedStream, watchStream, type StreamWatch } from './watch-stream.ts';

/** What a relayed stream reports when it ends. */
export interface StreamEnd {
  usage: Usage;
  estimated: boolean;
  aborted: boolean;
  responseId?: string;
  /** The finish reason of a converted stream (its `finish` part); a passthrough's records are not read for it. */
  finishReason?: string;
  /** The upstream failure that ended the stream early (reported to the client as an error event). */
  failure?: GatewayError;
  /**
   * The error code of the error record the upstream itself ended its stream with, relayed as it
   * came or converted (a refusal after the first byte: a context overflow, an overload).
   */
  upstreamError?: string;
}

export interface RelayOptions {
  upstream: UpstreamSuccess;
  providerId: string;
  upstreamFormat: WireFormat;
  clientFormat: WireFormat;
  /** The client's stream framing by name (RouteTarget.framing), when its format has several. */
  clientFraming?: string;
  /** The client's request as IR: needed to encode a converted stream (a passthrough never decodes it). */
  request?: ChatRequest;
  /** Input tokens estimated from the request, for an upstream that never reports usage; absent: from `request`. */
  inputEstimate?: number;
  ids: RequestIds;
  /** The client leaving (checked, never listened to). */
  client: AbortWatch;
  passthrough: boolean;
  stripUsageChunk: boolean;
  /** Tool names the upstream got in place of the client's (a conversion): mapped back on the way out. */
  toolNames?: ToolNames;
  /** Stop sequences the upstream could not take (a conversion): the answer is cut at them on the way out. */
  stop?: string[];
  /** Reliability events to put into the stream (spec §6.4), when the client wants them. */
  events?: RoutingEvent[];
  /**
   * Told once what the stream used: as soon as the upstream's last record went by (before
   * the client's last bytes are written, so billing is recorded first), or when the stream
   * ends early (failure, client gone).
   */
  onEnd: (end: StreamEnd) => void;
  /** The id the client sees for the response (a stored Responses answer): replaces the upstream's. */
  responseId?: string;
  /** The stored response the request followed: a passed answer names it (RewriteContext.previousResponseId). */
  previousResponseId?: string;
  /** The conversation the request named: a passed answer names it (RewriteContext.conversationId). */
  conversationId?: string;
  /**
   * The part tap: sees the response as IR parts while it streams, e.g. to store a Responses
   * result. A passthrough decodes its records for it (only when it is set).
   */
  onPart?: (part: StreamPart) => boolean | void;
  /**
   * The part tap could not read a passthrough's records (its decoder failed): the tap stops, the
   * bytes still go through. Without it the tap is handed an `error` part instead.
   */
  onTapFailed?: (error: unknown) => void;
}

/**
 * A RangeError is the gateway's own limit (a string or buffer past what V8 can hold while a
 * converted answer is re-encoded), not the upstream's fault: not retryable, so it never opens
 * the upstream's circuit.
 */
function tooLargeToRelay(error: RangeError): GatewayError {
  return new GatewayError('internal_error', 'The answer grew past what the gateway can convert between formats; ask for a shorter answer or use the upstream\'s own format.', { cause: error });
}

/** Output for the client: bytes passed through, or what the relay framed (text, or bytes in a binary framing). */
export type RelayOutput = string | Buffer;

const EMPTY = Buffer.alloc(0);

/** Two pieces of output as one (a stream's last records and its closing, e.g. a JSON array's `]`). */
function joined(a: RelayOutput | undefined, b: RelayOutput): RelayOutput | undefined {
  if (b.length === 0) return a;
  if (a === undefined || a.length === 0) return b;
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  return Buffer.concat([typeof a === 'string' ? Buffer.from(a) : a, typeof b === 'string' ? Buffer.from(b) : b]);
}

/** Thrown inside a step to end the stream with a client-format error event. */
class StreamFailure extends Error {
  constructor(
    readonly failure: GatewayError,
    /** Records that precede the failure in the same step and still go to the client. */
    readonly before: SseRecord[],
  ) {
    super(failure.message);
  }
}

/**
 * The record work of a stream relay, transport-free and synchronous: upstream chunks in,
 * client output out. Same format: the bytes go through (re-cut at record boundaries) and a
 * tap reads usage. Different formats: records are decoded to IR parts and encoded into the
 * client's records. One writer frames whatever the relay itself sends (converted records,
 * routing events, error events). Every upstream record is sanity-checked; a bad record, a cut
 * stream or a transport failure after the first byte becomes the client format's error event.
 * `done` says the relay is over (the driver stops the upstream); `onEnd` runs exactly once.
 */
export class RecordRelay {
  /** True once the relay is over: nothing more is read or written. */
  done = false;
  private readonly watch: StreamWatch;
  private readonly clientCodec: FormatCodec;
  /** Frames what the relay sends in the client format's framing (SSE, a JSON array, binary frames…). */
  private readonly writer: FrameWriter;
  /** The client's framing is not the upstream's (StreamFraming.clientOnly): passed records are framed again, never their bytes sent. */
  private readonly reframe: boolean;
  private readonly rules: PassthroughRules;
  private readonly rewriteContext: RewriteContext;
  private readonly tap: UsageTap | undefined;
  /** Decodes upstream records into parts: to convert them, or for the part tap of a passthrough (dropped when the tap stops). */
  private decoder: StreamDecoder | undefined;
  /** The part tap, until it says it wants no more parts. */
  private onPart: ((part: StreamPart) => boolean | void) | undefined;
  private readonly encoder: StreamEncoder | undefined;
  private readonly stopCutter: StopCutter | undefined;
  private pendingEvents: RoutingEvent[] | undefined;
  private usage: Usage | undefined;
  private inputFromStart: number | undefined;
  private outputChars = 0;
  private responseId: string | undefined;
  private finishReason: string | undefined;
  private finished = false;
  /** onEnd was called (at the upstream's last record, or at the end). */
  private reported = false;
  private aborted = false;
  private failure: GatewayError | undefined;
  /** A converted stream's error part (the upstream's own error record, decoded). */
  private errorPart: string | undefined;
  /** The record before the last of a passthrough's last chunk, whose finish the watch was not asked (`pass`). */
  private beforeLast: SseRecord | undefined;

  constructor(
    private readonly options: RelayOptions,
    private readonly reader: FrameReader,
  ) {
    const clientFormat = getFormat(options.clientFormat);
    this.clientCodec = clientFormat.codec;
    const framing = framingOf(clientFormat, options.clientFraming);
    this.writer = framing.createWriter();
    this.reframe = framing.clientOnly === true;
    this.rules = clientFormat.passthrough;
    this.rewriteContext = { dropUsageRecords: options.stripUsageChunk, responseId: options.responseId, previousResponseId: options.previousResponseId, conversationId: options.conversationId };
    // Only a passthrough reads where the answer finished from the watch (a cut stream); a conversion's decoder tells it.
    this.watch = watchStream(options.upstreamFormat, options.providerId, options.passthrough);
    this.pendingEvents = options.events;
    this.onPart = options.onPart;
    const upstreamCodec = getFormat(options.upstreamFormat).codec;
    if (options.passthrough) {
      this.tap = upstreamCodec.createUsageTap();
      if (options.onPart) this.decoder = upstreamCodec.createStreamDecoder();
    } else {
      this.decoder = upstreamCodec.createStreamDecoder();
      if (!options.request) throw new Error('A converted stream needs the client request as IR.');
      this.encoder = this.clientCodec.createStreamEncoder(options.request, options.ids);
      if (options.stop) this.stopCutter = new StopCutter(options.stop);
    }
  }

  /** Once done: what the client's framing sends apart after the end (FrameWriter.apart), if anything. */
  apart(): string | undefined {
    return this.writer.apart?.();
  }

  /** True once the upstream's last record went by: only the end of its body may follow. */
  get complete(): boolean {
    return this.watch.complete;
  }

  /** Output for whole records already cut (the peeked head). */
  start(bytes: Buffer, records: SseRecord[]): RelayOutput | undefined {
    try {
      return this.process(bytes, records);
    } catch (error) {
      return this.failWith(error);
    }
  }

  /** Output for one upstream chunk. */
  push(chunk: Buffer): RelayOutput | undefined {
    if (this.done) return undefined;
    try {
      const bytes = this.reader.push(chunk);
      if (bytes.length === 0 && this.reader.records.length === 0) return undefined;
      return this.process(bytes, this.reader.records);
    } catch (error) {
      return this.failWith(error);
    }
  }

  /** The upstream ended: the last records, and an error event if the stream was cut short. */
  end(): RelayOutput | undefined {
    if (this.done) return undefined;
    let out: RelayOutput | undefined;
    try {
      out = this.tap ? this.endPassthrough() : this.endConversion();
    } catch (error) {
      return this.failWith(error);
    }
    this.finished = true;
    this.finish();
    return out;
  }

  /** The upstream failed (transport error, timeout, abort). */
  fail(error: unknown): RelayOutput | undefined {
    if (this.done) return undefined;
    return this.failWith(error);
  }

  /** The client stopped reading before the end (its target closed: whatever the host, it went away). */
  close(): void {
    if (this.done) return;
    if (!this.finished) this.aborted = true;
    this.finish();
  }

  private endPassthrough(): RelayOutput | undefined {
    const last = this.reader.end();
    // A record without its blank line is re-sent whole, never half.
    let out = last.length > 0 ? this.pass(EMPTY, last, true) : undefined;
    if (this.decoder) this.tapRecord(undefined);
    if (!this.watch.finished) throw new StreamFailure(truncatedStream(this.options.providerId), last);
    // The format's last word the upstream left out (a Responses `error` with no `response.failed`), with the ids the client saw.
    const closing = this.clientCodec.finishPassthrough?.(this.tap!);
    if (closing) out = joined(out, this.frame(changedRecords(closing, rewritePassedRecords(closing, this.rules, this.rewriteContext))));
    return joined(out, this.writer.end());
  }

  /** What still goes to the client before an error event: a passthrough's records as it would have sent them. */
  private recordsBefore(failure: StreamFailure | undefined): SseRecord[] {
    if (!failure) return [];
    if (!this.tap) return failure.before.slice();
    const before = failure.before;
    const changes = rewritePassedRecords(before, this.rules, { dropUsageRecords: this.options.stripUsageChunk });
    return changes ? changedRecords(before, changes) : before.slice();
  }

  private endConversion(): RelayOutput | undefined {
    const out: SseRecord[] = [];
    this.convert(this.reader.end(), out);
    this.encodeParts(this.decoder!.end(), out);
    if (!this.finished) this.encodeParts([{ type: 'end' }], out);
    return joined(this.frame(out), this.writer.end());
  }

  private failWith(error: unknown): RelayOutput | undefined {
    const { options } = this;
    if (options.client.aborted) {
      this.aborted = true;
      this.finish();
      return undefined;
    }
    const relayFailure = error instanceof StreamFailure ? error : undefined;
    const failure = relayFailure?.failure ?? (isGatewayError(error) ? error : error instanceof RangeError ? tooLargeToRelay(error) : isUpstreamHttpError(error) ? this.answeredError(error) : mapTransportError(error, options.upstream.watch));
    this.failure = failure;
    const records = this.recordsBefore(relayFailure);
    if (this.encoder) {
      const status = failure.details?.upstream_status;
      const part: StreamPart = { type: 'error', error: { code: failure.code, message: failure.message, status: failure.status, ...(typeof status === 'number' ? { upstreamStatus: status } : {}) } };
      for (const record of this.encoder.encode(part)) records.push(record);
    } else if (this.clientCodec.encodeStreamFailure) {
      for (const record of this.clientCodec.encodeStreamFailure(toGatewayError(failure), options.ids, this.tap)) records.push(record);
    } else records.push(this.clientCodec.encodeStreamError(toGatewayError(failure), options.ids, this.tap));
    this.finish();
    return joined(this.frame(records), this.writer.end());
  }

  /**
   * The upstream's body broke on an error answer (a plugin's stream that made a further call and
   * got a non-2xx, its UpstreamHttpError): classified as any error answer, its status kept
   * (`details.upstream_status`, a Bedrock client's `originalStatusCode`), not a cut connection.
   */
  private answeredError(error: { status: number; body: unknown; headers: Record<string, string | string[] | undefined> }): GatewayError {
    const said = getFormat(this.options.upstreamFormat).codec.decodeError(error.status, error.body);
    return upstreamError(this.options.providerId, { ...said, status: error.status, headers: error.headers, phase: 'mid-stream' });
  }

  private finish(): void {
    this.done = true;
    const { options } = this;
    if (!this.finished && options.client.aborted) this.aborted = true;
    options.upstream.done();
    if (!this.finished) options.upstream.response.abort?.();
    this.report();
  }

  /** Calls onEnd once, with what the stream used. */
  private report(): void {
    if (this.reported) return;
    this.reported = true;
    const { options } = this;
    const tapped = this.tap?.info;
    const reported = tapped?.usage ?? this.usage;
    const upstreamError = this.failure ? undefined : (this.errorPart ?? this.passedError());
    const estimatedOutput = estimateTokens(this.outputChars);
    let usage = reported;
    if (!usage) {
      const inputTokens = this.inputFromStart ?? options.inputEstimate ?? (options.request ? estimateInputTokens(options.request) : 0);
      usage = { inputTokens, outputTokens: estimatedOutput };
    } else if (estimatedOutput > usage.outputTokens && (this.aborted || this.failure !== undefined || upstreamError !== undefined || (this.tap !== undefined && !this.watch.finished))) {
      // Cut short, its usage is the last the upstream reported before the end (Anthropic's
      // message_start says 1 output token): at least what was relayed is billed.
      usage = { ...usage, outputTokens: estimatedOutput };
    }
    options.onEnd({
      usage,
      estimated: usage !== reported,
      aborted: this.aborted,
      responseId: this.answerId(tapped?.id),
      // A conversion's from its decoded parts; a passthrough's as the upstream said it (its tap).
      finishReason: this.finishReason ?? tapped?.finishReason,
      failure: this.failure,
      upstreamError,
    });
  }

  /**
   * The answer's id as the client saw it: the gateway's own when it named the answer (a passthrough's
   * records are tapped before that rewrite), a passthrough's as it came, a converted one's as its encoder wrote it.
   */
  private answerId(tapped: string | undefined): string | undefined {
    const own = this.options.responseId;
    if (own !== undefined || tapped !== undefined) return own ?? tapped;
    const id = this.responseId;
    return id ? (this.clientCodec.answerId?.(id) ?? id) : undefined;
  }

  /** The code of an error record a passthrough ended with: the record that ended the answer, read once. */
  private passedError(): string | undefined {
    if (!this.tap) return undefined;
    const { ending } = this.watch;
    const said = (ending && this.clientCodec.decodeStreamError(ending)) || (this.beforeLast && this.clientCodec.decodeStreamError(this.beforeLast));
    return said ? classifyUpstreamError({ ...said, phase: 'mid-stream' }) : undefined;
  }

  private process(bytes: Buffer, records: SseRecord[]): RelayOutput | undefined {
    let out: RelayOutput | undefined;
    if (this.tap) out = this.pass(bytes, records, this.reframe);
    else {
      const converted: SseRecord[] = [];
      this.convert(records, converted);
      out = converted.length > 0 ? this.frame(converted) : undefined;
    }
    // The upstream's last record went by: the usage is final, so it is reported before the
    // client's last bytes go out (whatever the upstream does with its body afterwards).
    if (this.watch.complete) this.report();
    return out;
  }

  /** Frames records for the client, with the routing events once their place has come. */
  private frame(records: SseRecord[]): RelayOutput {
    if (records.length === 0) return '';
    const pending = this.pendingEvents;
    if (pending) {
      const withEvents = this.clientCodec.insertRoutingEvents(records, pending);
      if (withEvents) {
        this.pendingEvents = undefined;
        return this.writer.write(withEvents);
      }
    }
    return this.writer.write(records);
  }

  /** Same format: checks and taps every record; the bytes go on unless a record had to change. */
  private pass(bytes: Buffer, records: SseRecord[], reframe: boolean): RelayOutput {
    // A chunk that ends with the upstream's last record (a burst) says there that the answer
    // finished: its other records are not searched for a finish (a search of each chunk less).
    const finishes = records.length < 2 || !this.watch.completes(records[records.length - 1]);
    if (!finishes) this.beforeLast = records[records.length - 2];
    const ends = records.length > 1 && this.rules.marker !== undefined ? this.reader.recordEnds?.() : undefined;
    // A burst is searched once for what only a few of its records hold (Chat's usage chunk), not each record.
    const marked = markedRecords(bytes, records.length, ends, this.rules);
    for (let i = 0; i < records.length; i += 1) {
      const record = records[i];
      const bad = this.watch.check(record, finishes);
      this.tap!.push(record, marked?.[i]);
      this.outputChars += 4; // one token per record: an estimate used only if usage never arrives
      if (bad) throw new StreamFailure(bad, records.slice(0, i));
      if (this.decoder) this.tapRecord(record);
    }
    const changes = rewritePassedRecords(records, this.rules, this.rewriteContext, reframe ? undefined : bytes, marked);
    if (!reframe && !this.pendingEvents) {
      if (!changes) {
        this.writer.passed(records.length);
        return bytes;
      }
      // One record changed alone is framed again, as before: no other record's bytes to keep.
      const spliced = records.length > 1 ? this.splice(bytes, records.length, changes, ends ?? this.reader.recordEnds?.()) : undefined;
      if (spliced) return spliced;
    }
    return this.frame(changedRecords(records, changes));
  }

  /**
   * The chunk's bytes with the changed records alone framed again (a dropped record left out):
   * every other record goes on as it came, e.g. a burst whose usage chunk the client did not ask
   * for. Undefined when the reader cannot say where its records end in these bytes (`ends`): it
   * tells the ends in its last push's bytes, and the peeked head can be more (a comment-only block
   * the upstream sent before its first records, as OpenRouter does): the last record must end
   * where the bytes do.
   */
  private splice(bytes: Buffer, count: number, changes: RecordChanges, ends: number[] | undefined): Buffer | undefined {
    if (!ends || ends.length !== count || ends[count - 1] !== bytes.length) return undefined;
    const pieces: Buffer[] = [];
    let from = 0;
    let passed = 0;
    for (let i = 0; i < count; i += 1) {
      const change = changes[i];
      if (change === undefined) {
        passed += 1;
        continue;
      }
      const start = i === 0 ? 0 : ends[i - 1];
      if (start > from) pieces.push(bytes.subarray(from, start));
      this.writer.passed(passed);
      passed = 0;
      if (change !== null) {
        const framed = this.writer.write([change]);
        pieces.push(typeof framed === 'string' ? Buffer.from(framed) : framed);
      }
      from = ends[i];
    }
    this.writer.passed(passed);
    if (from < bytes.length) pieces.push(bytes.subarray(from));
    return pieces.length === 1 ? pieces[0] : Buffer.concat(pieces);
  }

  /**
   * A passthrough's part tap (`undefined`: the upstream ended). The tap only keeps a copy: when it
   * wants no more parts, or its decoding fails (an answer past what a string can hold), it stops
   * and its decoder's memory goes; the bytes still go through and nothing counts against the upstream.
   */
  private tapRecord(record: SseRecord | undefined): void {
    let parts: StreamPart[];
    try {
      parts = record ? this.decoder!.push(record) : this.decoder!.end();
    } catch (error) {
      if (this.options.onTapFailed) this.options.onTapFailed(error);
      else this.onPart?.({ type: 'error', error: { code: 'internal_error', message: `The answer could not be read for the part tap: ${String(error)}`, status: 500 } });
      this.stopTap();
      return;
    }
    for (const part of parts) {
      if (this.onPart?.(part) === false) return this.stopTap();
    }
  }

  private stopTap(): void {
    this.onPart = undefined;
    if (this.tap) this.decoder = undefined;
  }

  /** Different formats: upstream records → IR parts → the client's records, into `out`. */
  private convert(records: SseRecord[], out: SseRecord[]): void {
    const decoder = this.decoder!;
    for (let i = 0; i < records.length; i += 1) {
      const record = records[i];
      const bad = this.watch.check(record);
      if (bad) throw new StreamFailure(bad, out);
      this.encodeParts(decoder.push(record), out);
    }
  }

  private encodeParts(decoded: StreamPart[], out: SseRecord[]): void {
    const encoder = this.encoder!;
    const parts = this.stopCutter ? decoded.flatMap((part) => this.stopCutter!.push(part)) : decoded;
    for (let i = 0; i < parts.length; i += 1) {
      let part = parts[i];
      // Read once: parts come in many shapes, so each read of `type` is a megamorphic lookup.
      const type = part.type;
      if (type === 'text-delta' || type === 'reasoning-delta' || type === 'refusal-delta') this.outputChars += part.text.length;
      else if (type === 'tool-call-delta') this.outputChars += part.argumentsDelta.length;
      else if (type === 'usage') this.usage = part.usage;
      else if (type === 'start') {
        if (this.options.responseId !== undefined) part = { ...part, id: this.options.responseId };
        // Some formats' streams do not name the model (Bedrock Converse): the client sees the one it asked for.
        if (!part.model) part = { ...part, model: this.options.request?.model ?? '' };
        this.responseId = part.id;
        this.inputFromStart = part.usage?.inputTokens;
      } else if (type === 'end') this.finished = true;
      else if (type === 'finish') this.finishReason = part.finishReason;
      else if (type === 'tool-call-start' && this.options.toolNames) part = restoreToolName(part, this.options.toolNames);
      else if (type === 'error') this.errorPart = part.error.code;
      if (this.onPart?.(part) === false) this.onPart = undefined;
      const records = encoder.encode(part);
      for (let j = 0; j < records.length; j += 1) out.push(records[j]);
    }
  }
}
