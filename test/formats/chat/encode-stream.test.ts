import { describe, expect, it } from 'vitest';
import type { ChatRequest, StreamPart } from '../../../src/ir/types.ts';
import { chatCodec } from '../../../src/formats/chat/index.ts';
import { messagesCodec } from '../../../src/formats/messages/index.ts';
import { encodeAll, parseEvents, readFixture, translateStream, STREAM_IDS } from '../stream-helpers.ts';

const withUsage: ChatRequest = { model: 'm', system: [], messages: [], stream: true, includeUsage: true };
const withoutUsage: ChatRequest = { ...withUsage, includeUsage: false };

const turn: StreamPart[] = [
  { type: 'start', id: 'msg_01', model: 'claude-sonnet-4', created: 1700000000 },
  { type: 'reasoning-start', origin: 'anthropic' },
  { type: 'reasoning-delta', text: 'Think' },
  { type: 'reasoning-signature', signature: 'SIG' },
  { type: 'reasoning-end' },
  { type: 'redacted-reasoning', data: 'OPAQUE' },
  { type: 'text-start' },
  { type: 'text-delta', text: 'Hi' },
  { type: 'text-end' },
  { type: 'tool-call-start', index: 0, id: 'toolu_A', name: 'f' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '' },
  { type: 'tool-call-delta', index: 0, argumentsDelta: '{"a":1}' },
  { type: 'tool-call-end', index: 0 },
  { type: 'tool-call-start', index: 1, id: 'toolu_B', name: 'g' },
  { type: 'tool-call-end', index: 1 },
  { type: 'finish', finishReason: 'tool_calls' },
  { type: 'usage', usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 2 } },
  { type: 'end' },
];

