import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { getFormat } from '../../src/formats/index.ts';
import type { UpstreamSuccess } from '../../src/pipeline/call-upstream.ts';
import { peekStream } from '../../src/pipeline/peek-stream.ts';
import type { StreamEnd } from '../../src/pipeline/relay-records.ts';
import { relayStream } from '../../src/pipeline/relay-stream.ts';
import type { StreamTarget } from '../../src/pipeline/types.ts';
import type { ChatRequest, StreamPart } from '../../src/ir/types.ts';
import { UpstreamHttpError } from '../../src/upstream/index.ts';
import { watchOf } from '../../src/util/abort.ts';
import { chatStream, messagesStream } from '../helpers/routing-wire.ts';
import { FastAbortController } from '../../src/util/abort.ts';
import { forgetSecrets, rememberSecret } from '../../src/util/index.ts';

const request = { model: 'm', system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }], stream: true } as unknown as ChatRequest;

function upstreamOf(body: Readable): UpstreamSuccess & { aborted: () => boolean } {
  let aborted = false;
  const controller = new FastAbortController();
  return {
    response: { status: 200, headers: {}, body, abort: () => ((aborted = true), body.destroy()) },
    abort: () => controller.abort(),
    done: () => undefined,
    watch: controller,
    aborted: () => aborted,
  };
}

/** A target that records calls; `full` makes write() report backpressure. */
function target(full = false): StreamTarget & { calls: string[]; drain: () => void; close: () => void; ended: Promise<void> } {
  const calls: string[] = [];
  let drain = () => undefined as void;
  let close = () => undefined as void;
  let done!: () => void;
  const ended = new Promise<void>((resolve) => (done = resolve));
  return {
    calls,
    ended,
    drain: () => drain(),
    close: () => close(),
    write(chunk) {
      calls.push(`write:${Buffer.from(chunk).toString()}`);
      return !full;
    },
    end(chunk) {
      calls.push(`end:${chunk === undefined ? '' : Buffer.from(chunk).toString()}`);
      done();
    },
    onDrain: (listener) => void (drain = listener),
    onClose: (listener) => void (close = listener),
    hold: () => void calls.push('hold'),
  };
}

async function relay(
  pieces: Array<string | Buffer>,
  options: { signal?: AbortSignal; strip?: boolean; onPart?: (part: StreamPart) => boolean | void; onTapFailed?: (error: unknown) => void; clientFormat?: 'chat' | 'responses' | 'messages'; upstreamFormat?: 'chat' | 'responses' | 'messages' } = {},
) {
  const body = new Readable({ read() {} });
  const upstream = upstreamOf(body);
  let ended: StreamEnd | undefined;
  for (const piece of pieces) body.push(piece);
  const upstreamFormat = options.upstreamFormat ?? 'chat';
  const peeked = await peekStream(body, upstreamFormat, 'p');
  const stream = relayStream(
    {
      upstream,
      providerId: 'p',
      upstreamFormat,
      clientFormat: options.clientFormat ?? 'chat',
      request,
      ids: { requestId: 'req_1', correlationId: 'req_1' },
      client: watchOf(options.signal ?? new AbortController().signal),
      passthrough: (options.clientFormat ?? 'chat') === upstreamFormat,
      onPart: options.onPart,
      onTapFailed: options.onTapFailed,
      stripUsageChunk: options.strip ?? false,
      onEnd: (end) => (ended = end),
    },
    peeked,
  );
  return { body, upstream, stream, end: () => ended };
}

