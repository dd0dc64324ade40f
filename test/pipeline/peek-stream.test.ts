import { describe, expect, it } from 'vitest';
import { peekStream } from '../../src/pipeline/peek-stream.ts';

async function* body(...pieces: string[]): AsyncGenerator<Uint8Array> {
  for (const piece of pieces) yield Buffer.from(piece);
}

async function collect(iterable: AsyncIterable<Uint8Array>): Promise<string> {
  let out = '';
  for await (const chunk of iterable) out += Buffer.from(chunk).toString('utf8');
  return out;
}

describe('peekStream', () => {
  it('reads up to the first record and replays everything', async () => {
    const peeked = await peekStream(body('da', 'ta: {"a":1}\n', '\ndata: {"b":2}\n\n'), 'chat', 'p');
    expect(await collect(peeked.body)).toBe('data: {"a":1}\n\ndata: {"b":2}\n\n');
  });

  it('throws a retryable error for an empty stream', async () => {
    await expect(peekStream(body(), 'chat', 'p')).rejects.toMatchObject({ code: 'provider_error', retryable: true });
    await expect(peekStream(body(': keep-alive\n\n'), 'chat', 'p')).rejects.toMatchObject({ code: 'provider_error' });
  });

  it('maps an opening error record like the same error before the stream', async () => {
    const overloaded = 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
    await expect(peekStream(body(overloaded), 'messages', 'p')).rejects.toMatchObject({ code: 'provider_unavailable' });
    const limited = 'data: {"error":{"message":"slow down","type":"rate_limit_error"}}\n\n';
    await expect(peekStream(body(limited), 'chat', 'p')).rejects.toMatchObject({ code: 'rate_limit_exceeded' });
    const failed = 'event: response.failed\ndata: {"type":"response.failed","response":{"error":{"code":"server_error","message":"x"}}}\n\n';
    await expect(peekStream(body(failed), 'responses', 'p')).rejects.toMatchObject({ code: 'provider_error' });
    const responsesError = 'event: error\ndata: {"type":"error","code":"rate_limit_exceeded","message":"slow down","param":null}\n\n';
    await expect(peekStream(body(responsesError), 'responses', 'p')).rejects.toMatchObject({ code: 'rate_limit_exceeded' });
    const invalid = 'data: {"error":{"message":"bad","type":"invalid_request_error"}}\n\n';
    await expect(peekStream(body(invalid), 'chat', 'p')).rejects.toMatchObject({ code: 'bad_request', retryable: false });
  });

  it('passes a stream whose first record mentions "error" in its text', async () => {
    const chunk = 'data: {"choices":[{"delta":{"content":"no \\"error\\" here"}}]}\n\n';
    expect(await collect((await peekStream(body(chunk), 'chat', 'p')).body)).toBe(chunk);
  });
});
