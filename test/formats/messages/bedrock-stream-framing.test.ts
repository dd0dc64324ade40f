/**
 * The Messages face's Bedrock framing (InvokeModelWithResponseStream's answer): AWS's binary
 * event-stream, one `chunk` event per Messages stream event, base64 in `bytes`. Checked against a
 * codec written from the wire description (event-stream-wire.ts, its own CRC32), not the one the
 * gateway frames with, and against a stream framed as Bedrock frames it (its `p` padding too).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getFormat } from '../../../src/formats/index.ts';
import type { WireRecord } from '../../../src/formats/index.ts';
import { translateStream } from '../stream-helpers.ts';
import { decodeWire } from './event-stream-wire.ts';

const fixture = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../fixtures/messages/bedrock-invoke-stream.json'), 'utf8')) as { base64: string; events: Array<Record<string, unknown>> };
const framing = getFormat('messages').framings!['bedrock-event-stream'];

const RECORDS: WireRecord[] = [
  { event: 'message_start', data: JSON.stringify({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', content: [], usage: { input_tokens: 3, output_tokens: 1 } } }) },
  { event: 'content_block_delta', data: JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'héllo ✓' } }) },
  { event: 'message_stop', data: '{"type":"message_stop"}' },
  { event: 'error', data: JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }) },
];

/** The records a reader gives for `bytes` pushed in pieces of `size`. */
function readInPieces(bytes: Buffer, size: number): WireRecord[] {
  const reader = framing.createReader();
  const out: WireRecord[] = [];
  let passed = 0;
  for (let at = 0; at < bytes.length; at += size) {
    passed += reader.push(bytes.subarray(at, at + size)).length;
    out.push(...reader.records);
  }
  expect(passed).toBe(bytes.length);
  return out;
}

