/**
 * The conformance suite every registered wire format runs (hono's `*.case.test.ts`): request and
 * response round trips through the IR, streams framed and cut at several split sizes, the same
 * stream converted into every other registered format, error bodies, the passthrough usage tap
 * and terminal-record detection. A new format passes it before anything else (docs/adding-a-format.md).
 */
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/errors/index.ts';
import { listFormats, type FormatDefinition, type RouteTarget, type WireRecord } from '../../src/formats/index.ts';
import type { ChatRequest, ChatResponse, StreamPart } from '../../src/ir/types.ts';
import { watchStream } from '../../src/pipeline/watch-stream.ts';
import { RecordRelay, type RelayOptions, type StreamEnd } from '../../src/pipeline/relay-records.ts';
import { FastAbortController, watchOf } from '../../src/util/abort.ts';
import { STREAM_IDS } from './stream-helpers.ts';

const SPLITS = [1, 7, 64, 0];
const IDS = { requestId: 'req_case', correlationId: 'req_case' };
const USAGE = { inputTokens: 12, outputTokens: 5 };
const PIECES = ['Héllo', ' wörld', ' 👋', '!'];

const REQUEST: ChatRequest = {
  model: 'up-model',
  system: [{ type: 'text', text: 'Be brief.' }],
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'Say hello.' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'Hello?' }] },
    { role: 'user', content: [{ type: 'text', text: 'Again, louder.' }] },
  ],
  stream: true,
  // A passthrough upstream is always asked for usage (Chat's include_usage): streams carry it.
  includeUsage: true,
  maxTokens: 64,
};

const RESPONSE: ChatResponse = { id: 'resp_case1', model: 'up-model', created: 1_700_000_000, content: [{ type: 'text', text: PIECES.join('') }], finishReason: 'stop', usage: USAGE };

const PARTS: StreamPart[] = [
  { type: 'start', id: 'resp_case1', model: 'up-model', created: 1_700_000_000, usage: { inputTokens: USAGE.inputTokens } },
  { type: 'text-start' },
  ...PIECES.map((text): StreamPart => ({ type: 'text-delta', text })),
  { type: 'text-end' },
  { type: 'finish', finishReason: 'stop' },
  { type: 'usage', usage: USAGE },
  { type: 'end' },
];

/** What a route of the format reads from the URL (path formats), for decodeRequest. */
function targetOf(format: FormatDefinition, stream: boolean): RouteTarget | undefined {
  return format.routes.some((route) => route.from === 'path') ? { model: 'up-model', stream } : undefined;
}

function textOf(parts: StreamPart[]): string {
  return parts.map((p) => (p.type === 'text-delta' ? p.text : '')).join('');
}

/** The format's wire bytes for the IR stream: its encoder's records, framed by its writer. */
function encodeStream(format: FormatDefinition, parts: StreamPart[]): { records: WireRecord[]; bytes: Buffer } {
  const encoder = format.codec.createStreamEncoder(REQUEST, STREAM_IDS);
  const records = parts.flatMap((part) => encoder.encode(part));
  const writer = format.framing.createWriter();
  const out = [writer.write(records), writer.end()].map((piece) => (typeof piece === 'string' ? Buffer.from(piece) : piece));
  return { records, bytes: Buffer.concat(out) };
}

/** Bytes → records through the format's reader, fed `split` bytes at a time (0: all at once). */
export function readStream(format: FormatDefinition, bytes: Buffer, split: number): WireRecord[] {
  const reader = format.framing.createReader();
  const out: WireRecord[] = [];
  const size = split > 0 ? split : bytes.length || 1;
  for (let at = 0; at < bytes.length; at += size) {
    reader.push(bytes.subarray(at, at + size));
    out.push(...reader.records);
  }
  out.push(...reader.end());
  return out;
}