describe('chat stream encoder', () => {
  const events = parseEvents(encodeAll(chatCodec.createStreamEncoder(withUsage, STREAM_IDS), turn));
  const chunks = events.slice(0, -1).map((e) => e.data);

  it('starts with the role chunk and ends with [DONE]', () => {
    expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(events.at(-1)?.data).toBe('[DONE]');
    expect(events.every((e) => e.event === undefined)).toBe(true);
  });

  it('repeats the same chatcmpl- id (the upstream msg_ id inside), created and model on every chunk', () => {
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ id: 'chatcmpl-msg_01', object: 'chat.completion.chunk', created: 1700000000, model: 'claude-sonnet-4' });
    }
  });

  it('sends reasoning as reasoning_content and reasoning_details (signature, redacted) before content', () => {
    const deltas = chunks.map((c) => c.choices[0]?.delta);
    expect(deltas[1]).toEqual({
      reasoning_content: 'Think',
      reasoning_details: [{ type: 'reasoning.text', text: 'Think', index: 0, format: 'anthropic-claude-v1' }],
    });
    expect(deltas[2]).toEqual({ reasoning_details: [{ type: 'reasoning.text', text: '', signature: 'SIG', index: 0, format: 'anthropic-claude-v1' }] });
    expect(deltas[3]).toEqual({ reasoning_details: [{ type: 'reasoning.encrypted', data: 'OPAQUE', format: 'anthropic-claude-v1', index: 1 }] });
    expect(deltas[4]).toEqual({ content: 'Hi' });
  });

  it('keys tool calls by index: first chunk with id/type/name and empty arguments, then fragments; empty fragments skipped; "{}" for a call without any', () => {
    const deltas = chunks.map((c) => c.choices[0]?.delta).filter((d) => d?.tool_calls);
    expect(deltas).toEqual([
      { tool_calls: [{ index: 0, id: 'toolu_A', type: 'function', function: { name: 'f', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"a":1}' } }] },
      { tool_calls: [{ index: 1, id: 'toolu_B', type: 'function', function: { name: 'g', arguments: '' } }] },
      { tool_calls: [{ index: 1, function: { arguments: '{}' } }] },
    ]);
  });

  it('sends the finish chunk with an empty delta, then the usage chunk with choices:[]', () => {
    const finish = chunks.at(-2);
    expect(finish.choices).toEqual([{ index: 0, delta: {}, logprobs: null, finish_reason: 'tool_calls' }]);
    const usage = chunks.at(-1);
    expect(usage.choices).toEqual([]);
    expect(usage.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, prompt_tokens_details: { cached_tokens: 2 } });
  });

  it('omits the usage chunk when the client did not ask for it', () => {
    const plain = parseEvents(encodeAll(chatCodec.createStreamEncoder(withoutUsage, STREAM_IDS), turn));
    expect(plain.some((e) => typeof e.data === 'object' && Array.isArray(e.data.choices) && e.data.choices.length === 0)).toBe(false);
    expect(plain.at(-1)?.data).toBe('[DONE]');
  });

  it('encodes an error part as data: {"error":…} without [DONE]', () => {
    const out = encodeAll(chatCodec.createStreamEncoder(withUsage, STREAM_IDS), [
      { type: 'start', id: 'c', model: 'm', created: 1 },
      { type: 'text-delta', text: 'Part' },
      { type: 'error', error: { code: 'provider_unavailable', message: 'Overloaded', status: 503 } },
      { type: 'end' },
    ]);
    const events2 = parseEvents(out);
    // The same body as any other error of the route (spec §7 envelope), which the openai SDK throws as an APIError.
    expect(events2.at(-1)?.data).toEqual({ error: { message: 'Overloaded', type: 'api_error', param: null, code: 'provider_unavailable', request_id: 'req_test' }, timestamp: expect.any(Number), correlation_id: 'req_test' });
    expect(out).not.toContain('[DONE]');
  });

  it('emits the role chunk and a finish even when start and finish are missing', () => {
    const events3 = parseEvents(encodeAll(chatCodec.createStreamEncoder(withoutUsage, STREAM_IDS), [{ type: 'text-delta', text: 'x' }, { type: 'end' }]));
    expect(events3[0].data.choices[0].delta.role).toBe('assistant');
    expect(events3[0].data.id).toMatch(/^chatcmpl-/);
    expect(events3.at(-2)?.data.choices[0].finish_reason).toBe('stop');
  });

  it('translates an Anthropic thinking stream (split at 3 bytes) into Chat chunks', () => {
    const out = translateStream(messagesCodec, chatCodec, withUsage, readFixture('messages/stream-thinking.sse.txt'), 3);
    const data = parseEvents(out).map((e) => e.data);
    const reasoning = data.flatMap((d) => (d.choices?.[0]?.delta?.reasoning_content ? [d.choices[0].delta.reasoning_content] : [])).join('');
    expect(reasoning).toBe('Let me solve this step by step:\n\n1. 27 * 453 = 12231');
    const details = data.flatMap((d) => d.choices?.[0]?.delta?.reasoning_details ?? []);
    expect(details.filter((d: { signature?: string }) => d.signature)).toEqual([
      { type: 'reasoning.text', text: '', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds+ATjxoUOvwMUBpsnl/Q==', index: 0, format: 'anthropic-claude-v1' },
    ]);
    expect(details.filter((d: { type: string }) => d.type === 'reasoning.encrypted')).toHaveLength(1);
    expect(data.at(-2).usage).toMatchObject({ prompt_tokens: 30, completion_tokens: 120, completion_tokens_details: { reasoning_tokens: 90 } });
    expect(data.at(-1)).toBe('[DONE]');
  });

  it('translates an Anthropic tool_use stream: own tool index, no empty argument chunks', () => {
    const out = translateStream(messagesCodec, chatCodec, withoutUsage, readFixture('messages/stream-tool-use.sse.txt'), 7);
    const calls = parseEvents(out).flatMap((e) => (typeof e.data === 'object' ? (e.data.choices?.[0]?.delta?.tool_calls ?? []) : []));
    expect(calls).toEqual([
      { index: 0, id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', type: 'function', function: { name: 'get_weather', arguments: '' } },
      { index: 0, function: { arguments: '{"location":' } },
      { index: 0, function: { arguments: ' "San Francisco, CA"}' } },
      { index: 1, id: 'toolu_02NoArgs', type: 'function', function: { name: 'get_location', arguments: '' } },
      { index: 1, function: { arguments: '{}' } },
    ]);
  });

  it('writes content chunks exactly as the chunk object would serialize (the fast path for text)', () => {
    const encoder = chatCodec.createStreamEncoder({ model: 'm', system: [], messages: [], stream: true }, STREAM_IDS);
    encoder.encode({ type: 'start', id: 'x1', model: 'mo\\del', created: 1_700_000_000 });
    const [record] = encoder.encode({ type: 'text-delta', text: 'a "quote"\n\u2028 and é' });
    expect(record.data).toBe(
      JSON.stringify({
        id: 'chatcmpl-x1',
        object: 'chat.completion.chunk',
        created: 1_700_000_000,
        model: 'mo\\del',
        choices: [{ index: 0, delta: { content: 'a "quote"\n\u2028 and é' }, logprobs: null, finish_reason: null }],
      }),
    );
  });
});

