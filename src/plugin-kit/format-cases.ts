/**
 * The wire format conformance suite (`formatCases` in `gateway/plugin-kit/testing`): what the
 * gateway relies on from every format's face, as framework-free cases a plugin author runs
 * against the format their plugin brings (`wireFormats`), and the gateway's own tests run for
 * every registered format (test/formats/format.case.ts): request and response round trips
 * through the IR, streams framed and cut at several split sizes, the stream passed through
 * byte-exact, its terminal record, error bodies, the usage tap, and the same stream converted
 * into and from every other registered format.
 */
import { isDeepStrictEqual } from 'node:util';
import { GatewayError } from '../errors/index.ts';
import { findFormat, listFormats, looksLikeObject, registerFormat, type FormatDefinition, type RouteTarget, type WireRecord } from '../formats/index.ts';
import type { ChatRequest, ChatResponse, StreamPart, Usage } from '../ir/index.ts';

/** One check: a name for your test runner and a function that throws when the format fails it. */
export interface FormatCase {
  name: string;
  run(): void;
}

const SPLITS = [1, 7, 64, 0];
const IDS = { requestId: 'req_case', correlationId: 'req_case' };
const USAGE = { inputTokens: 12, outputTokens: 5 };
const PIECES = ['Héllo', ' wörld', ' 👋', '!'];
const TEXT = PIECES.join('');

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

const RESPONSE: ChatResponse = { id: 'resp_case1', model: 'up-model', created: 1_700_000_000, content: [{ type: 'text', text: TEXT }], finishReason: 'stop', usage: USAGE };

/** The IR stream every format encodes: a text in four pieces (multi-byte characters), a finish, usage, the end. */
export const CASE_PARTS: StreamPart[] = [
  { type: 'start', id: 'resp_case1', model: 'up-model', created: 1_700_000_000, usage: { inputTokens: USAGE.inputTokens } },
  { type: 'text-start' },
  ...PIECES.map((text): StreamPart => ({ type: 'text-delta', text })),
  { type: 'text-end' },
  { type: 'finish', finishReason: 'stop' },
  { type: 'usage', usage: USAGE },
  { type: 'end' },
];

function fail(message: string): never {
  throw new Error(`format conformance: ${message}`);
}

