import { GatewayError, toGatewayError } from '../errors/index.ts';
import type { FormatCodec, StreamEncoder } from '../formats/types.ts';
import { getCodec } from '../formats/registry.ts';
import type { ChatRequest, StreamPart, Usage, WireFormat } from '../ir/types.ts';
import { mapTransportError } from '../plugin-kit/http-client.ts';
import { insertRoutingEvents, type FallbackInfo, type RoutingInfo } from '../routing/index.ts';
import { formatSse, parseSse, SseParser, type SseRecord } from '../sse/index.ts';
import type { RequestIds } from '../errors/index.ts';
import { RecordAligner } from './align-records.ts';
import type { UpstreamSuccess } from './call-upstream.ts';
import { estimateInputTokens, estimateTokens } from './estimate-usage.ts';
import { truncatedStream, watchStream } from './watch-stream.ts';

/** What a relayed stream reports when it ends. */
export interface StreamEnd {
  usage: Usage;
  estimated: boolean;
  aborted: boolean;
  responseId?: string;
  /** The upstream failure that ended the stream early (reported to the client as an error event). */
  failure?: GatewayError;
}

interface RelayOptions {
  upstream: UpstreamSuccess;
  /** The body to relay (default: the upstream's), e.g. with the peeked first record put back. */
  body?: AsyncIterable<Uint8Array>;
  providerId: string;
  upstreamFormat: WireFormat;
  clientFormat: WireFormat;
  request: ChatRequest;
  ids: RequestIds;
  clientSignal: AbortSignal;
  passthrough: boolean;
  stripUsageChunk: boolean;
  /** Reliability events to put before the content (spec §6.4), when the client wants them. */
  events?: { routing: RoutingInfo; fallback?: FallbackInfo };
  onEnd: (end: StreamEnd) => void;
  /** Parts seen by the relay (conversion only), e.g. to store a Responses result. */
  onPart?: (part: StreamPart) => void;
}

const EMPTY = Buffer.alloc(0);

function isUsageOnlyChunk(record: SseRecord): boolean {
  return record.data.startsWith('{') && record.data.includes('"choices":[]') && record.data.includes('"usage":{');
}

/** Thrown inside the relay loop to end the stream with a client-format error event. */
class StreamFailure extends Error {
  constructor(
    readonly failure: GatewayError,
    /** Output that precedes the failure in the same batch and still goes to the client. */
    readonly prefix = '',
  ) {
    super(failure.message);
  }
}

/**
 * Relays an upstream SSE body to the client. Same format: the bytes go through (re-cut at
 * record boundaries) and a tap reads usage. Different formats: records are decoded to IR
 * parts and encoded again. Every record is sanity-checked; a bad record, a cut stream or a
 * transport failure after the first byte becomes the client format's error event.
 */