describe('the part tap only keeps a copy', () => {
  const drained = async (r: Awaited<ReturnType<typeof relay>>) => {
    r.body.push(null);
    const t = target();
    r.stream.pushTo(t);
    await t.ended;
    return t.calls.join('');
  };

  it('a tap that wants no more parts stops being called; the passthrough goes on untouched', async () => {
    const seen: string[] = [];
    const r = await relay([chatStream(['Hel', 'lo', ' there']).join('')], { onPart: (part) => (seen.push(part.type), seen.length < 2) });
    const out = await drained(r);
    expect(seen).toHaveLength(2);
    expect(out).toContain('[DONE]');
    expect(r.end()).toMatchObject({ aborted: false });
    expect(r.end()!.failure).toBeUndefined();
    expect(r.end()!.upstreamError).toBeUndefined();
  });

  it('a passthrough whose records the tap cannot read says so (a conversation turn is refused on it), and its bytes go through', async () => {
    const codec = getFormat('chat').codec;
    const real = codec.createStreamDecoder.bind(codec);
    const spy = vi.spyOn(codec, 'createStreamDecoder').mockImplementation(() => {
      const decoder = real();
      let seen = 0;
      return Object.assign(Object.create(Object.getPrototypeOf(decoder)), decoder, {
        push: (record: Parameters<typeof decoder.push>[0]) => {
          if ((seen += 1) === 2) throw new RangeError('Invalid string length');
          return decoder.push(record);
        },
      });
    });
    try {
      const seen: string[] = [];
      const failed: unknown[] = [];
      const pieces = chatStream(['Hel', 'lo']);
      const r = await relay([pieces.join('')], { onPart: (part) => void seen.push(part.type), onTapFailed: (error) => failed.push(error) });
      const out = await drained(r);
      for (const piece of pieces) expect(out).toContain(piece);
      expect(failed).toHaveLength(1);
      expect(String(failed[0])).toContain('Invalid string length');
      expect(seen).not.toContain('error');
    } finally {
      spy.mockRestore();
    }
  });

  it('a RangeError while converting (an answer past what V8 can hold) is the gateway\'s, not the upstream\'s', async () => {
    const r = await relay([chatStream(['Hel', 'lo']).join('')], {
      clientFormat: 'responses',
      onPart: (part) => {
        if (part.type === 'text-delta') throw new RangeError('Invalid string length');
      },
    });
    const out = await drained(r);
    expect(out).toContain('internal_error');
    expect(r.end()!.failure).toMatchObject({ code: 'internal_error', retryable: false });
  });
});