function expectSame(actual: unknown, expected: unknown, what: string): void {
  if (!isDeepStrictEqual(actual, expected)) fail(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

function expectUsage(usage: Partial<Usage> | undefined, what: string, input = true): void {
  if (usage?.outputTokens !== USAGE.outputTokens || (input && usage.inputTokens !== USAGE.inputTokens)) fail(`${what}: expected usage ${JSON.stringify(USAGE)}, got ${JSON.stringify(usage)}`);
}

const toBuffer = (piece: string | Buffer): Buffer => (typeof piece === 'string' ? Buffer.from(piece) : piece);

/** What a route of the format reads from the URL (path formats), for decodeRequest. */
function targetOf(format: FormatDefinition, stream: boolean): RouteTarget | undefined {
  return format.routes.some((route) => route.from === 'path') ? { model: 'up-model', stream } : undefined;
}

function textOf(parts: StreamPart[]): string {
  return parts.map((p) => (p.type === 'text-delta' ? p.text : '')).join('');
}

/** The format's wire bytes for an IR stream (default: CASE_PARTS): its encoder's records, framed by its writer. */
export function encodeCaseStream(format: FormatDefinition, parts: StreamPart[] = CASE_PARTS): { records: WireRecord[]; bytes: Buffer } {
  const encoder = format.codec.createStreamEncoder(REQUEST, IDS);
  const records = parts.flatMap((part) => encoder.encode(part));
  const writer = format.framing.createWriter();
  return { records, bytes: Buffer.concat([toBuffer(writer.write(records)), toBuffer(writer.end())]) };
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
 * What a same-format client gets when its stream is passed through, fed `split` bytes at a time:
 * the bytes of whole records each read returns (the upstream's own, never framed again), the
 * records a cut last one leaves framed, then what closes the stream (a JSON array's `]`).
 */
function passBytes(format: FormatDefinition, bytes: Buffer, split: number): Buffer {
  const reader = format.framing.createReader();
  const writer = format.framing.createWriter();
  const out: Buffer[] = [];
  const size = split > 0 ? split : bytes.length;
  for (let at = 0; at < bytes.length; at += size) {
    out.push(Buffer.from(reader.push(Buffer.from(bytes.subarray(at, at + size)))));
    writer.passed(reader.records.length);
  }
  const last = reader.end();
  if (last.length > 0) out.push(toBuffer(writer.write(last)));
  out.push(toBuffer(writer.end()));
  return Buffer.concat(out);
}

/** Where the format says its stream is after these records: 'complete', 'finished' or undefined; each record must be a JSON object unless `terminal` names it. */
function endOf(format: FormatDefinition, records: WireRecord[]): 'complete' | 'finished' | undefined {
  let end: 'complete' | 'finished' | undefined;
  for (const record of records) {
    const said = format.terminal(record, true);
    if (said === undefined && record.data.trim() !== '' && !looksLikeObject(record.data)) fail(`record ${JSON.stringify(record.data.slice(0, 80))} is not a JSON object and terminal() does not name it (the gateway refuses it as a cut record)`);
    if (said === 'complete') end = 'complete';
    else if (said === 'finished' && end === undefined) end = 'finished';
  }
  return end;
}

/**
 * The conformance cases for one wire format (registered first if it is not yet): give each to
 * your test runner, `for (const c of formatCases(format)) test(c.name, c.run)`. Conversions are
 * checked with every format registered when it is called (the built-in ones, and any a plugin
 * you loaded brought).
 */
export function formatCases(format: FormatDefinition): FormatCase[] {
  const codec = format.codec;
  const ensureRegistered = (): void => {
    if (findFormat(format.id) !== format) registerFormat(format);
  };
  const cases: FormatCase[] = [
    {
      name: 'has routes, a framing and a codec that says its id, and registers',
      run: () => {
        ensureRegistered();
        expectSame(codec.format, format.id, "the codec's format");
        if (!/\//.test(format.framing.contentType)) fail(`framing.contentType '${format.framing.contentType}' is not a media type`);
      },
    },
    {
      name: 'decodes what it encodes: a request through the IR',
      run: () => {
        const back = codec.decodeRequest(codec.encodeRequest(REQUEST, { upstreamModel: 'up-model', defaultMaxTokens: 64 }), targetOf(format, true));
        expectSame([back.model, back.stream], ['up-model', true], 'model and stream read back');
        const texts = (content: ChatRequest['messages'][number]['content']) => content.map((p) => (p.type === 'text' ? p.text : '')).join('');
        if (format.singlePrompt) {
          // One prompt text (legacy Completions): the conversation is a transcript in one user turn, every text in order.
          expectSame(back.messages.map((m) => m.role), ['user'], 'roles of a single-prompt format');
          if (!/Be brief\.[^]*Say hello\.[^]*Hello\?[^]*Again, louder\./.test(texts(back.messages[0].content))) fail('the prompt lost a turn or their order');
          return;
        }
        expectSame(back.system.map((p) => p.text).join(''), 'Be brief.', 'the system text read back');
        expectSame(back.messages.map((m) => m.role), ['user', 'assistant', 'user'], 'the roles read back');
        expectSame(texts(back.messages.at(-1)!.content), 'Again, louder.', 'the last turn read back');
      },
    },
    {
      name: 'decodes what it encodes: a whole response, and reads it as a passthrough',
      run: () => {
        const body = codec.encodeResponse(RESPONSE, REQUEST);
        const back = codec.decodeResponse(body);
        expectSame(back.content.map((p) => (p.type === 'text' ? p.text : '')).join(''), TEXT, 'the text read back');
        expectSame(back.finishReason, 'stop', 'the finish reason read back');
        expectUsage(back.usage, 'decodeResponse');
        expectUsage(codec.readPassthroughResponse(body).usage, 'readPassthroughResponse');
      },
    },
    ...SPLITS.map((split) => ({
      name: `frames a stream and reads it back cut every ${split || 'all'} bytes, text and end intact`,
      run: () => {
        const { records, bytes } = encodeCaseStream(format);
        expectSame(readStream(format, bytes, split).map((r) => [r.event, r.data]), records.map((r) => [r.event, r.data]), 'the records read back');
        expectSame(textOf(decodeStream(format, readStream(format, bytes, split))), TEXT, 'the text decoded');
      },
    })),
    {
      name: 'passes its stream through byte-exact at every split (multi-byte characters cut across chunks)',
      run: () => {
        const { bytes } = encodeCaseStream(format);
        for (const split of [0, ...Array.from({ length: 64 }, (_, i) => i + 1), 100, 257, 1000]) {
          const out = passBytes(format, bytes, split);
          if (!out.equals(bytes)) fail(`cut every ${split || 'all'} bytes, the bytes passed on differ: the reader's push() must return the bytes of the whole records it read`);
        }
      },
    },
    {
      name: 'tells the end of a stream from a cut one (terminal record)',
      run: () => {
        const { records } = encodeCaseStream(format);
        if (endOf(format, records) === undefined) fail('no record of a whole stream is terminal: every stream would read as cut short');
        if (endOf(format, records.slice(0, 2)) !== undefined) fail('the first two records of a stream already say it finished: a cut stream would read as whole');
      },
    },
    {
      name: 'taps usage from a passthrough stream record by record',
      run: () => {
        const tap = codec.createUsageTap();
        for (const record of encodeCaseStream(format).records) tap.push(record);
        expectUsage(tap.info.usage, 'the usage tap', false);
      },
    },
    {
      name: 'encodes errors it can decode, whole and mid-stream',
      run: () => {
        const error = new GatewayError('rate_limit_exceeded', 'Slow down, case.');
        if (!codec.decodeError(429, codec.encodeError(error, IDS)).message.includes('Slow down, case.')) fail('decodeError does not read the message encodeError wrote');
        if (!codec.decodeStreamError(codec.encodeStreamError(error, IDS))?.message.includes('Slow down, case.')) fail('decodeStreamError does not read the record encodeStreamError wrote');
      },
    },
    {
      name: 'ends its stream at a mid-stream error part: the parts an upstream sends after it (finish, usage, end) add no record',
      run: () => {
        const encoder = codec.createStreamEncoder(REQUEST, IDS);
        if (CASE_PARTS.slice(0, 3).flatMap((part) => encoder.encode(part)).length === 0) fail('the start of a stream encodes to no record');
        const failure = encoder.encode({ type: 'error', error: { code: 'provider_unavailable', status: 503, message: 'Overloaded mid-way, case.' } });
        if (!failure.some((record) => codec.decodeStreamError(record)?.message.includes('Overloaded mid-way, case.'))) fail('an error part encodes to no record decodeStreamError reads');
        expectSame(CASE_PARTS.slice(-3).flatMap((part) => encoder.encode(part)), [], 'records after the error');
      },
    },
  ];
  for (const other of listFormats().filter((f) => f.id !== format.id)) {
    cases.push({
      name: `converts its stream into '${other.id}' (every split), and a '${other.id}' stream into its own`,
      run: () => {
        for (const [from, to] of [[format, other], [other, format]] as const) {
          const parts = decodeStream(from, readStream(from, encodeCaseStream(from).bytes, 7));
          for (const split of SPLITS) expectSame(textOf(decodeStream(to, readStream(to, encodeCaseStream(to, parts).bytes, split))), TEXT, `'${from.id}' → '${to.id}' text, cut every ${split || 'all'} bytes`);
        }
      },
    });
  }
  return cases;
}
