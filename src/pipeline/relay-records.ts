import { GatewayError, toGatewayError, type RequestIds } from '../errors/index.ts';
import type { FormatCodec, StreamDecoder, StreamEncoder, UsageTap } from '../formats/types.ts';
import { getCodec } from '../formats/registry.ts';
import type { ChatRequest, StreamPart, Usage, WireFormat } from '../ir/types.ts';
import { mapTransportError } from '../upstream/index.ts';
import { insertRoutingEvents, type FallbackInfo, type RoutingInfo } from '../routing/index.ts';
import { formatSse, parseSse, type SseRecord } from '../sse/index.ts';
import type { AbortWatch } from '../util/abort.ts';
import { containsSecret, hasSecrets, redactSecrets } from '../util/redact-secrets.ts';
import type { UpstreamSuccess } from './call-upstream.ts';
import { estimateInputTokens, estimateTokens } from './estimate-usage.ts';
import type { RecordReader } from './read-records.ts';
import { truncatedStream, watchStream, type StreamWatch } from './watch-stream.ts';

/** What a relayed stream reports when it ends. */
export interface StreamEnd {
  usage: Usage;
  estimated: boolean;
  aborted: boolean;
  responseId?: string;
  /** The upstream failure that ended the stream early (reported to the client as an error event). */
  failure?: GatewayError;
}

export interface RelayOptions {
  upstream: UpstreamSuccess;
  providerId: string;
  upstreamFormat: WireFormat;
  clientFormat: WireFormat;
  request: ChatRequest;
  ids: RequestIds;
  /** The client leaving (checked, never listened to). */
  client: AbortWatch;
  passthrough: boolean;
  stripUsageChunk: boolean;
  /** Reliability events to put before the content (spec §6.4), when the client wants them. */
  events?: { routing: RoutingInfo; fallback?: FallbackInfo };
  onEnd: (end: StreamEnd) => void;
  /** Parts seen by the relay (conversion only), e.g. to store a Responses result. */
  onPart?: (part: StreamPart) => void;
}

/** Output for the client: bytes passed through, or text the relay wrote. */
export type RelayOutput = string | Buffer;

const EMPTY = Buffer.alloc(0);

/** An upstream error record (any format): the only kind that may quote the gateway's upstream key back. */
function isErrorRecord(record: SseRecord): boolean {
  const event = record.event;
  return event === undefined ? record.data.includes('"error"') : event === 'error' || event === 'response.failed';
}

/** The record with any configured upstream key redacted, or undefined when it holds none. */
function redactedRecord(record: SseRecord): SseRecord | undefined {
  if (!isErrorRecord(record) || !containsSecret(record.data)) return undefined;
  return { event: record.event, data: redactSecrets(record.data) };
}

function isUsageOnlyChunk(record: SseRecord): boolean {
  const data = record.data;
  return data.charCodeAt(0) === 123 /* { */ && data.includes('"usage":{') && data.includes('"choices":[]');
}

/** Thrown inside a step to end the stream with a client-format error event. */
class StreamFailure extends Error {
  constructor(
    readonly failure: GatewayError,
    /** Output that precedes the failure in the same step and still goes to the client. */
    readonly prefix: RelayOutput = '',
  ) {
    super(failure.message);
  }
}

function join(a: RelayOutput | undefined, b: RelayOutput | undefined): RelayOutput | undefined {
  if (!a || a.length === 0) return b;
  if (!b || b.length === 0) return a;
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  return Buffer.concat([typeof a === 'string' ? Buffer.from(a) : a, typeof b === 'string' ? Buffer.from(b) : b]);
}

/**
 * The record work of a stream relay, transport-free and synchronous: upstream chunks in,
 * client output out. Same format: the bytes go through (re-cut at record boundaries) and a
 * tap reads usage. Different formats: records are decoded to IR parts and encoded again.
 * Every record is sanity-checked; a bad record, a cut stream or a transport failure after the
 * first byte becomes the client format's error event. `done` says the relay is over (the
 * driver stops the upstream); `onEnd` runs exactly once.
 */
export class RecordRelay {
  /** True once the relay is over: nothing more is read or written. */
  done = false;
  private readonly watch: StreamWatch;
  private readonly clientCodec: FormatCodec;
  private readonly tap: UsageTap | undefined;
  private readonly decoder: StreamDecoder | undefined;
  private readonly encoder: StreamEncoder | undefined;
  private pendingEvents: RelayOptions['events'];
  private usage: Usage | undefined;
  private inputFromStart: number | undefined;
  private outputChars = 0;
  private responseId: string | undefined;
  private finished = false;
  private aborted = false;
  private failure: GatewayError | undefined;

  constructor(
    private readonly options: RelayOptions,
    private readonly reader: RecordReader,
  ) {
    this.clientCodec = getCodec(options.clientFormat);
    this.watch = watchStream(options.upstreamFormat, options.providerId, { finishReasons: options.passthrough });
    this.pendingEvents = options.events;
    if (options.passthrough) this.tap = getCodec(options.upstreamFormat).createUsageTap();
    else {
      this.decoder = getCodec(options.upstreamFormat).createStreamDecoder();
      this.encoder = this.clientCodec.createStreamEncoder(options.request);
    }
  }

  /** True once the upstream's last record went by: only the end of its body may follow. */
  get complete(): boolean {
    return this.watch.complete;
  }

  /** Output for whole records already cut (the peeked head). */
  start(bytes: Buffer, records: SseRecord[]): RelayOutput | undefined {
    return this.step(() => this.process(bytes, records));
  }

