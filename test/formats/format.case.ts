/**
 * The conformance suite every registered wire format runs (hono's `*.case.test.ts`): the cases
 * plugin authors run too (`formatCases` from `gateway/plugin-kit/testing`, src/plugin-kit/format-cases.ts:
 * round trips, streams cut at several split sizes, byte-exact passthrough framing, terminal
 * record, error bodies, usage tap, conversion into and from every other registered format),
 * then the same stream through the gateway's own relay and stream watch. A new format passes it
 * before anything else (docs/adding-a-format.md).
 */
import { describe, expect, it } from 'vitest';
import type { FormatDefinition } from '../../src/formats/index.ts';
import { watchStream } from '../../src/pipeline/watch-stream.ts';
import { RecordRelay, type RelayOptions, type StreamEnd } from '../../src/pipeline/relay-records.ts';
import { CASE_PARTS, encodeCaseStream, formatCases } from '../../src/plugin-kit/format-cases.ts';
import { FastAbortController, watchOf } from '../../src/util/abort.ts';

export { decodeStream, readStream } from '../../src/plugin-kit/format-cases.ts';

const IDS = { requestId: 'req_case', correlationId: 'req_case' };
const USAGE_OUT = CASE_PARTS.flatMap((p) => (p.type === 'usage' ? [p.usage.outputTokens] : []))[0];

/**
 * The client's bytes of a same-format stream relayed from `bytes` fed `split` bytes at a time
 * (0: all at once, as one upstream read), and what the relay reported at its end.
 */
export function passThrough(format: FormatDefinition, bytes: Buffer, split: number): { out: Buffer; end: StreamEnd | undefined } {
  let end: StreamEnd | undefined;
  const upstream = { response: { status: 200, headers: {}, body: undefined, abort() {} }, done() {}, abort() {}, watch: new FastAbortController() } as unknown as RelayOptions['upstream'];
  const relay = new RecordRelay(
    {
      upstream,
      providerId: 'p',
      upstreamFormat: format.id,
      clientFormat: format.id,
      ids: IDS,
      client: watchOf(new AbortController().signal),
      passthrough: true,
      stripUsageChunk: false,
      onEnd: (reported) => (end = reported),
    },
    format.framing.createReader(),
  );
  const out: Buffer[] = [];
  const take = (piece: string | Buffer | undefined) => {
    if (piece !== undefined && piece.length > 0) out.push(typeof piece === 'string' ? Buffer.from(piece) : Buffer.from(piece));
  };
  const size = split > 0 ? split : bytes.length;
  // Each piece is a fresh copy, as a socket delivers it (nothing shares the encoder's buffer).
  for (let at = 0; at < bytes.length && !relay.done; at += size) take(relay.push(Buffer.from(bytes.subarray(at, at + size))));
  take(relay.end());
  return { out: Buffer.concat(out), end };
}

/** Runs the conformance suite for one registered format. */
export function describeFormatCase(format: FormatDefinition): void {
  describe(`wire format '${format.id}' (${format.title})`, () => {
    for (const c of formatCases(format)) it(c.name, c.run);

    it("passes its stream through the gateway's relay byte-exact at every split, usage tapped", () => {
      const { bytes } = encodeCaseStream(format);
      // Every cut up to 64 bytes lands inside each multi-byte character at every offset.
      for (const split of [0, ...Array.from({ length: 64 }, (_, i) => i + 1), 100, 257, 1000]) {
        const { out, end } = passThrough(format, bytes, split);
        expect(out.equals(bytes), `cut every ${split || 'all'} bytes`).toBe(true);
        expect(end).toMatchObject({ aborted: false, estimated: false, usage: { outputTokens: USAGE_OUT } });
        expect(end?.failure).toBeUndefined();
      }
    });

    it("tells the end of a stream from a cut one through the gateway's stream watch", () => {
      const { records } = encodeCaseStream(format);
      const whole = watchStream(format.id, 'p');
      for (const record of records) expect(whole.check(record)).toBeUndefined();
      expect(whole.finished).toBe(true);
      const cut = watchStream(format.id, 'p');
      for (const record of records.slice(0, 2)) cut.check(record);
      expect(cut.finished).toBe(false);
    });
  });
}
