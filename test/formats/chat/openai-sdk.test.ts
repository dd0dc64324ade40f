/**
 * Proves the official openai SDK reads our Chat encodings natively. The SDK talks to an
 * in-process fetch that decodes its request with our codec and answers with our encoders
 * (no socket, no internet).
 */
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { validationError } from '../../../src/errors/index.ts';
import type { ChatRequest, ChatResponse, StreamPart } from '../../../src/ir/types.ts';
import { chatCodec } from '../../../src/formats/chat/index.ts';
import { messagesCodec } from '../../../src/formats/messages/index.ts';
import { encodePart, readFixture, runStream, STREAM_IDS } from '../stream-helpers.ts';

const ids = { requestId: 'req_sdk', correlationId: 'cor_sdk' };

function respond(request: ChatRequest): Response {
  if (request.model === 'reject') return json(422, chatCodec.encodeError(validationError({ 'messages[0].role': 'is invalid' }), ids));
  if (!request.stream) {
    const answer: ChatResponse = messagesCodec.decodeResponse(JSON.parse(readFixture('messages/response-thinking.json')));
    return json(200, chatCodec.encodeResponse(answer, request));
  }
  const parts: StreamPart[] =
    request.model === 'fail'
      ? [
          { type: 'start', id: 'chatcmpl-f', model: 'm', created: 1 },
          { type: 'text-delta', text: 'Part' },
          { type: 'error', error: { code: 'provider_unavailable', message: 'Overloaded', status: 503 } },
        ]
      : runStream(messagesCodec, readFixture('messages/stream-tool-use.sse.txt'), 5);
  const encoder = chatCodec.createStreamEncoder(request, STREAM_IDS);
  const body = parts.map((part) => encodePart(encoder, part)).join('');
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

const client = new OpenAI({
  apiKey: 'sk-test',
  baseURL: 'http://127.0.0.1:9/v1',
  maxRetries: 0,
  fetch: async (_url: string | URL | Request, init?: RequestInit) => respond(chatCodec.decodeRequest(JSON.parse(String(init?.body)))),
});

describe('openai SDK against the chat encoders', () => {
  it('reads a non-streamed completion with reasoning fields and tool calls', async () => {
    const completion = await client.chat.completions.create({ model: 'claude', messages: [{ role: 'user', content: 'hi' }] });
    const message = completion.choices[0].message as typeof completion.choices[0]['message'] & { reasoning_content?: string };
    expect(message.content).toBe("Based on my analysis, I'll check.");
    expect(message.reasoning_content).toBe('Let me analyze this step by step...');
    expect(message.tool_calls?.[0]).toMatchObject({ id: 'toolu_01A09q90qw90lq917835lq9', function: { name: 'get_weather' } });
    expect(completion.usage?.prompt_tokens).toBe(1250);
  });

  it('accumulates a translated Anthropic tool stream with the stream helper', async () => {
    const stream = client.chat.completions.stream({ model: 'claude', messages: [{ role: 'user', content: 'hi' }], stream_options: { include_usage: true } });
    const final = await stream.finalChatCompletion();
    const message = final.choices[0].message;
    expect(message.content).toBe('Okay, let me check.');
    expect(message.tool_calls?.map((call) => call.type === 'function' && [call.id, call.function.name, call.function.arguments])).toEqual([
      ['toolu_01T1x1fJ34qAmk2tNTrN7Up6', 'get_weather', '{"location": "San Francisco, CA"}'],
      ['toolu_02NoArgs', 'get_location', '{}'],
    ]);
    expect(final.choices[0].finish_reason).toBe('tool_calls');
    expect(final.usage).toMatchObject({ prompt_tokens: 472, completion_tokens: 89 });
  });

  it('surfaces our error envelope as an APIError with status, code, type and param', async () => {
    const error = await client.chat.completions.create({ model: 'reject', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ status: 422, code: 'validation_error', type: 'invalid_request_error', param: 'messages[0].role' });
  });

  it('throws on a mid-stream error event', async () => {
    const stream = await client.chat.completions.create({ model: 'fail', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    const seen: string[] = [];
    const error = await (async () => {
      for await (const chunk of stream) seen.push(chunk.choices[0]?.delta?.content ?? '');
    })().catch((e: unknown) => e);
    expect(seen.join('')).toBe('Part');
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toContain('Overloaded');
  });
});