describe('relayStream pushed into a target', () => {
  it('passes records through as they come, holds for the last one, and ends after the upstream', async () => {
    const [role, hel, lo, stop, usage, done] = chatStream(['Hel', 'lo']);
    const r = await relay([role]);
    const t = target();
    r.stream.pushTo(t);
    r.body.push(hel + lo.slice(0, 10));
    r.body.push(lo.slice(10) + stop + usage);
    r.body.push(done);
    r.body.push(null);
    await t.ended;
    expect(t.calls).toEqual([`write:${role}`, `write:${hel}`, `write:${lo}${stop}${usage}`, 'hold', `write:${done}`, 'end:']);
    expect(r.end()).toMatchObject({ aborted: false, estimated: false, usage: { inputTokens: 5, outputTokens: 2 } });
    expect(r.upstream.aborted()).toBe(false);
  });

  it('drops the usage chunk the gateway asked for, and sends everything at once when the upstream ended early', async () => {
    const pieces = chatStream(['x']);
    const r = await relay([pieces.join('')], { strip: true });
    r.body.push(null);
    const t = target();
    await new Promise((resolve) => setImmediate(resolve));
    r.stream.pushTo(t);
    await t.ended;
    expect(t.calls.join('')).not.toContain('"usage"');
    expect(t.calls.at(-1)).toMatch(/^end:/);
    expect(t.calls.join('')).toContain('[DONE]');
  });

  it('waits on backpressure: nothing is read until the target drains', async () => {
    const [role, x, stop, usage, done] = chatStream(['x']);
    const r = await relay([role]);
    const t = target(true);
    r.stream.pushTo(t);
    r.body.push(x);
    r.body.push(stop + usage + done);
    r.body.push(null);
    await new Promise((resolve) => setImmediate(resolve));
    expect(t.calls).toEqual([`write:${role}`]);
    t.drain();
    await new Promise((resolve) => setImmediate(resolve));
    expect(t.calls).toEqual([`write:${role}`, `write:${x}`]);
  });

  it('a cut stream ends with an error event; a client that leaves aborts the upstream and meters it', async () => {
    const [role, x] = chatStream(['x']);
    const cut = await relay([role]);
    const t = target();
    cut.stream.pushTo(t);
    cut.body.push(x);
    cut.body.push(null);
    await t.ended;
    expect(t.calls.at(-1)).toContain('provider_error');
    expect(cut.end()?.failure?.code).toBe('provider_error');

    const client = new AbortController();
    const left = await relay([role], { signal: client.signal });
    const t2 = target();
    left.stream.pushTo(t2);
    client.abort();
    t2.close();
    expect(left.upstream.aborted()).toBe(true);
    expect(left.end()).toMatchObject({ aborted: true, estimated: true });
  });

  // A plugin's stream that makes a further call and gets a non-2xx throws UpstreamHttpError part-way: that is the upstream
  // answering an error, classified as any error answer and its status kept (a Bedrock client's originalStatusCode), not a cut.
  it.each(['chat', 'messages'] as const)("a body that breaks on the upstream's error answer (UpstreamHttpError) ends in that error with upstream_status, to a %s client", async (clientFormat) => {
    const [role, x] = chatStream(['x']);
    const broken = await relay([role], { clientFormat });
    const t = target();
    broken.stream.pushTo(t);
    broken.body.destroy(new UpstreamHttpError(500, { error: { message: 'The server had an error while processing your request.', type: 'server_error' } }));
    await t.ended;
    expect(broken.end()?.failure).toMatchObject({ code: 'provider_error', message: expect.stringMatching(/had an error while processing/), details: { provider: 'p', upstream_status: 500 } });
    const said = JSON.parse(/data: (\{"(?:type":"error|error)".*)\n\n$/.exec(t.calls.at(-1)!)![1]);
    expect(said.error).toMatchObject({ code: 'provider_error', details: { upstream_status: 500 } });
  });

  it('a cut Responses passthrough ends with an error event, then response.failed, numbered after the last record the client got', async () => {
    const records = readFileSync(new URL('../fixtures/responses/text-turn.sse.txt', import.meta.url), 'utf8').split('\n\n').slice(0, 5);
    const cut = await relay([records[0] + '\n\n'], { clientFormat: 'responses', upstreamFormat: 'responses' });
    const t = target();
    cut.stream.pushTo(t);
    cut.body.push(records.slice(1).join('\n\n') + '\n\n');
    cut.body.push(null);
    await t.ended;
    const numbers = [...t.calls.join('').matchAll(/"sequence_number":(\d+)/g)].map((match) => Number(match[1]));
    expect(t.calls.join('')).toContain('event: error');
    expect(t.calls.join('')).toMatch(/event: error\n[^\n]*\n\nevent: response\.failed\n/);
    expect(numbers).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });
});

// The client's stream ends in the upstream's own refusal (here a context overflow after the first byte):
// the request ended in an error, which observability records with its code (before, nothing: a success).
describe('a stream the upstream ended with its own error record tells its code', () => {
  const overflowed = { message: 'prompt is too long: 210000 tokens > 200000 maximum', type: 'invalid_request_error' };
  const messagesStart = `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 0 } } })}\n\n`;
  const messagesError = `event: error\ndata: ${JSON.stringify({ type: 'error', error: overflowed })}\n\n`;
  const responsesStart = `event: response.created\ndata: ${JSON.stringify({ type: 'response.created', sequence_number: 0, response: { id: 'resp_1', object: 'response', status: 'in_progress', model: 'm', output: [] } })}\n\n`;
  const responsesFailed = `event: response.failed\ndata: ${JSON.stringify({ type: 'response.failed', sequence_number: 1, response: { id: 'resp_1', object: 'response', status: 'failed', model: 'm', output: [], error: { code: 'context_length_exceeded', message: 'Your input exceeds the context window of this model.' } } })}\n\n`;
  const [role, x] = chatStream(['x']);
  const chatError = `data: ${JSON.stringify({ error: { ...overflowed, code: 'context_length_exceeded' } })}\n\n`;

  const ended = async (pieces: string[], options: Parameters<typeof relay>[1]) => {
    const r = await relay([pieces[0]], options);
    const t = target();
    r.stream.pushTo(t);
    for (const piece of pieces.slice(1)) r.body.push(piece);
    r.body.push(null);
    await t.ended;
    return { end: r.end()!, out: t.calls.join('') };
  };

  it.each([
    ['a Messages passthrough', [messagesStart, messagesError], { clientFormat: 'messages', upstreamFormat: 'messages' }],
    ['a Responses passthrough', [responsesStart, responsesFailed], { clientFormat: 'responses', upstreamFormat: 'responses' }],
    ['a Chat passthrough', [role, x, chatError], {}],
    ['a Chat passthrough whose error and [DONE] come in one chunk', [role, x + chatError + 'data: [DONE]\n\n'], {}],
    ['a Messages upstream converted for a Chat client', [messagesStart, messagesError], { clientFormat: 'chat', upstreamFormat: 'messages' }],
    ['a Responses upstream converted for a Messages client', [responsesStart, responsesFailed], { clientFormat: 'messages', upstreamFormat: 'responses' }],
  ] as const)('%s', async (_, pieces, options) => {
    const { end, out } = await ended([...pieces], options);
    expect(out).toMatch(/context window|too long/);
    expect(end.failure).toBeUndefined();
    expect(end.upstreamError).toBe('bad_request');
  });

  it('a stream that finished has none, in a burst too', async () => {
    for (const pieces of [chatStream(['a', 'b']), [role, chatStream(['a', 'b']).slice(1).join('')]]) {
      expect((await ended(pieces, {})).end.upstreamError).toBeUndefined();
    }
  });
});

// Anthropic's message_start reports output_tokens 1; the count comes with message_delta at the end. A passthrough
// cut before it (the client left, the upstream broke off) was billed that 1 output token, however much it relayed.
describe('a stream cut short is billed at least what it relayed', () => {
  const relayed = async (pieces: string[]) => {
    const r = await relay([pieces[0]], { clientFormat: 'messages', upstreamFormat: 'messages' });
    const t = target();
    r.stream.pushTo(t);
    r.body.push(pieces.slice(1).join(''));
    r.body.push(null);
    await t.ended;
    return r.end()!;
  };

  it('a Messages passthrough cut after 28 of 40 text deltas: the estimate of what it relayed, not message_start\'s 1', async () => {
    const records = messagesStream(Array.from({ length: 40 }, () => 'twenty characters ab'));
    // message_start, content_block_start and 28 deltas: one token a record, as a passthrough estimates.
    const cut = await relayed(records.slice(0, 30));
    expect(cut.failure?.code).toBe('provider_error');
    expect(cut).toMatchObject({ usage: { inputTokens: 5, outputTokens: 30 }, estimated: true });
    // Finished, the upstream's count stands, even below that estimate (45 records, 40 tokens).
    expect(await relayed(records)).toMatchObject({ usage: { inputTokens: 5, outputTokens: 40 }, estimated: false });
  });
});

/** Everything a client gets of a passthrough Chat stream whose upstream sends `pieces` (the first `peeked` before the relay starts). */
async function clientBytes(pieces: Buffer[], strip = false, peeked = 1): Promise<Buffer> {
  const r = await relay(pieces.slice(0, peeked), { strip });
  const out: Buffer[] = [];
  let ended!: () => void;
  const done = new Promise<void>((resolve) => (ended = resolve));
  r.stream.pushTo({
    write: (chunk) => (out.push(Buffer.from(chunk)), true),
    end: (chunk) => {
      if (chunk !== undefined) out.push(Buffer.from(chunk));
      ended();
    },
    onDrain: () => undefined,
    onClose: () => undefined,
  });
  for (const piece of pieces.slice(peeked)) r.body.push(piece);
  r.body.push(null);
  await done;
  return Buffer.concat(out);
}

describe('a passthrough stream goes on as bytes', () => {
  it('a multi-byte character cut across upstream chunks reaches the client byte-exact', async () => {
    const whole = Buffer.from(chatStream(['Grüße ', '日本', ' 🦊'], { usage: false }).join(''));
    const fox = whole.indexOf(Buffer.from('🦊'));
    const ue = whole.indexOf(Buffer.from('ü'));
    for (const cuts of [[ue + 1], [fox + 1, fox + 2, fox + 3], [ue + 1, fox + 2]]) {
      const pieces = [0, ...cuts, whole.length].slice(1).map((end, i, ends) => whole.subarray(i === 0 ? 0 : ends[i - 1], end));
      expect((await clientBytes(pieces)).equals(whole)).toBe(true);
    }
  });

  it('writes a record byte-identical however it is spelled (CRLF, no space after the colon, comments, ids)', async () => {
    const [role, x, stop, usage, done] = chatStream(['x']);
    const odd = [role, `: keep-alive\r\nid: 7\r\ndata:${x.slice(6, -2)}\r\n\r\n`, stop.replace('\n\n', '\r\r'), usage, done].join('');
    expect((await clientBytes([Buffer.from(odd)])).toString()).toBe(odd);
    // Dropping the usage chunk the gateway asked for leaves the other records of the burst as they came.
    expect((await clientBytes([Buffer.from(odd)], true)).toString()).toBe(odd.replace(usage, ''));
    const wide = chatStream(['Grüße ', '🦊']);
    const spliced = await clientBytes([Buffer.from(`\ufeff${wide.join('')}`)], true);
    expect(spliced.equals(Buffer.from(`\ufeff${wide.filter((record) => !record.includes('"usage"')).join('')}`))).toBe(true);
  });

  it('drops the usage chunk of a burst wherever it stands (first, among the others, last) and however the burst is cut', async () => {
    const records = chatStream(['Grüße ', 'a', 'b', '🦊']);
    const usage = records.find((record) => record.includes('"usage"'))!;
    const others = records.filter((record) => record !== usage);
    // First, among the others, last before [DONE], after [DONE].
    for (const at of [0, 3, others.length - 1, others.length]) {
      const order = [...others.slice(0, at), usage, ...others.slice(at)];
      const whole = Buffer.from(order.join(''));
      const expected = Buffer.from(others.join(''));
      for (const size of [whole.length, 7, 64, 331]) {
        // The first piece holds a whole record (the relay starts once one came), the rest is cut every `size` bytes.
        const pieces = [whole.subarray(0, Buffer.byteLength(order[0]) + size)];
        for (let from = pieces[0].length; from < whole.length; from += size) pieces.push(whole.subarray(from, from + size));
        expect((await clientBytes(pieces, true)).equals(expected)).toBe(true);
      }
    }
  });

  it('bills a burst from its usage chunk, searched once for it, whether the client gets it or not, bad UTF-8 and CRLF included', async () => {
    const words = ['a', 'b', 'c', 'd', 'e'];
    const records = chatStream(words);
    const usage = records.find((record) => record.includes('"usage":{'))!;
    const bad = Buffer.concat([Buffer.from('data: {"id":"x","choices":[{"index":0,"delta":{"content":"'), Buffer.from([0xe2, 0x82]), Buffer.from('"}}]}\n\n')]);
    const bursts: Array<[string, Buffer]> = [
      ['LF', Buffer.from(records.join(''))],
      ['CRLF', Buffer.from(records.join('').replaceAll('\n', '\r\n'))],
      ['bad UTF-8', Buffer.concat([Buffer.from(records[0]), bad, Buffer.from(records.slice(1).join(''))])],
    ];
    for (const [name, burst] of bursts) {
      for (const strip of [false, true]) {
        const r = await relay([burst], { strip });
        const out: Buffer[] = [];
        const t = target();
        r.stream.pushTo({ ...t, write: (chunk) => (out.push(Buffer.from(chunk)), t.write(chunk)), end: (chunk) => (chunk !== undefined && out.push(Buffer.from(chunk)), t.end(chunk)) });
        r.body.push(null);
        await t.ended;
        expect(r.end(), `${name}, strip ${strip}`).toMatchObject({ usage: { inputTokens: 5, outputTokens: words.length }, estimated: false });
        const text = Buffer.concat(out).toString();
        expect(text.includes('"usage":{'), `${name}, strip ${strip}`).toBe(!strip);
        if (name !== 'bad UTF-8') expect(text).toBe(strip ? burst.toString().replace(name === 'CRLF' ? usage.replaceAll('\n', '\r\n') : usage, '') : burst.toString());
      }
    }
  });

  it('drops the usage chunk of a burst that came after a comment-only block, whole records only', async () => {
    // The relay starts with both pieces' bytes; the reader's record ends are in the last piece's.
    // They were read as ends in both (the finish chunk came out cut into the usage chunk, invalid
    // JSON); now the records are framed again, the comment left out.
    const records = chatStream(['a', 'b', 'c']);
    const out = await clientBytes([Buffer.from(': PROCESSING\n\n'), Buffer.from(records.join(''))], true, 2);
    expect(out.toString()).toBe(records.filter((record) => !record.includes('"usage"')).join(''));
  });

  it('passes a burst with an error record among its records as it came, and an upstream key outside an error record untouched', async () => {
    const key = 'sk-relay-test-key-0123456789';
    rememberSecret(key);
    try {
      const [role, x, y] = chatStream(['x', `the key ${key}`]);
      const error = `data: ${JSON.stringify({ error: { message: 'The server had an error', type: 'server_error' } })}\n\n`;
      const burst = role + x + x + error;
      expect((await clientBytes([Buffer.from(burst)])).toString()).toBe(burst);
      const quoted = role + x + x + y;
      expect((await clientBytes([Buffer.from(quoted)])).toString()).toContain(quoted);
    } finally {
      forgetSecrets();
    }
  });

  it('tells a burst that finished from one cut short, with or without its [DONE]', async () => {
    const records = chatStream(['a', 'b'], { usage: false });
    const stop = records.findIndex((record) => record.includes('"finish_reason":"stop"'));
    const cases: Array<[string[], string | undefined]> = [
      [records, undefined],
      [records.slice(0, stop + 1), undefined],
      [records.slice(0, stop), 'provider_error'],
    ];
    for (const [burst, failure] of cases) {
      const r = await relay([Buffer.from(burst[0]), Buffer.from(burst.slice(1).join(''))]);
      const t = target();
      r.stream.pushTo(t);
      r.body.push(null);
      await t.ended;
      expect(r.end()?.failure?.code, burst.length.toString()).toBe(failure);
    }
  });

  it('redacts an upstream key an error record quotes, alone or among many records in one chunk', async () => {
    const key = 'sk-relay-test-key-0123456789';
    rememberSecret(key);
    try {
      const [role, x] = chatStream(['x']);
      const error = `data: ${JSON.stringify({ error: { message: `Incorrect API key provided: ${key}`, type: 'invalid_request_error' } })}\n\n`;
      for (const pieces of [[role, x, error], [role + x + x + x + error]]) {
        const out = (await clientBytes(pieces.map((p) => Buffer.from(p)))).toString();
        expect(out).not.toContain(key);
        expect(out).toContain('Incorrect API key provided: [redacted]');
        expect(out.startsWith(role + x)).toBe(true);
      }
    } finally {
      forgetSecrets();
    }
  });
});
