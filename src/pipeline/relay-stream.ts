import { GatewayError, toGatewayError } from '../errors/index.ts';
import { getCodec } from '../formats/registry.ts';
import type { ChatRequest, StreamPart, Usage, WireFormat } from '../ir/types.ts';
import { mapTransportError } from '../plugin-kit/http-client.ts';
import { formatSse, SseParser, type SseRecord } from '../sse/index.ts';
import type { RequestIds } from '../errors/index.ts';
import type { UpstreamSuccess } from './call-upstream.ts';
import { estimateInputTokens, estimateTokens } from './estimate-usage.ts';

/** What a relayed stream reports when it ends. */
export interface StreamEnd {
  usage: Usage;
  estimated: boolean;
  aborted: boolean;
  responseId?: string;
}

interface RelayOptions {
  upstream: UpstreamSuccess;
  upstreamFormat: WireFormat;
  clientFormat: WireFormat;
  request: ChatRequest;
  ids: RequestIds;
  clientSignal: AbortSignal;
  passthrough: boolean;
  stripUsageChunk: boolean;
  onEnd: (end: StreamEnd) => void;
  /** Parts seen by the relay (conversion only), e.g. to store a Responses result. */
  onPart?: (part: StreamPart) => void;
}

function isUsageOnlyChunk(record: SseRecord): boolean {
  return record.data.startsWith('{') && record.data.includes('"choices":[]') && record.data.includes('"usage":{');
}

/**
 * Relays an upstream SSE body to the client. Same format: the bytes go through and a tap
 * reads usage. Different formats: records are decoded to IR parts and encoded again.
 * A failure after the first byte becomes the client format's error event.
 */
export async function* relayStream(options: RelayOptions): AsyncGenerator<string | Uint8Array> {
  const { upstream, request, ids } = options;
  const clientCodec = getCodec(options.clientFormat);
  const parser = new SseParser();
  const tap = options.passthrough ? getCodec(options.upstreamFormat).createUsageTap() : undefined;
  const decoder = options.passthrough ? undefined : getCodec(options.upstreamFormat).createStreamDecoder();
  const encoder = options.passthrough ? undefined : clientCodec.createStreamEncoder(request);
  let usage: Usage | undefined;
  let inputFromStart: number | undefined;
  let outputChars = 0;
  let responseId: string | undefined;
  let finished = false;
  let aborted = false;

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

  try {
    for await (const chunk of upstream.response.body) {
      const records = parser.push(chunk);
      if (tap) {
        let dropped = false;
        for (const record of records) {
          tap.push(record);
          outputChars += 4; // one token per record: an estimate used only if usage never arrives
          if (options.stripUsageChunk && isUsageOnlyChunk(record)) dropped = true;
        }
        if (!dropped) yield chunk;
        else yield records.filter((r) => !isUsageOnlyChunk(r)).map(formatSse).join('');
      } else {
        let out = '';
        for (const record of records) out += encodeParts(decoder!.push(record));
        if (out) yield out;
      }
    }
    if (tap) for (const record of parser.end()) tap.push(record);
    else {
      let out = '';
      for (const record of parser.end()) out += encodeParts(decoder!.push(record));
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
    const failure = error instanceof GatewayError ? error : mapTransportError(error, upstream.signal);
    yield encoder ? encoder.encode({ type: 'error', error: { code: failure.code, message: failure.message, status: failure.status } }) : clientCodec.encodeStreamError(toGatewayError(failure), ids);
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
    });
  }
}
