// The event-stream framer: whole frames out of bytes cut at every offset, checksums verified.
import { EventStreamCodec } from '@smithy/core/event-streams';
import { describe, expect, it } from 'vitest';
import { BadFrameError, EventStreamSplitter, eventStreamFraming } from '../../../plugins/bedrock/event-stream.ts';
import { unwrapInvokeStream } from '../../../plugins/bedrock/unwrap-invoke-stream.ts';

const codec = new EventStreamCodec(
  (b) => Buffer.from(b).toString('utf8'),
  (s) => new Uint8Array(Buffer.from(s)),
);

function frame(type: string, payload: unknown, messageType = 'event'): Buffer {
  const name = messageType === 'exception' ? ':exception-type' : ':event-type';
  return Buffer.from(
    codec.encode({
      headers: { ':message-type': { type: 'string', value: messageType }, [name]: { type: 'string', value: type }, ':content-type': { type: 'string', value: 'application/json' } },
      body: new Uint8Array(Buffer.from(JSON.stringify(payload))),
    }),
  );
}

const STREAM = Buffer.concat([
  frame('messageStart', { role: 'assistant' }),
  frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hé ✓' } }),
  frame('metadata', { usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } }),
]);

async function* pieces(bytes: Buffer, at: number[]): AsyncIterable<Uint8Array> {
  let from = 0;
  for (const cut of [...at, bytes.length]) {
    yield bytes.subarray(from, cut);
    from = cut;
  }
}

describe('event-stream framing', () => {
  it('reads the same records whatever the split, at every byte', () => {
    for (let cut = 0; cut <= STREAM.length; cut += 1) {
      const reader = eventStreamFraming.createReader();
      const records = [];
      const passed: Buffer[] = [];
      for (const piece of [STREAM.subarray(0, cut), STREAM.subarray(cut)]) {
        passed.push(Buffer.from(reader.push(piece)));
        records.push(...reader.records);
      }
      expect(records.map((r) => r.event)).toEqual(['messageStart', 'contentBlockDelta', 'metadata']);
      expect(JSON.parse(records[1].data)).toEqual({ contentBlockIndex: 0, delta: { text: 'Hé ✓' } });
      // The bytes handed on (a passthrough) are exactly the upstream's.
      expect(Buffer.concat(passed).equals(STREAM)).toBe(true);
    }
  });

  it('reads a stream fed one byte at a time', () => {
    const reader = eventStreamFraming.createReader();
    const events: Array<string | undefined> = [];
    for (let i = 0; i < STREAM.length; i += 1) {
      reader.push(STREAM.subarray(i, i + 1));
      events.push(...reader.records.map((r) => r.event));
    }
    expect(events).toEqual(['messageStart', 'contentBlockDelta', 'metadata']);
  });

  it('turns a bad message CRC into an exception record, not a crash', () => {
    const bad = Buffer.from(STREAM);
    const second = frame('messageStart', { role: 'assistant' }).length;
    bad[second + 20] ^= 0x01;
    const reader = eventStreamFraming.createReader();
    const passed = reader.push(bad);
    // The whole frame before the corrupt one is read and handed on; the corrupt one is not.
    expect(reader.records.map((r) => r.event)).toEqual(['messageStart', 'exception:badFrameException']);
    expect(passed.length).toBe(second);
    expect(JSON.parse(reader.records[1].data).message).toMatch(/message checksum/);
    // Nothing after a corrupt frame is read.
    reader.push(frame('messageStart', {}));
    expect(reader.records).toEqual([]);
  });

  it('refuses a bad prelude CRC and an absurd length', () => {
    const prelude = Buffer.from(STREAM);
    prelude[9] ^= 0xff;
    const first = new EventStreamSplitter().push(prelude);
    expect(first.messages).toEqual([]);
    expect(first.error).toBeInstanceOf(BadFrameError);
    expect(first.error?.message).toMatch(/prelude checksum/);
    const huge = Buffer.alloc(16);
    huge.writeUInt32BE(0x7fffffff, 0);
    expect(new EventStreamSplitter().push(huge).error?.message).toMatch(/claims 2147483647 bytes/);
  });

  it('joins a large message once, not at every chunk: 15 MB in 4 KB chunks is read in linear time', () => {
    const big = frame('chunk', { bytes: 'A'.repeat(15_000_000) });
    const splitter = new EventStreamSplitter();
    let copied = 0;
    const concat = Buffer.concat;
    // Every byte the splitter joins is counted: before, it joined what it held with each chunk (~27 GB for this message, 5 s).
    Buffer.concat = ((list: readonly Uint8Array[], length?: number) => {
      const joined = concat(list, length);
      copied += joined.length;
      return joined;
    }) as typeof Buffer.concat;
    const messages = [];
    try {
      for (let at = 0; at < big.length; at += 4096) messages.push(...splitter.push(big.subarray(at, at + 4096)).messages);
    } finally {
      Buffer.concat = concat;
    }
    expect(messages).toHaveLength(1);
    expect(messages[0]!.payload.length).toBe(15_000_000 + '{"bytes":""}'.length);
    expect(copied).toBeLessThan(2 * big.length);
  });

  it('names exceptions by their :exception-type and writes frames the AWS codec reads back', () => {
    const reader = eventStreamFraming.createReader();
    reader.push(frame('throttlingException', { message: 'slow down' }, 'exception'));
    expect(reader.records).toEqual([{ event: 'exception:throttlingException', data: '{"message":"slow down"}' }]);
    const written = eventStreamFraming.createWriter().write([{ event: 'contentBlockDelta', data: '{"x":1}' }, ...reader.records]) as Buffer;
    const first = codec.decode(written.subarray(0, written.readUInt32BE(0)));
    expect(first.headers[':event-type']).toEqual({ type: 'string', value: 'contentBlockDelta' });
    const second = codec.decode(written.subarray(written.readUInt32BE(0)));
    expect(second.headers[':message-type']).toEqual({ type: 'string', value: 'exception' });
    expect(second.headers[':exception-type']).toEqual({ type: 'string', value: 'throttlingException' });
  });
});