export async function* relayStream(options: RelayOptions): AsyncGenerator<string | Uint8Array> {
  const { upstream, request, ids } = options;
  const clientCodec = getCodec(options.clientFormat);
  const parser = new SseParser();
  const watch = watchStream(options.upstreamFormat, options.providerId);
  const aligner = options.passthrough ? new RecordAligner() : undefined;
  const tap = options.passthrough ? getCodec(options.upstreamFormat).createUsageTap() : undefined;
  const decoder = options.passthrough ? undefined : getCodec(options.upstreamFormat).createStreamDecoder();
  const encoder = options.passthrough ? undefined : clientCodec.createStreamEncoder(request);
  let pendingEvents = options.events;
  let usage: Usage | undefined;
  let inputFromStart: number | undefined;
  let outputChars = 0;
  let responseId: string | undefined;
  let finished = false;
  let aborted = false;
  let failure: GatewayError | undefined;

  const encodeParts = (parts: StreamPart[]): string => {
    let out = '';
    for (const part of parts) {
      if (part.type === 'text-delta' || part.type === 'reasoning-delta' || part.type === 'refusal-delta') outputChars += part.text.length;
      else if (part.type === 'tool-call-delta') outputChars += part.argumentsDelta.length;
      else if (part.type === 'usage') usage = part.usage;
      else if (part.type === 'start') {
        responseId = part.id;
        inputFromStart = part.usage?.inputTokens;
      } else if (part.type === 'end') finished = true;
      options.onPart?.(part);
      out += encoder!.encode(part);
    }
    return out;
  };

  /** Routing events go in once, where the client's SDK tolerates them (see insertRoutingEvents). */
  const withEvents = (records: SseRecord[]): SseRecord[] | undefined => {
    if (!pendingEvents) return undefined;
    const out = insertRoutingEvents(options.clientFormat, records, pendingEvents.routing, pendingEvents.fallback);
    if (out) pendingEvents = undefined;
    return out;
  };

  const passRecords = (bytes: Buffer, records: SseRecord[]): string | Uint8Array => {
    let changed = false;
    let kept = records;
    for (let i = 0; i < records.length; i += 1) {
      const bad = watch.check(records[i]);
      tap!.push(records[i]);
      outputChars += 4; // one token per record: an estimate used only if usage never arrives
      if (bad) throw new StreamFailure(bad, records.slice(0, i).map(formatSse).join(''));
      if (options.stripUsageChunk && isUsageOnlyChunk(records[i])) changed = true;
    }
    if (changed) kept = records.filter((r) => !isUsageOnlyChunk(r));
    const injected = withEvents(kept);
    if (injected) return injected.map(formatSse).join('');
    return changed ? kept.map(formatSse).join('') : bytes;
  };

  const convertRecords = (records: SseRecord[]): string => {
    let out = '';
    for (const record of records) {
      const bad = watch.check(record);
      if (bad) throw new StreamFailure(bad, out);
      out += encodeParts(decoder!.push(record));
    }
    if (out && pendingEvents) {
      const injected = withEvents(parseSse(out));
      if (injected) out = injected.map(formatSse).join('');
    }
    return out;
  };

  try {
    for await (const chunk of options.body ?? upstream.response.body) {
      const records = parser.push(chunk);
      if (aligner) {
        const bytes = aligner.push(chunk);
        if (bytes.length === 0 && records.length === 0) continue;
        const out = passRecords(bytes, records);
        if (out.length > 0) yield out;
      } else {
        const out = convertRecords(records);
        if (out) yield out;
      }
    }
    const last = parser.end();
    if (aligner) {
      aligner.rest(); // a record without its blank line is re-sent whole below, never half
      if (last.length > 0) {
        const out = passRecords(EMPTY, last);
        yield typeof out === 'string' ? out : last.map(formatSse).join('');
      }
      if (!watch.finished) throw new StreamFailure(truncatedStream(options.providerId));
    } else {
      let out = convertRecords(last);
      out += encodeParts(decoder!.end());
      if (!finished) out += encodeParts([{ type: 'end' }]);
      if (out) yield out;
    }
    finished = true;
  } catch (error) {
    if (options.clientSignal.aborted) {
      aborted = true;
      return;
    }
    const relayFailure = error instanceof StreamFailure ? error : undefined;
    failure = relayFailure?.failure ?? (error instanceof GatewayError ? error : mapTransportError(error, upstream.signal));
    if (relayFailure?.prefix) yield relayFailure.prefix;
    yield streamError(clientCodec, encoder, failure, ids);
  } finally {
    if (!finished && options.clientSignal.aborted) aborted = true;
    upstream.done();
    if (!finished) upstream.response.abort?.();
    const tapped = tap?.info;
    const finalUsage = tapped?.usage ?? usage;
    options.onEnd({
      usage: finalUsage ?? {
        inputTokens: inputFromStart ?? estimateInputTokens(request),
        outputTokens: estimateTokens(outputChars),
      },
      estimated: !finalUsage,
      aborted,
      responseId: tapped?.id ?? responseId,
      failure,
    });
  }
}

function streamError(codec: FormatCodec, encoder: StreamEncoder | undefined, failure: GatewayError, ids: RequestIds): string {
  if (!encoder) return codec.encodeStreamError(toGatewayError(failure), ids);
  return encoder.encode({ type: 'error', error: { code: failure.code, message: failure.message, status: failure.status } });
}
