import { describe, expect, it } from 'vitest';
import type { ChatRequest, StreamPart } from '../../../src/ir/types.ts';
import { responsesCodec } from '../../../src/formats/responses/index.ts';
import { carryOpaque, readCarried } from '../../../src/formats/shared/index.ts';
import { decodeSse, parseEvents, readFixture, type EncodedEvent } from './helpers.ts';
import { writeSse } from '../../../src/sse/index.ts';
import { STREAM_IDS } from '../stream-helpers.ts';

const request: ChatRequest = { model: 'gw/model', system: [{ type: 'text', text: 'Be brief.' }], messages: [], stream: true };

function encodeAll(parts: StreamPart[], req: ChatRequest = request): { events: EncodedEvent[]; chunks: string[] } {
  const encoder = responsesCodec.createStreamEncoder(req, STREAM_IDS);
  const chunks = parts.map((part) => writeSse(encoder.encode(part)));
  return { events: parseEvents(chunks.join('')), chunks };
}

/** The invariants every encoded stream must keep (wire-formats §3.6, §4.8). */
function checkInvariants(events: EncodedEvent[]): void {
  events.forEach((event, index) => {
    expect(event.data.type).toBe(event.event);
    expect(event.data.sequence_number).toBe(index);
  });
  const added = new Map<number, string>();
  const doneItems: unknown[] = [];
  for (const { data } of events) {
    if (data.type === 'response.output_item.added') {
      const item = data.item as { id: string };
      expect(added.has(data.output_index as number)).toBe(false);
      expect(data.output_index).toBe(added.size);
      added.set(data.output_index as number, item.id);
    } else if (data.type === 'response.output_item.done') {
      expect((data.item as { id: string }).id).toBe(added.get(data.output_index as number));
      doneItems[data.output_index as number] = data.item;
    } else if ('item_id' in data) {
      expect(data.item_id).toBe(added.get(data.output_index as number));
    }
  }
  const last = events.at(-1)!.data;
  expect(['response.completed', 'response.incomplete', 'response.failed']).toContain(last.type);
  if (last.type !== 'response.failed') expect((last.response as { output: unknown[] }).output).toEqual(doneItems);
}

const start: StreamPart = { type: 'start', id: 'chatcmpl-abc', model: 'gpt-4o', created: 1700000000 };
const usage: StreamPart = { type: 'usage', usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 2 } };