export function decodeStream(format: FormatDefinition, records: WireRecord[]): StreamPart[] {
  const decoder = format.codec.createStreamDecoder();
  return [...records.flatMap((record) => decoder.push(record)), ...decoder.end()];
}

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
  const codec = format.codec;
  describe(`wire format '${format.id}' (${format.title})`, () => {
    it('has routes, a framing and a codec that says its id', () => {
      expect(codec.format).toBe(format.id);
      expect(format.routes.length).toBeGreaterThan(0);
      expect(format.framing.contentType).toMatch(/\//);
    });

    it('decodes what it encodes: a request through the IR', () => {
      const body = codec.encodeRequest(REQUEST, { upstreamModel: 'up-model', defaultMaxTokens: 64 });
      const back = codec.decodeRequest(body, targetOf(format, true));
      expect(back.model).toBe('up-model');
      expect(back.stream).toBe(true);
      if (format.singlePrompt) {
        // One prompt text (legacy Completions): the conversation is a transcript in one user turn, every text in order.
        expect(back.messages.map((m) => m.role)).toEqual(['user']);
        const text = back.messages[0].content.map((p) => (p.type === 'text' ? p.text : '')).join('');
        expect(text).toMatch(/Be brief\.[^]*Say hello\.[^]*Hello\?[^]*Again, louder\./);
        return;
      }
      expect(back.system.map((p) => p.text).join('')).toBe('Be brief.');
      expect(back.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
      expect(back.messages.at(-1)!.content).toEqual([expect.objectContaining({ type: 'text', text: 'Again, louder.' })]);
    });

    it('decodes what it encodes: a whole response, and reads it as a passthrough', () => {
      const body = codec.encodeResponse(RESPONSE, REQUEST);
      const back = codec.decodeResponse(body);
      expect(back.content.filter((p) => p.type === 'text')).toEqual([expect.objectContaining({ text: PIECES.join('') })]);
      expect(back.finishReason).toBe('stop');
      expect(back.usage).toMatchObject({ inputTokens: USAGE.inputTokens, outputTokens: USAGE.outputTokens });
      expect(codec.readPassthroughResponse(body).usage).toMatchObject({ inputTokens: USAGE.inputTokens, outputTokens: USAGE.outputTokens });
    });

    for (const split of SPLITS) {
      it(`frames a stream and reads it back cut every ${split || 'all'} bytes, text and end intact`, () => {
        const { records, bytes } = encodeStream(format, PARTS);
        const read = readStream(format, bytes, split);
        expect(read.map((r) => [r.event, r.data])).toEqual(records.map((r) => [r.event, r.data]));
        expect(textOf(decodeStream(format, read))).toBe(PIECES.join(''));
      });
    }

    it('passes its stream through byte-exact at every split (multi-byte characters cut across chunks), usage tapped', () => {
      const { bytes } = encodeStream(format, PARTS);
      // Every cut up to 64 bytes lands inside each multi-byte character at every offset.
      for (const split of [0, ...Array.from({ length: 64 }, (_, i) => i + 1), 100, 257, 1000]) {
        const { out, end } = passThrough(format, bytes, split);
        expect(out.equals(bytes), `cut every ${split || 'all'} bytes`).toBe(true);
        expect(end).toMatchObject({ aborted: false, estimated: false, usage: { outputTokens: USAGE.outputTokens } });
        expect(end?.failure).toBeUndefined();
      }
    });

    it('tells the end of a stream from a cut one (terminal record)', () => {
      const { records } = encodeStream(format, PARTS);
      const whole = watchStream(format.id, 'p');
      for (const record of records) expect(whole.check(record)).toBeUndefined();
      expect(whole.finished).toBe(true);
      const cut = watchStream(format.id, 'p');
      for (const record of records.slice(0, 2)) cut.check(record);
      expect(cut.finished).toBe(false);
    });

    it('taps usage from a passthrough stream record by record', () => {
      const tap = codec.createUsageTap();
      for (const record of encodeStream(format, PARTS).records) tap.push(record);
      expect(tap.info.usage).toMatchObject({ outputTokens: USAGE.outputTokens });
    });

    it('encodes errors it can decode, whole and mid-stream', () => {
      const error = new GatewayError('rate_limit_exceeded', 'Slow down, case.');
      const body = codec.encodeError(error, IDS);
      expect(codec.decodeError(429, body).message).toContain('Slow down, case.');
      const record = codec.encodeStreamError(error, IDS);
      expect(codec.decodeStreamError(record)?.message).toContain('Slow down, case.');
    });

    it('ends its stream at a mid-stream error part: the parts an upstream sends after it (finish, usage, end) add no record', () => {
      const encoder = codec.createStreamEncoder(REQUEST, STREAM_IDS);
      const before = PARTS.slice(0, 3).flatMap((part) => encoder.encode(part));
      expect(before.length).toBeGreaterThan(0);
      const failure = encoder.encode({ type: 'error', error: { code: 'provider_unavailable', status: 503, message: 'Overloaded mid-way, case.' } });
      expect(failure.length).toBeGreaterThan(0);
      expect(failure.some((record) => codec.decodeStreamError(record)?.message.includes('Overloaded mid-way, case.'))).toBe(true);
      expect(PARTS.slice(-3).flatMap((part) => encoder.encode(part))).toEqual([]);
    });

    for (const other of listFormats().filter((f) => f.id !== format.id)) {
      it(`converts its stream into '${other.id}' (every split), and a '${other.id}' stream into its own`, () => {
        for (const [from, to] of [[format, other], [other, format]] as const) {
          const parts = decodeStream(from, readStream(from, encodeStream(from, PARTS).bytes, 7));
          for (const split of SPLITS) {
            const { bytes } = encodeStream(to, parts);
            expect(textOf(decodeStream(to, readStream(to, bytes, split)))).toBe(PIECES.join(''));
          }
        }
      });
    }
  });
}
