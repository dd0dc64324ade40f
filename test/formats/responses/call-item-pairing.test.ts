import { describe, expect, it } from 'vitest';
import type { ChatRequest, ChatResponse, StreamPart } from '../../../src/ir/types.ts';
import { chatCodec } from '../../../src/formats/chat/index.ts';
import { messagesCodec } from '../../../src/formats/messages/index.ts';
import { responsesCodec } from '../../../src/formats/responses/index.ts';
import { encodeAll, parseEvents, STREAM_IDS } from '../stream-helpers.ts';

/**
 * A reasoning model's answer over a Responses upstream (an encrypted reasoning item, then a call
 * item `fc_…`) shown to a Messages or Chat client and sent back by it: OpenAI takes the reasoning
 * item back only followed by the very call item that followed it, by its id. A made-up id
 * (`fc_call_1`) is answered 400 "Item 'rs_…' of type 'reasoning' was provided without its
 * required following item".
 */
const request: ChatRequest = { model: 'm', system: [], messages: [], stream: false };
const answer: ChatResponse = {
  id: 'resp_1',
  model: 'gpt-5',
  created: 1,
  content: [
    { type: 'reasoning', text: '', itemId: 'rs_68e9', encrypted: 'gAAAAABsealed==' },
    { type: 'tool_call', id: 'call_1', itemId: 'fc_68e9a', name: 'get_weather', arguments: '{"city":"Paris"}' },
  ],
  finishReason: 'tool_calls',
  usage: { inputTokens: 1, outputTokens: 1 },
};

/** What a Responses upstream gets for the client's next turn. */
function upstreamInput(next: ChatRequest): Array<Record<string, unknown>> {
  return (responsesCodec.encodeRequest(next, { upstreamModel: 'gpt-5' }).input as Array<Record<string, unknown>>).filter((item) => item.type !== 'message');
}

const expected = [
  { type: 'reasoning', id: 'rs_68e9', summary: [], encrypted_content: 'gAAAAABsealed==' },
  { type: 'function_call', id: 'fc_68e9a', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
  { type: 'function_call_output', call_id: 'call_1', output: '18 C' },
];

describe('a Responses call item id, kept through a client of another format beside its reasoning', () => {
  it('Messages client, JSON answer', () => {
    const body = messagesCodec.encodeResponse(answer, request);
    const blocks = body.content as Array<Record<string, unknown>>;
    const call = blocks.find((b) => b.type === 'tool_use')!;
    const next = messagesCodec.decodeRequest({
      model: 'm',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'weather?' }, { role: 'assistant', content: blocks }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: '18 C' }] }],
    });
    expect(upstreamInput(next)).toEqual(expected);
  });

  it('Messages client, streamed answer', () => {
    const parts: StreamPart[] = [
      { type: 'start', id: 'resp_1', model: 'gpt-5', created: 1 },
      { type: 'reasoning-start', itemId: 'rs_68e9' },
      { type: 'reasoning-end', encrypted: 'gAAAAABsealed==' },
      { type: 'tool-call-start', index: 0, id: 'call_1', name: 'get_weather', itemId: 'fc_68e9a' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '{"city":"Paris"}' },
      { type: 'tool-call-end', index: 0 },
      { type: 'finish', finishReason: 'tool_calls' },
      { type: 'end' },
    ];
    const events = parseEvents(encodeAll(messagesCodec.createStreamEncoder({ ...request, stream: true }, STREAM_IDS), parts)).map((e) => e.data as Record<string, unknown>);
    const starts = events.filter((e) => e.type === 'content_block_start').map((e) => e.content_block as Record<string, unknown>);
    const signature = events.find((e) => e.type === 'content_block_delta' && (e.delta as { type: string }).type === 'signature_delta')!.delta as { signature: string };
    const call = starts.find((b) => b.type === 'tool_use')!;
    const next = messagesCodec.decodeRequest({
      model: 'm',
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: [{ type: 'thinking', thinking: '', signature: signature.signature }, { type: 'tool_use', id: call.id, name: 'get_weather', input: { city: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: '18 C' }] },
      ],
    });
    expect(upstreamInput(next)).toEqual(expected);
  });

  it('Chat client, JSON answer', () => {
    const body = chatCodec.encodeResponse(answer, request);
    const message = (body.choices as Array<{ message: Record<string, unknown> }>)[0].message;
    const calls = message.tool_calls as Array<{ id: string }>;
    const next = chatCodec.decodeRequest({
      model: 'm',
      messages: [{ role: 'user', content: 'weather?' }, message, { role: 'tool', tool_call_id: calls[0].id, content: '18 C' }],
    });
    expect(upstreamInput(next)).toEqual(expected);
  });

  it('a call with no encrypted reasoning before it keeps its plain id', () => {
    const plain: ChatResponse = { ...answer, content: [answer.content[1]] };
    const body = messagesCodec.encodeResponse(plain, request);
    expect((body.content as Array<Record<string, unknown>>)[0].id).toBe('call_1');
    const chat = chatCodec.encodeResponse(plain, request);
    expect((chat.choices as Array<{ message: { tool_calls: Array<{ id: string }> } }>)[0].message.tool_calls[0].id).toBe('call_1');
  });
});
