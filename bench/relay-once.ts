import type { PeekedStream } from '../src/pipeline/peek-stream.ts';
import type { RelayOptions } from '../src/pipeline/relay-records.ts';
import type { relayStream as RelayStream } from '../src/pipeline/relay-stream.ts';
import type { StreamTarget } from '../src/pipeline/types.ts';
import type { RecordReader as Reader } from '../src/sse/index.ts';
import type { WireFormat } from '../src/ir/types.ts';

/** The relay and the record reader a driver runs: this checkout's, or another's (relay-ab.ts imports them from there). */
export interface RelayModules {
  relayStream: typeof RelayStream;
  RecordReader: typeof Reader;
}

export interface RelayRun {
  /** The upstream's chunks: the first is the peeked head, the rest arrive one by one. */
  events: Buffer[];
  upstreamFormat?: WireFormat;
  clientFormat: WireFormat;
  /** The client's request as IR (a conversion encodes with it). */
  request: unknown;
  upstream: RelayOptions['upstream'];
  client: RelayOptions['client'];
  stripUsageChunk: boolean;
  target: StreamTarget;
}

/** One streamed answer through the relay of the relay benches, as a function: no sockets, the target takes every write. */
export function relayOnce({ relayStream, RecordReader }: RelayModules, run: RelayRun): () => void {
  const { events, clientFormat } = run;
  return () => {
    const reader = new RecordReader();
    const bytes = reader.push(events[0]);
    let handler: { data(chunk: Buffer): void; end(): void } | undefined;
    const source = { resume: (h: typeof handler) => (handler = h), pause() {}, destroy() {} };
    const peeked = { head: { bytes, records: reader.records }, reader, source, ended: false } as unknown as PeekedStream;
    const options = {
      upstream: run.upstream,
      providerId: 'bench',
      upstreamFormat: run.upstreamFormat ?? 'chat',
      clientFormat,
      request: run.request,
      ids: { requestId: 'req_1', correlationId: 'req_1' },
      client: run.client,
      passthrough: clientFormat === (run.upstreamFormat ?? 'chat'),
      stripUsageChunk: run.stripUsageChunk,
      onEnd: () => undefined,
    } as RelayOptions;
    relayStream(options, peeked).pushTo(run.target);
    for (let i = 1; i < events.length; i += 1) handler!.data(events[i]);
    handler!.end();
  };
}