  /** Output for one upstream chunk. */
  push(chunk: Buffer): RelayOutput | undefined {
    if (this.done) return undefined;
    return this.step(() => {
      const bytes = this.reader.push(chunk);
      if (bytes.length === 0 && this.reader.records.length === 0) return undefined;
      return this.process(bytes, this.reader.records);
    });
  }

  /** The upstream ended: the last records, and an error event if the stream was cut short. */
  end(): RelayOutput | undefined {
    if (this.done) return undefined;
    let out: RelayOutput | undefined;
    const result = this.step(() => {
      const last = this.reader.end();
      if (this.tap) {
        if (last.length > 0) {
          // A record without its blank line is re-sent whole, never half.
          const passed = this.process(EMPTY, last);
          out = typeof passed === 'string' ? passed : last.map(formatSse).join('');
        }
        if (!this.watch.finished) throw new StreamFailure(truncatedStream(this.options.providerId), out);
        return out;
      }
      out = this.convert(last);
      out += this.encodeParts(this.decoder!.end());
      if (!this.finished) out += this.encodeParts([{ type: 'end' }]);
      return out;
    });
    if (!this.done) {
      this.finished = true;
      this.finish();
    }
    return result;
  }

  /** The upstream failed (transport error, timeout, abort). */
  fail(error: unknown): RelayOutput | undefined {
    if (this.done) return undefined;
    return this.failWith(error);
  }

  /** The client stopped reading before the end. */
  close(): void {
    if (this.done) return;
    this.finish();
  }

  private step(work: () => RelayOutput | undefined): RelayOutput | undefined {
    try {
      return work();
    } catch (error) {
      return this.failWith(error);
    }
  }

  private failWith(error: unknown): RelayOutput | undefined {
    const { options } = this;
    if (options.client.aborted) {
      this.aborted = true;
      this.finish();
      return undefined;
    }
    const relayFailure = error instanceof StreamFailure ? error : undefined;
    const failure = relayFailure?.failure ?? (error instanceof GatewayError ? error : mapTransportError(error, options.upstream.signal));
    this.failure = failure;
    const event = this.encoder
      ? this.encoder.encode({ type: 'error', error: { code: failure.code, message: failure.message, status: failure.status } })
      : this.clientCodec.encodeStreamError(toGatewayError(failure), options.ids);
    this.finish();
    return join(relayFailure?.prefix, event);
  }

  private finish(): void {
    this.done = true;
    const { options } = this;
    if (!this.finished && options.client.aborted) this.aborted = true;
    options.upstream.done();
    if (!this.finished) options.upstream.response.abort?.();
    const tapped = this.tap?.info;
    const finalUsage = tapped?.usage ?? this.usage;
    options.onEnd({
      usage: finalUsage ?? {
        inputTokens: this.inputFromStart ?? estimateInputTokens(options.request),
        outputTokens: estimateTokens(this.outputChars),
      },
      estimated: !finalUsage,
      aborted: this.aborted,
      responseId: tapped?.id ?? this.responseId,
      failure: this.failure,
    });
  }

  private process(bytes: Buffer, records: SseRecord[]): RelayOutput | undefined {
    if (this.tap) return this.pass(bytes, records);
    const out = this.convert(records);
    return out.length > 0 ? out : undefined;
  }

  /** Routing events go in once, where the client's SDK tolerates them (see insertRoutingEvents). */
  private withEvents(records: SseRecord[]): SseRecord[] | undefined {
    const pending = this.pendingEvents;
    if (!pending) return undefined;
    const out = insertRoutingEvents(this.options.clientFormat, records, pending.routing, pending.fallback);
    if (out) this.pendingEvents = undefined;
    return out;
  }

  private pass(bytes: Buffer, records: SseRecord[]): RelayOutput {
    const strip = this.options.stripUsageChunk;
    let changed = false;
    let redacted: SseRecord[] | undefined;
    for (let i = 0; i < records.length; i += 1) {
      const record = records[i];
      const bad = this.watch.check(record);
      this.tap!.push(record);
      this.outputChars += 4; // one token per record: an estimate used only if usage never arrives
      if (bad) throw new StreamFailure(bad, records.slice(0, i).map(formatSse).join(''));
      if (strip && isUsageOnlyChunk(record)) changed = true;
      const clean = hasSecrets() ? redactedRecord(record) : undefined;
      if (clean) (redacted ??= records.slice())[i] = clean;
    }
    if (redacted) {
      records = redacted;
      changed = true;
    }
    const kept = changed ? records.filter((r) => !isUsageOnlyChunk(r)) : records;
    const injected = this.withEvents(kept);
    if (injected) return injected.map(formatSse).join('');
    return changed ? kept.map(formatSse).join('') : bytes;
  }

  private convert(records: SseRecord[]): string {
    let out = '';
    for (const record of records) {
      const bad = this.watch.check(record);
      if (bad) throw new StreamFailure(bad, out);
      out += this.encodeParts(this.decoder!.push(record));
    }
    if (out && this.pendingEvents) {
      const injected = this.withEvents(parseSse(out));
      if (injected) out = injected.map(formatSse).join('');
    }
    return out;
  }

  private encodeParts(parts: StreamPart[]): string {
    let out = '';
    for (const part of parts) {
      if (part.type === 'text-delta' || part.type === 'reasoning-delta' || part.type === 'refusal-delta') this.outputChars += part.text.length;
      else if (part.type === 'tool-call-delta') this.outputChars += part.argumentsDelta.length;
      else if (part.type === 'usage') this.usage = part.usage;
      else if (part.type === 'start') {
        this.responseId = part.id;
        this.inputFromStart = part.usage?.inputTokens;
      } else if (part.type === 'end') this.finished = true;
      this.options.onPart?.(part);
      out += this.encoder!.encode(part);
    }
    return out;
  }
}
