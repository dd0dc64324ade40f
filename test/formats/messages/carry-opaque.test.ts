import { describe, expect, it } from 'vitest';
import type { ChatRequest, StreamPart } from '../../../src/ir/types.ts';
import { messagesCodec } from '../../../src/formats/messages/index.ts';
import { CARRY_PREFIX, carryOpaque, readCarried } from '../../../src/formats/shared/index.ts';
import { responsesCodec } from '../../../src/formats/responses/index.ts';
import { encodeAll, parseEvents, STREAM_IDS } from '../stream-helpers.ts';

const request: ChatRequest = { model: 'm', system: [], messages: [], stream: true };
const openaiReasoning = { itemId: 'rs_68af0009a', encrypted: 'gAAAAABopaque==' };
const carriedForm = { id: 'rs_68af0009a', encrypted: 'gAAAAABopaque==' };

describe('OpenAI reasoning carried in a Messages thinking signature', () => {
  it('round-trips id and encrypted content; Anthropic signatures are not ours', () => {
    const signature = carryOpaque(carriedForm);
    expect(signature.startsWith(CARRY_PREFIX)).toBe(true);
    expect(readCarried(signature)).toEqual(carriedForm);
    expect(readCarried('EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxB')).toBeUndefined();
    expect(readCarried(`${CARRY_PREFIX}not-json`)).toBeUndefined();
    // written by earlier versions
    expect(readCarried(`gwoai:${Buffer.from(JSON.stringify(carriedForm)).toString('base64url')}`)).toEqual(carriedForm);
  });

  it('a JSON answer gives the thinking block the stash; the client sending it back restores the item', () => {
    const body = messagesCodec.encodeResponse(
      { id: 'resp_1', model: 'gpt-5', created: 1, content: [{ type: 'reasoning', text: 'Need the weather.', ...openaiReasoning }, { type: 'text', text: 'ok' }], finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } },
      request,
    );
    const thinking = (body.content as Array<Record<string, unknown>>)[0];
    expect(thinking).toEqual({ type: 'thinking', thinking: 'Need the weather.', signature: carryOpaque(carriedForm) });
    const next = messagesCodec.decodeRequest({
      model: 'm',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: body.content }, { role: 'user', content: 'more' }],
    });
    expect(next.messages[1].content[0]).toEqual({ type: 'reasoning', text: 'Need the weather.', ...openaiReasoning });
    const upstream = responsesCodec.encodeRequest(next, { upstreamModel: 'gpt-5' });
    expect((upstream.input as Array<Record<string, unknown>>)[1]).toEqual({
      type: 'reasoning',
      id: 'rs_68af0009a',
      summary: [{ type: 'summary_text', text: 'Need the weather.' }],
      encrypted_content: 'gAAAAABopaque==',
    });
    // …and never reaches an Anthropic upstream as if it were a signature.
    const anthropic = messagesCodec.encodeRequest(next, { upstreamModel: 'claude' });
    expect(JSON.stringify(anthropic.messages)).not.toContain(CARRY_PREFIX);
  });

  it('a stream sends the stash as the signature_delta before the thinking block closes, even without summary text', () => {
    const parts: StreamPart[] = [
      { type: 'start', id: 'resp_1', model: 'gpt-5', created: 1 },
      { type: 'reasoning-start', itemId: 'rs_68af0009a' },
      { type: 'reasoning-end', encrypted: 'gAAAAABopaque==' },
      { type: 'text-delta', text: 'ok' },
      { type: 'finish', finishReason: 'stop' },
      { type: 'end' },
    ];
    const events = parseEvents(encodeAll(messagesCodec.createStreamEncoder(request, STREAM_IDS), parts));
    expect(events.slice(1, 4).map((e) => e.data)).toEqual([
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: carryOpaque(carriedForm) } },
      { type: 'content_block_stop', index: 0 },
    ]);
  });
});

describe('provider metadata on a tool call, carried in its id', () => {
  it('a Gemini-signed call reaches a Messages client under an id that brings the signature back, on the call and its result', () => {
    const metadata = { google: { thoughtSignature: 'CiQB0e2Kb+/==' } };
    const body = messagesCodec.encodeResponse(
      { id: 'r1', model: 'gemini', created: 1, content: [{ type: 'tool_call', id: 'call_1', name: 'f', arguments: '{}', providerMetadata: metadata }], finishReason: 'tool_calls', usage: { inputTokens: 1, outputTokens: 1 } },
      request,
    );
    const block = (body.content as Array<Record<string, unknown>>)[0];
    expect(block.id).toMatch(/^gwpm_[A-Za-z0-9_-]+$/);
    const next = messagesCodec.decodeRequest({
      model: 'm',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: body.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: block.id, content: 'ok' }] }],
    });
    expect(next.messages[1].content[0]).toEqual({ type: 'tool_call', id: 'call_1', name: 'f', arguments: '{}', providerMetadata: metadata });
    expect(next.messages[2].content[0]).toMatchObject({ type: 'tool_result', toolCallId: 'call_1' });
  });
});