describe('InvokeModelWithResponseStream unwrapping', () => {
  const event = '{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB+/=="}}';
  const chunk = frame('chunk', { bytes: Buffer.from(event).toString('base64'), p: 'abc' });

  it('hands on the Messages event bytes exactly, as SSE, at any split', async () => {
    for (let cut = 1; cut < chunk.length; cut += 7) {
      const out: string[] = [];
      for await (const bytes of unwrapInvokeStream(pieces(chunk, [cut]))) out.push(Buffer.from(bytes).toString('utf8'));
      expect(out.join('')).toBe(`event: content_block_delta\ndata: ${event}\n\n`);
    }
  });

  it('turns exceptions and corrupt frames into Messages error events', async () => {
    const out: string[] = [];
    const bad = Buffer.from(chunk);
    bad[bad.length - 1] ^= 0xff;
    const stream = Buffer.concat([frame('throttlingException', { message: 'Too many requests' }, 'exception'), bad]);
    for await (const bytes of unwrapInvokeStream(pieces(stream, [3]))) out.push(Buffer.from(bytes).toString('utf8'));
    const text = out.join('');
    expect(text).toContain('event: error\ndata: {"type":"error","error":{"type":"rate_limit_error","message":"Too many requests"}}');
    expect(text).toMatch(/"type":"api_error","message":"The upstream sent a corrupt event-stream frame/);
  });

  // Bedrock's ModelStreamErrorException names the model's status (originalStatusCode): kept where a Messages error event
  // from the gateway has it (details.upstream_status), so the client's error, an AWS SDK's ModelStreamErrorException too, names it.
  it("keeps a modelStreamErrorException's originalStatusCode as the error event's details.upstream_status", async () => {
    const unwrapped = async (payload: unknown) => {
      const out: string[] = [];
      for await (const bytes of unwrapInvokeStream(pieces(frame('modelStreamErrorException', payload, 'exception'), [5]))) out.push(Buffer.from(bytes).toString('utf8'));
      return out.join('');
    };
    expect(await unwrapped({ message: 'The model stream failed.', originalStatusCode: 500, originalMessage: 'Internal error' })).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"The model stream failed.","details":{"upstream_status":500}}}\n\n',
    );
    // Not an HTTP status: not kept.
    for (const originalStatusCode of [42, '500', 500.5]) {
      expect(await unwrapped({ message: 'The model stream failed.', originalStatusCode })).toBe('event: error\ndata: {"type":"error","error":{"type":"api_error","message":"The model stream failed."}}\n\n');
    }
  });
});
