/**
 * Proves the official Anthropic SDK reads our Messages encodings natively. The SDK talks to
 * an in-process fetch that decodes its request with our codec and answers with our encoders
 * (no socket, no internet).
 */
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { validationError } from '../../../src/errors/index.ts';
import type { ChatRequest, StreamPart } from '../../../src/ir/types.ts';
import { chatCodec } from '../../../src/formats/chat/index.ts';
import { messagesCodec } from '../../../src/formats/messages/index.ts';
import { encodePart, readFixture, runStream, STREAM_IDS } from '../stream-helpers.ts';

const ids = { requestId: 'req_sdk', correlationId: 'cor_sdk' };

function respond(request: ChatRequest): Response {
  if (request.model === 'reject') return json(422, messagesCodec.encodeError(validationError({ max_tokens: 'is required' }), ids));
  if (!request.stream) {
    const answer = chatCodec.decodeResponse(JSON.parse(readFixture('chat/response-reasoning-details.json')));
    return json(200, messagesCodec.encodeResponse(answer, request));
  }
  const fixture = request.model === 'tools' ? 'chat/stream-parallel-tools.sse.txt' : 'chat/stream-reasoning-details.sse.txt';
  const parts: StreamPart[] =
    request.model === 'fail'
      ? [
          { type: 'start', id: 'msg_f', model: 'm', created: 1 },
          { type: 'text-delta', text: 'Part' },
          { type: 'error', error: { code: 'provider_unavailable', message: 'Overloaded', status: 503 } },
        ]
      : runStream(chatCodec, readFixture(fixture), 5);
  const encoder = messagesCodec.createStreamEncoder(request, STREAM_IDS);
  return new Response(parts.map((part) => encodePart(encoder, part)).join(''), { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

const client = new Anthropic({
  apiKey: 'sk-test',
  baseURL: 'http://127.0.0.1:9',
  maxRetries: 0,
  fetch: async (_url: string | URL | Request, init?: RequestInit) => respond(messagesCodec.decodeRequest(JSON.parse(String(init?.body)))),
});

const ask = { max_tokens: 100, messages: [{ role: 'user' as const, content: 'hi' }] };

describe('Anthropic SDK against the messages encoders', () => {
  it('reads a non-streamed message converted from Chat, with signed thinking', async () => {
    const message = await client.messages.create({ model: 'claude', ...ask });
    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'Compare the numbers.', signature: 'ErUBCkYIBRgCIkDsig==' },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4a' },
      { type: 'text', text: '9.11 is smaller.' },
    ]);
    expect(message.usage).toMatchObject({ input_tokens: 20, output_tokens: 60 });
  });

  it('accumulates a translated stream with MessageStream (thinking, signature, redacted, text, usage)', async () => {
    const final = await client.messages.stream({ model: 'claude', ...ask }).finalMessage();
    expect(final.content).toEqual([
      { type: 'thinking', thinking: 'Compare the numbers.', signature: 'ErUBCkYIBRgCIkDsig==' },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4a' },
      { type: 'text', text: '9.11 is smaller.' },
    ]);
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage).toMatchObject({ input_tokens: 20, output_tokens: 60 });
  });

  it('accumulates parallel tool calls from a Chat stream into tool_use inputs', async () => {
    const final = await client.messages.stream({ model: 'tools', ...ask }).finalMessage();
    expect(final.content).toEqual([
      { type: 'tool_use', id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', name: 'get_weather', input: { location: 'Paris' } },
      { type: 'tool_use', id: 'call_ABC123xyz', name: 'get_time', input: { tz: 'CET' } },
      { type: 'tool_use', id: 'call_noargs', name: 'get_location', input: {} },
    ]);
    expect(final.stop_reason).toBe('tool_use');
  });

  it('surfaces our error envelope as an APIError with the Anthropic error type', async () => {
    const error = await client.messages.create({ model: 'reject', ...ask }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error).toMatchObject({ status: 422, requestID: null });
    expect((error as { error: { error: { type: string } } }).error.error.type).toBe('invalid_request_error');
  });

  it('throws on a mid-stream error event', async () => {
    const error = await client.messages.stream({ model: 'fail', ...ask }).finalMessage().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as Error).message).toContain('Overloaded');
  });
});
