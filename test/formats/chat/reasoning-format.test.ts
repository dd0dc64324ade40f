/**
 * The `format` of Chat's `reasoning_details` names where the reasoning came from, as OpenRouter
 * labels it: reasoning of no known vendor (DeepSeek's or vLLM's plain `reasoning_content`, a
 * client's `unknown` detail) is `unknown`, not Anthropic's; Anthropic's thinking is
 * `anthropic-claude-v1` from its stream's first delta; signatures round-trip byte-exact.
 */
import { describe, expect, it } from 'vitest';
import type { ChatRequest, ChatResponse, StreamPart } from '../../../src/ir/types.ts';
import { chatCodec } from '../../../src/formats/chat/index.ts';
import { messagesCodec } from '../../../src/formats/messages/index.ts';
import { encodeAll, parseEvents, readFixture, translateStream, STREAM_IDS } from '../stream-helpers.ts';

const request: ChatRequest = { model: 'm', system: [], messages: [], stream: false };
const streamed: ChatRequest = { ...request, stream: true };
type Json = Record<string, any>;

const detailsOf = (body: unknown): Json[] => ((body as Json).choices[0].message.reasoning_details ?? []) as Json[];

describe('reasoning_details format', () => {
  it("DeepSeek's plain reasoning is `unknown`; Anthropic's signed thinking stays anthropic-claude-v1, signature byte-exact", () => {
    const response: ChatResponse = {
      id: 'r',
      model: 'deepseek-reasoner',
      created: 1,
      content: [
        { type: 'reasoning', text: 'plain thought', providerMetadata: { chat: { model: 'deepseek-reasoner' } } },
        { type: 'reasoning', text: 'signed thought', signature: 'EqQBCkgIBRAB+/=' },
        { type: 'text', text: 'answer' },
      ],
      finishReason: 'stop',
      usage: { inputTokens: 1, outputTokens: 1 },
    };
    const body = chatCodec.encodeResponse(response, request);
    const details = detailsOf(body);
    expect(details.map((d) => d.format)).toEqual(['unknown', 'anthropic-claude-v1']);
    expect(details[1].signature).toBe('EqQBCkgIBRAB+/=');
    // A client sends the answer back: the same details again, byte-exact.
    const again = chatCodec.encodeResponse(chatCodec.decodeResponse(body), request);
    expect(JSON.stringify(detailsOf(again))).toBe(JSON.stringify(details));
  });

  it("a client's `unknown` detail keeps its label; an unsigned anthropic-claude-v1 detail keeps its own", () => {
    const body = { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'x', reasoning_details: [
      { type: 'reasoning.text', text: 'a', format: 'unknown', index: 0 },
      { type: 'reasoning.text', text: 'b', format: 'anthropic-claude-v1', index: 1 },
    ] } }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } };
    const again = chatCodec.encodeResponse(chatCodec.decodeResponse(body), request);
    expect(detailsOf(again).map((d) => d.format)).toEqual(['unknown', 'anthropic-claude-v1']);
  });

  it('streamed: reasoning of no known vendor is `unknown`; a Claude stream is anthropic-claude-v1 from its first delta', () => {
    const plain: StreamPart[] = [
      { type: 'start', id: 'x', model: 'deepseek-reasoner', created: 1 },
      { type: 'reasoning-start' },
      { type: 'reasoning-delta', text: 'hmm' },
      { type: 'reasoning-end' },
      { type: 'finish', finishReason: 'stop' },
      { type: 'end' },
    ];
    const formats = (sse: string) =>
      parseEvents(sse)
        .slice(0, -1)
        .flatMap((e) => ((e.data as Json).choices?.[0]?.delta?.reasoning_details ?? []) as Json[])
        .map((d) => d.format);
    expect(formats(encodeAll(chatCodec.createStreamEncoder(streamed, STREAM_IDS), plain))).toEqual(['unknown']);
    const claude = formats(translateStream(messagesCodec, chatCodec, streamed, readFixture('messages/stream-thinking.sse.txt')));
    expect(claude.length).toBeGreaterThan(1);
    expect(new Set(claude)).toEqual(new Set(['anthropic-claude-v1']));
  });
});
