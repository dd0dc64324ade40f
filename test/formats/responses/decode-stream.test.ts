import { describe, expect, it } from 'vitest';
import type { StreamPart } from '../../../src/ir/types.ts';
import { decodeSse, joined, readFixture } from './helpers.ts';

const types = (parts: StreamPart[]): string[] => parts.map((part) => part.type);

describe('responses stream decoder', () => {
  it('decodes a text turn, whatever the byte split', () => {
    const text = readFixture('text-turn.sse.txt');
    for (const seed of [1, 7, 42, 99, 12345]) {
      const parts = decodeSse(text, seed);
      expect(types(parts)).toEqual(['start', 'text-start', 'text-delta', 'text-delta', 'text-delta', 'text-delta', 'text-end', 'finish', 'usage', 'end']);
      expect(joined(parts, 'text-delta')).toBe('Hello! How can I help? 👋');
    }
    const parts = decodeSse(text);
    expect(parts[0]).toEqual({ type: 'start', id: 'resp_68af0001text', model: 'gpt-5-mini-2025-08-07', created: 1756300000 });
    expect(parts.find((part) => part.type === 'finish')).toEqual({ type: 'finish', finishReason: 'stop' });
    expect(parts.find((part) => part.type === 'usage')).toEqual({ type: 'usage', usage: { inputTokens: 12, outputTokens: 9, cacheReadTokens: 4 } });
  });

  it('decodes a function call with argument deltas (id ← call_id, itemId ← fc_ id)', () => {
    const parts = decodeSse(readFixture('function-call.sse.txt'), 3);
    expect(parts.find((part) => part.type === 'tool-call-start')).toEqual({ type: 'tool-call-start', index: 0, id: 'call_Wx12', name: 'get_weather', itemId: 'fc_68af0002a' });
    const args = parts.flatMap((part) => (part.type === 'tool-call-delta' ? [part.argumentsDelta] : [])).join('');
    expect(args).toBe('{"city":"Paris"}');
    expect(parts.filter((part) => part.type === 'tool-call-end')).toEqual([{ type: 'tool-call-end', index: 0 }]);
    expect(parts.find((part) => part.type === 'finish')).toEqual({ type: 'finish', finishReason: 'tool_calls' });
  });

  it('gives parallel function calls their own indices', () => {
    const parts = decodeSse(readFixture('parallel-function-calls.sse.txt'), 5);
    const starts = parts.filter((part) => part.type === 'tool-call-start');
    expect(starts.map((part) => [part.index, part.id])).toEqual([[0, 'call_A1'], [1, 'call_B2']]);
    const argsFor = (index: number): string =>
      parts.flatMap((part) => (part.type === 'tool-call-delta' && part.index === index ? [part.argumentsDelta] : [])).join('');
    expect(argsFor(0)).toBe('{"city":"Paris"}');
    expect(argsFor(1)).toBe('{"city":"Tokyo"}');
    expect(types(parts).slice(-3)).toEqual(['finish', 'usage', 'end']);
  });

  it('decodes a reasoning turn: summary parts joined, encrypted_content kept byte-exact', () => {
    const parts = decodeSse(readFixture('reasoning.sse.txt'), 11);
    expect(parts[1]).toEqual({ type: 'reasoning-start', itemId: 'rs_68af0004a' });
    expect(joined(parts, 'reasoning-delta')).toBe('**Planning** the answer\n\nChecking arithmetic');
    expect(parts.find((part) => part.type === 'reasoning-end')).toEqual({ type: 'reasoning-end', encrypted: 'gAAAAABor-ENC_payload_opaque==' });
    expect(joined(parts, 'text-delta')).toBe('2 + 2 = 4');
    const order = types(parts).filter((type) => type.endsWith('-start') || type.endsWith('-end'));
    expect(order).toEqual(['reasoning-start', 'reasoning-end', 'text-start', 'text-end']);
    expect(parts.find((part) => part.type === 'usage')).toEqual({ type: 'usage', usage: { inputTokens: 30, outputTokens: 200, reasoningTokens: 160 } });
  });

  it('maps response.incomplete (max_output_tokens) to finish length', () => {
    const parts = decodeSse(readFixture('incomplete.sse.txt'), 2);
    expect(joined(parts, 'text-delta')).toBe('Once upon a time, there');
    expect(parts.find((part) => part.type === 'finish')).toEqual({ type: 'finish', finishReason: 'length' });
    expect(parts.at(-1)).toEqual({ type: 'end' });
  });

  it('turns an error event followed by response.failed into one error part and end', () => {
    const parts = decodeSse(readFixture('error.sse.txt'), 4);
    expect(types(parts)).toEqual(['start', 'error', 'end']);
    const error = parts[1];
    expect(error.type === 'error' && error.error.message).toMatch(/exceeded your current quota/);
  });

  it('a response.failed that reports usage (tokens, web searches) yields it after the error, as a passthrough bills it', () => {
    const record = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    const response = { id: 'resp_f', model: 'gpt-5', status: 'failed', output: [{ type: 'web_search_call', id: 'ws_1', status: 'completed' }], error: { code: 'server_error', message: 'boom' }, usage: { input_tokens: 40, output_tokens: 7 } };
    const text = record('response.created', { type: 'response.created', response: { ...response, status: 'in_progress', output: [], usage: null, error: null } }) + record('response.failed', { type: 'response.failed', response });
    const parts = decodeSse(text, 3);
    expect(types(parts)).toEqual(['start', 'error', 'usage', 'end']);
    expect(parts[2]).toEqual({ type: 'usage', usage: { inputTokens: 40, outputTokens: 7, webSearchRequests: 1 } });
  });

  it('reads a flat error event, the open text block left open (as Anthropic and the other decoders leave it); end() adds only end', () => {
    const parts = decodeSse(readFixture('error-flat.sse.txt'), 6);
    expect(types(parts)).toEqual(['start', 'text-start', 'text-delta', 'error', 'end']);
    const error = parts[3];
    expect(error).toEqual({ type: 'error', error: { code: 'rate_limit_exceeded', message: 'Rate limit reached for requests', status: 429, upstreamCode: 'rate_limit_exceeded' } });
  });

  it('reports a stream cut before response.completed as a provider error', () => {
    const text = readFixture('text-turn.sse.txt');
    const cut = text.slice(0, text.indexOf('event: response.output_text.done'));
    const parts = decodeSse(cut);
    expect(types(parts).slice(-4)).toEqual(['text-delta', 'text-end', 'error', 'end']);
    expect(parts.at(-2)).toMatchObject({ type: 'error', error: { code: 'provider_error', status: 502 } });
  });

  it('falls back to .done events when an upstream sends no deltas', () => {
    const sse = [
      { type: 'response.created', sequence_number: 0, response: { id: 'resp_1', model: 'm', created_at: 1 } },
      { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [] } },
      { type: 'response.output_item.done', sequence_number: 2, output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'thought' }] } },
      { type: 'response.output_item.added', sequence_number: 3, output_index: 1, item: { id: 'msg_1', type: 'message', role: 'assistant', content: [] } },
      { type: 'response.output_item.done', sequence_number: 4, output_index: 1, item: { id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'answer', annotations: [] }] } },
      { type: 'response.output_item.added', sequence_number: 5, output_index: 2, item: { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'f', arguments: '' } },
      { type: 'response.output_item.done', sequence_number: 6, output_index: 2, item: { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{"a":1}' } },
      { type: 'response.completed', sequence_number: 7, response: { id: 'resp_1', status: 'completed', usage: null } },
    ].map((data) => `data: ${JSON.stringify(data)}\n\n`).join('');
    const parts = decodeSse(sse);
    expect(types(parts)).toEqual([
      'start', 'reasoning-start', 'reasoning-delta', 'reasoning-end', 'text-start', 'text-delta', 'text-end',
      'tool-call-start', 'tool-call-delta', 'tool-call-end', 'finish', 'end',
    ]);
    expect(joined(parts, 'reasoning-delta')).toBe('thought');
    expect(joined(parts, 'text-delta')).toBe('answer');
  });

  it('keeps an empty reasoning item that has an id (a stored OpenAI response resolves it by id)', () => {
    const sse = [
      { type: 'response.created', response: { id: 'resp_3', model: 'o4-mini', created_at: 3 } },
      { type: 'response.output_item.added', output_index: 0, item: { id: 'rs_3', type: 'reasoning', summary: [] } },
      { type: 'response.output_item.done', output_index: 0, item: { id: 'rs_3', type: 'reasoning', summary: [] } },
      { type: 'response.output_item.added', output_index: 1, item: { type: 'reasoning', summary: [] } },
      { type: 'response.output_item.done', output_index: 1, item: { type: 'reasoning', summary: [] } },
      { type: 'response.completed', response: { id: 'resp_3', status: 'completed' } },
    ].map((data, i) => `data: ${JSON.stringify({ ...data, sequence_number: i })}\n\n`).join('');
    expect(decodeSse(sse).map((part) => part.type)).toEqual(['start', 'reasoning-start', 'reasoning-end', 'finish', 'end']);
    expect(decodeSse(sse)[1]).toEqual({ type: 'reasoning-start', itemId: 'rs_3' });
  });

  it('decodes reasoning_text (raw reasoning) and refusals', () => {
    const sse = [
      { type: 'response.created', response: { id: 'resp_2', model: 'gpt-oss', created_at: 2 } },
      { type: 'response.output_item.added', output_index: 0, item: { id: 'rs_2', type: 'reasoning', summary: [] } },
      { type: 'response.content_part.added', item_id: 'rs_2', output_index: 0, content_index: 0, part: { type: 'reasoning_text', text: '' } },
      { type: 'response.reasoning_text.delta', item_id: 'rs_2', output_index: 0, content_index: 0, delta: 'raw ' },
      { type: 'response.reasoning_text.delta', item_id: 'rs_2', output_index: 0, content_index: 0, delta: 'thinking' },
      { type: 'response.reasoning_text.done', item_id: 'rs_2', output_index: 0, content_index: 0, text: 'raw thinking' },
      { type: 'response.output_item.done', output_index: 0, item: { id: 'rs_2', type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'raw thinking' }] } },
      { type: 'response.output_item.added', output_index: 1, item: { id: 'msg_2', type: 'message', role: 'assistant', content: [] } },
      { type: 'response.content_part.added', item_id: 'msg_2', output_index: 1, content_index: 0, part: { type: 'refusal', refusal: '' } },
      { type: 'response.refusal.delta', item_id: 'msg_2', output_index: 1, content_index: 0, delta: 'I cannot' },
      { type: 'response.refusal.done', item_id: 'msg_2', output_index: 1, content_index: 0, refusal: 'I cannot' },
      { type: 'response.output_item.done', output_index: 1, item: { id: 'msg_2', type: 'message', role: 'assistant', content: [{ type: 'refusal', refusal: 'I cannot' }] } },
      { type: 'response.incomplete', response: { id: 'resp_2', status: 'incomplete', incomplete_details: { reason: 'content_filter' } } },
    ].map((data, i) => `event: ${data.type}\ndata: ${JSON.stringify({ ...data, sequence_number: i })}\n\n`).join('');
    const parts = decodeSse(sse);
    expect(joined(parts, 'reasoning-delta')).toBe('raw thinking');
    expect(joined(parts, 'refusal-delta')).toBe('I cannot');
    expect(parts.find((part) => part.type === 'finish')).toEqual({ type: 'finish', finishReason: 'content_filter' });
  });
});