describe('responses stream encoder', () => {
  it('emits the full event sequence of a text turn', () => {
    const { events } = encodeAll([start, { type: 'text-start' }, { type: 'text-delta', text: 'Hi' }, { type: 'text-delta', text: ' there' }, { type: 'text-end' }, { type: 'finish', finishReason: 'stop' }, usage, { type: 'end' }]);
    expect(events.map((event) => event.event)).toEqual([
      'response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added',
      'response.output_text.delta', 'response.output_text.delta', 'response.output_text.done', 'response.content_part.done',
      'response.output_item.done', 'response.completed',
    ]);
    checkInvariants(events);
    const created = events[0].data.response as Record<string, unknown>;
    expect(created).toMatchObject({ id: 'resp_chatcmpl-abc', object: 'response', status: 'in_progress', output: [], usage: null, instructions: 'Be brief.', model: 'gpt-4o' });
    expect(events[6].data).toMatchObject({ text: 'Hi there', content_index: 0, output_index: 0 });
    const completed = events.at(-1)!.data.response as Record<string, unknown>;
    expect(completed.status).toBe('completed');
    expect(completed.usage).toEqual({ input_tokens: 10, input_tokens_details: { cached_tokens: 2 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 });
    expect(completed.output).toEqual([
      { id: expect.stringMatching(/^msg_/), type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hi there', annotations: [], logprobs: [] }] },
    ]);
  });

  it('holds response.completed after finish until usage arrives (Chat upstream order)', () => {
    const encoder = responsesCodec.createStreamEncoder(request, STREAM_IDS);
    writeSse(encoder.encode(start));
    writeSse(encoder.encode({ type: 'text-delta', text: 'x' }));
    const atFinish = writeSse(encoder.encode({ type: 'finish', finishReason: 'stop' }));
    expect(atFinish).toContain('response.output_item.done');
    expect(atFinish).not.toContain('response.completed');
    const atUsage = writeSse(encoder.encode(usage));
    expect(atUsage).toContain('event: response.completed');
    expect(writeSse(encoder.encode({ type: 'end' }))).toBe('');
  });

  it('completes at end when no usage ever comes, with the start usage if any', () => {
    const { events } = encodeAll([{ ...start, usage: { inputTokens: 7 } }, { type: 'text-delta', text: 'x' }, { type: 'finish', finishReason: 'stop' }, { type: 'end' }]);
    checkInvariants(events);
    expect((events.at(-1)!.data.response as { usage: { input_tokens: number } }).usage.input_tokens).toBe(7);
  });

  it('keeps one message per contiguous text run, several content parts inside', () => {
    const { events } = encodeAll([
      start,
      { type: 'text-start' }, { type: 'text-delta', text: 'a' }, { type: 'text-end' },
      { type: 'text-start' }, { type: 'text-delta', text: 'b' }, { type: 'text-end' },
      { type: 'tool-call-start', index: 0, id: 'call_1', name: 'f' }, { type: 'tool-call-end', index: 0 },
      { type: 'text-start' }, { type: 'text-delta', text: 'c' }, { type: 'text-end' },
      { type: 'finish', finishReason: 'stop' }, usage,
    ]);
    checkInvariants(events);
    const output = (events.at(-1)!.data.response as { output: Array<{ type: string; content?: unknown[] }> }).output;
    expect(output.map((item) => item.type)).toEqual(['message', 'function_call', 'message']);
    expect(output[0].content).toHaveLength(2);
    const contentIndexes = events.filter((e) => e.event === 'response.output_text.delta').map((e) => [e.data.output_index, e.data.content_index]);
    expect(contentIndexes).toEqual([[0, 0], [0, 1], [2, 0]]);
  });

  it('encodes parallel tool calls with interleaved argument deltas', () => {
    const { events } = encodeAll([
      start,
      { type: 'tool-call-start', index: 0, id: 'call_A', name: 'get_weather' },
      { type: 'tool-call-start', index: 1, id: 'call_B', name: 'get_time', itemId: 'fc_kept' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":' },
      { type: 'tool-call-delta', index: 1, argumentsDelta: '{}' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '"Paris"}' },
      { type: 'tool-call-end', index: 0 },
      { type: 'tool-call-end', index: 1 },
      { type: 'finish', finishReason: 'tool_calls' }, usage,
    ]);
    checkInvariants(events);
    const output = (events.at(-1)!.data.response as { output: unknown[] }).output;
    expect(output).toEqual([
      { id: 'fc_call_A', type: 'function_call', status: 'completed', arguments: '{"city":"Paris"}', call_id: 'call_A', name: 'get_weather' },
      { id: 'fc_kept', type: 'function_call', status: 'completed', arguments: '{}', call_id: 'call_B', name: 'get_time' },
    ]);
    const argsDone = events.filter((e) => e.event === 'response.function_call_arguments.done').map((e) => e.data.arguments);
    expect(argsDone).toEqual(['{"city":"Paris"}', '{}']);
    expect(events.at(-1)!.event).toBe('response.completed');
  });

  it('ends a call that streamed no arguments with "{}" (a delta, the .done event and the item agree)', () => {
    const { events } = encodeAll([
      { type: 'start', id: 'msg_1', model: 'm', created: 1 },
      { type: 'tool-call-start', index: 0, id: 'toolu_N', name: 'get_location' },
      { type: 'tool-call-end', index: 0 },
      { type: 'finish', finishReason: 'tool_calls' },
      { type: 'end' },
    ]);
    checkInvariants(events);
    expect(events.filter((e) => e.event === 'response.function_call_arguments.delta').map((e) => e.data.delta)).toEqual(['{}']);
    expect(events.find((e) => e.event === 'response.function_call_arguments.done')?.data.arguments).toBe('{}');
    expect((events.at(-1)?.data.response as { output: Array<{ arguments: string }> }).output[0].arguments).toBe('{}');
  });

  it('encodes reasoning with summary events and stashes an Anthropic signature in encrypted_content', () => {
    const { events } = encodeAll([
      start,
      { type: 'reasoning-start' }, { type: 'reasoning-delta', text: 'Let me ' }, { type: 'reasoning-delta', text: 'think.' },
      { type: 'reasoning-signature', signature: 'EqQBCkYIBRgCKkD+sig/==' }, { type: 'reasoning-end' },
      { type: 'text-delta', text: 'Done.' }, { type: 'finish', finishReason: 'stop' }, usage,
    ]);
    checkInvariants(events);
    expect(events.slice(2, 9).map((e) => e.event)).toEqual([
      'response.output_item.added', 'response.reasoning_summary_part.added', 'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.delta', 'response.reasoning_summary_text.done', 'response.reasoning_summary_part.done',
      'response.output_item.done',
    ]);
    const item = events[8].data.item as { id: string; summary: unknown; encrypted_content: string };
    expect(item.id).toMatch(/^rs_/);
    expect(item.summary).toEqual([{ type: 'summary_text', text: 'Let me think.' }]);
    expect(item.encrypted_content.startsWith('gwpm:')).toBe(true);
    expect(readCarried(item.encrypted_content)).toEqual({ signature: 'EqQBCkYIBRgCKkD+sig/==' });
  });

  it('keeps OpenAI encrypted_content byte-exact and the reasoning item id', () => {
    const { events } = encodeAll([start, { type: 'reasoning-start', itemId: 'rs_up' }, { type: 'reasoning-end', encrypted: 'gAAAA/opaque==' }, { type: 'end' }]);
    const done = events.find((e) => e.event === 'response.output_item.done')!.data.item;
    expect(done).toEqual({ id: 'rs_up', type: 'reasoning', summary: [], encrypted_content: 'gAAAA/opaque==' });
  });

  it('encodes redacted thinking as a reasoning item with a stashed payload', () => {
    const { events } = encodeAll([start, { type: 'redacted-reasoning', data: 'EmwKAhgBEgy3va' }, { type: 'finish', finishReason: 'stop' }, usage]);
    checkInvariants(events);
    const item = events.find((e) => e.event === 'response.output_item.done')!.data.item as { encrypted_content: string };
    expect(readCarried(item.encrypted_content)).toEqual({ redacted: 'EmwKAhgBEgy3va' });
  });

  it('emits response.incomplete with incomplete_details for a length finish', () => {
    const { events } = encodeAll([start, { type: 'text-delta', text: 'cut' }, { type: 'finish', finishReason: 'length' }, usage]);
    checkInvariants(events);
    const last = events.at(-1)!;
    expect(last.event).toBe('response.incomplete');
    expect(last.data.response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    expect((last.data.response as { output: Array<{ status: string }> }).output[0].status).toBe('incomplete');
  });

  it('encodes refusals as refusal content parts', () => {
    const { events } = encodeAll([start, { type: 'refusal-delta', text: "I can't" }, { type: 'refusal-delta', text: ' help.' }, { type: 'finish', finishReason: 'content_filter' }, usage]);
    checkInvariants(events);
    expect(events.filter((e) => e.event === 'response.refusal.delta')).toHaveLength(2);
    expect(events.find((e) => e.event === 'response.refusal.done')!.data.refusal).toBe("I can't help.");
  });

  it('reports an error mid-stream as error + response.failed, continuing the sequence numbers', () => {
    const { events, chunks } = encodeAll([
      start, { type: 'text-delta', text: 'partial' },
      { type: 'error', error: { code: 'provider_error', message: 'upstream broke', status: 502 } },
      { type: 'text-delta', text: 'ignored' }, { type: 'end' },
    ]);
    expect(chunks.slice(3)).toEqual(['', '']);
    checkInvariants(events);
    const error = events.at(-2)!;
    expect(error.event).toBe('error');
    expect(error.data).toMatchObject({ type: 'error', code: 'provider_error', message: 'upstream broke', param: null, error: { type: 'api_error', code: 'provider_error', message: 'upstream broke' } });
    expect(events.at(-1)!.data.response).toMatchObject({ status: 'failed', error: { code: 'provider_error', message: 'upstream broke' } });
  });

  it('starts the response before reporting an error that comes first', () => {
    const { events } = encodeAll([{ type: 'error', error: { code: 'rate_limit_exceeded', message: 'slow down', status: 429 } }]);
    expect(events.map((e) => e.event)).toEqual(['response.created', 'response.in_progress', 'error', 'response.failed']);
    checkInvariants(events);
  });

  it('re-encodes every decoded fixture to an equivalent stream', () => {
    for (const name of ['text-turn', 'function-call', 'parallel-function-calls', 'reasoning', 'incomplete', 'unknown-events']) {
      const decoded = decodeSse(readFixture(`${name}.sse.txt`), 9);
      const { events, chunks } = encodeAll(decoded);
      checkInvariants(events);
      const strip = (parts: StreamPart[]): unknown[] => parts.filter((part) => part.type !== 'start');
      expect(strip(decodeSse(chunks.join(''), 3)), name).toEqual(strip(decoded));
    }
  });
});