describe("the Messages face's Bedrock event-stream framing", () => {
  it('is a client framing (upstreams answer SSE) with AWS\'s content type', () => {
    expect(framing.contentType).toBe('application/vnd.amazon.eventstream');
    expect(framing.clientOnly).toBe(true);
  });

  it('writes each record as a chunk event whose base64 bytes are the record, with valid lengths and checksums', () => {
    const bytes = Buffer.from(framing.createWriter().write(RECORDS.slice(0, 3)));
    const messages = decodeWire(bytes);
    expect(messages).toHaveLength(3);
    for (const [i, message] of messages.entries()) {
      expect(message.headers).toEqual({ ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' });
      const payload = JSON.parse(message.payload) as { bytes: string };
      expect(Buffer.from(payload.bytes, 'base64').toString('utf8')).toBe(RECORDS[i].data);
    }
  });

  // The AWS SDK raises each of InvokeModelWithResponseStream's six exceptions as its own class and any other name as a bare
  // Error; the Anthropic Bedrock SDK (and Claude Code 2.1.332, which bundles it) turns an exception into an APIError whose
  // error.type is the exception's name and whose message is the payload's. An Anthropic error inside a chunk is read by neither.
  it.each([
    [{ type: 'rate_limit_error' }, 'throttlingException'],
    [{ type: 'overloaded_error' }, 'serviceUnavailableException'],
    [{ type: 'timeout_error', code: 'provider_timeout' }, 'modelTimeoutException'],
    [{ type: 'invalid_request_error' }, 'validationException'],
    [{ type: 'billing_error', code: 'insufficient_balance' }, 'validationException'],
    [{ type: 'api_error' }, 'internalServerException'],
    [{ type: 'api_error', code: 'provider_error' }, 'modelStreamErrorException'],
  ])("writes Anthropic's error event %o as Bedrock's %s, its message what AWS SDKs read", (error, exception) => {
    const data = JSON.stringify({ type: 'error', error: { ...error, message: 'Try later.' }, request_id: 'req_1' });
    const [message] = decodeWire(Buffer.from(framing.createWriter().write([{ event: 'error', data }])));
    expect(message.headers).toEqual({ ':exception-type': exception, ':content-type': 'application/json', ':message-type': 'exception' });
    expect(JSON.parse(message.payload)).toEqual({ message: 'Try later.', error_event: JSON.parse(data) });
  });

  // Real Bedrock's modelStreamErrorException carries the model's status and message beside its own (originalStatusCode,
  // originalMessage, which the AWS SDK's ModelStreamErrorException class has): where the gateway knows the upstream's status.
  it("writes a provider_error with the upstream's status as modelStreamErrorException with originalStatusCode and originalMessage; a cut has none", () => {
    const failed = JSON.stringify({ type: 'error', error: { type: 'api_error', code: 'provider_error', message: "The provider 'a' failed: boom", details: { provider: 'a', upstream_status: 500 } } });
    const cut = JSON.stringify({ type: 'error', error: { type: 'api_error', code: 'provider_error', message: 'The connection to the provider failed.' } });
    const [withStatus, withNone] = decodeWire(Buffer.from(framing.createWriter().write([{ event: 'error', data: failed }, { event: 'error', data: cut }])));
    expect(withStatus.headers[':exception-type']).toBe('modelStreamErrorException');
    expect(JSON.parse(withStatus.payload)).toEqual({ message: "The provider 'a' failed: boom", originalStatusCode: 500, originalMessage: "The provider 'a' failed: boom", error_event: JSON.parse(failed) });
    expect(JSON.parse(withNone.payload)).toEqual({ message: 'The connection to the provider failed.', error_event: JSON.parse(cut) });
    // Only that exception has the fields: an upstream's 429 is throttlingException, as before.
    const throttled = JSON.stringify({ type: 'error', error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'Slow', details: { upstream_status: 429 } } });
    expect(JSON.parse(decodeWire(Buffer.from(framing.createWriter().write([{ event: 'error', data: throttled }])))[0].payload)).toEqual({ message: 'Slow', error_event: JSON.parse(throttled) });
  });

  // A passthrough from a Bedrock InvokeModel upstream: the bedrock plugin's error event for its modelStreamErrorException names
  // the status in details.upstream_status, with no gateway code (the record goes through as the upstream's): the same exception.
  it("writes an upstream's api_error that names its status (a Bedrock InvokeModel upstream's own modelStreamErrorException) as modelStreamErrorException with it", () => {
    const passed = JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'The model stream failed.', details: { upstream_status: 500 } } });
    const [message] = decodeWire(Buffer.from(framing.createWriter().write([{ event: 'error', data: passed }])));
    expect(message.headers[':exception-type']).toBe('modelStreamErrorException');
    expect(JSON.parse(message.payload)).toEqual({ message: 'The model stream failed.', originalStatusCode: 500, originalMessage: 'The model stream failed.', error_event: JSON.parse(passed) });
  });

  // End to end through the IR: a Gemini upstream's stream that ends in Google's error element names the status (`code`);
  // the IR's stream error carries it (upstreamStatus), the Messages encoder's error event says it in details.upstream_status,
  // and the framing makes it the exception's originalStatusCode. Google's 503 is serviceUnavailableException: no such field.
  it.each([
    [500, 'INTERNAL', 'modelStreamErrorException', { originalStatusCode: 500, originalMessage: "The provider's stream failed: Internal error encountered." }],
    [503, 'UNAVAILABLE', 'serviceUnavailableException', {}],
  ])("a converted Gemini stream that fails with Google's %i (%s) ends in %s, with originalStatusCode where it is that of the model's stream", (code, status, exception, original) => {
    const gemini = [
      `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'Hel' }] } }], modelVersion: 'gemini-x' })}\n\n`,
      `data: ${JSON.stringify({ error: { code, message: "The provider's stream failed: Internal error encountered.", status } })}\n\n`,
    ].join('');
    const request = getFormat('messages').codec.decodeRequest({ model: 'g/gemini-x', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Hi' }] }, { model: 'g/gemini-x', stream: true });
    const sse = translateStream(getFormat('gemini').codec, getFormat('messages').codec, request, gemini);
    const records = [...sse.matchAll(/event: (\S+)\ndata: (.*)\n\n/g)].map(([, event, data]) => ({ event, data }));
    const messages = decodeWire(Buffer.from(framing.createWriter().write(records)));
    const last = messages.at(-1)!;
    expect(last.headers[':exception-type']).toBe(exception);
    const payload = JSON.parse(last.payload);
    expect(payload).toMatchObject({ message: "The provider's stream failed: Internal error encountered.", ...original });
    if (!('originalStatusCode' in original)) expect(payload).not.toHaveProperty('originalStatusCode');
    expect(payload.error_event.error.details).toMatchObject({ upstream_status: code });
  });

  it('reads what it wrote back at any split: 1, 7, 64 bytes, whole', () => {
    const bytes = Buffer.from(framing.createWriter().write(RECORDS));
    for (const size of [1, 7, 64, bytes.length]) expect(readInPieces(bytes, size)).toEqual(RECORDS);
  });

  it("reads a stream framed as Bedrock frames it (header order, `p` padding) into the Messages events inside", () => {
    const bytes = Buffer.from(fixture.base64, 'base64');
    for (const size of [1, 13, bytes.length]) {
      const records = readInPieces(bytes, size);
      expect(records.map((r) => JSON.parse(r.data))).toEqual(fixture.events);
      expect(records.map((r) => r.event)).toEqual(fixture.events.map((e) => e.type));
    }
  });

  it('writes those events back as messages that carry the same events', () => {
    const records = readInPieces(Buffer.from(fixture.base64, 'base64'), 64);
    const again = decodeWire(Buffer.from(framing.createWriter().write(records)));
    expect(again.map((m) => JSON.parse(Buffer.from((JSON.parse(m.payload) as { bytes: string }).bytes, 'base64').toString('utf8')))).toEqual(fixture.events);
  });

  it('refuses a message that claims an absurd length instead of buffering it', () => {
    const bad = Buffer.alloc(16);
    bad.writeUInt32BE(0x7fffffff, 0);
    expect(() => framing.createReader().push(bad)).toThrow(/claims/);
  });
});
