/**
 * A passthrough's output cap, lowered by the format's own rule (`passthrough.capOutput`, the
 * face; no table in the pipeline): the fields over the model's maximum, Anthropic's thinking
 * budget kept below it, Chat's stream still asking for usage; nothing else of the body changes.
 */
import { describe, expect, it } from 'vitest';
import type { RouteTarget } from '../../src/formats/index.ts';
import type { WireFormat } from '../../src/ir/index.ts';
import { prepareCall, readInbound } from '../../src/pipeline/index.ts';
import type { CatalogModel, Provider } from '../../src/providers/index.ts';

type Json = Record<string, unknown>;

function modelFor(format: WireFormat, maxOutputTokens: number): CatalogModel {
  const provider = { id: 'up', formats: [format] } as unknown as Provider;
  return { id: 'up/up-model', provider, upstreamId: 'up-model', spec: { id: 'up-model', maxOutputTokens }, formats: [format] };
}

function prepare(format: WireFormat, body: Json, max: number, target?: RouteTarget) {
  const raw = JSON.stringify(body);
  const source = { format, raw, body: JSON.parse(raw) as Json, forwardHeaders: {}, target };
  const prepared = prepareCall(source, readInbound(source), modelFor(format, max), { defaultMaxTokens: 4096 });
  return { prepared, sent: JSON.parse(prepared.call.rawBody ?? '') as Json };
}

describe('passthrough output cap (the format face)', () => {
  it('Messages: max_tokens lowered, the thinking budget kept below it, the rest as written', () => {
    const { prepared, sent } = prepare('messages', { model: 'up/up-model', max_tokens: 128000, thinking: { type: 'enabled', budget_tokens: 100000 }, messages: [{ role: 'narrator', content: 'x' }], future: 1 }, 64000);
    expect(sent).toEqual({ model: 'up-model', max_tokens: 64000, thinking: { type: 'enabled', budget_tokens: 62976 }, messages: [{ role: 'narrator', content: 'x' }], future: 1 });
    expect(prepared).toMatchObject({ passthrough: true, adapted: ['max_tokens=64000'], stripUsageChunk: false });
  });

  it('Chat: both cap fields lowered; a stream still asks for usage (and drops it for the client)', () => {
    const { prepared, sent } = prepare('chat', { model: 'up/up-model', stream: true, max_tokens: 99999, max_completion_tokens: 99999, messages: [] }, 16384);
    expect(sent).toMatchObject({ model: 'up-model', max_tokens: 16384, max_completion_tokens: 16384, stream_options: { include_usage: true } });
    expect(prepared).toMatchObject({ adapted: ['max_tokens=16384', 'max_completion_tokens=16384'], stripUsageChunk: true });
  });

  it('Responses: max_output_tokens lowered; under the maximum the client\'s bytes go as written', () => {
    expect(prepare('responses', { model: 'up/up-model', input: 'hi', max_output_tokens: 200000 }, 32768).sent).toMatchObject({ max_output_tokens: 32768 });
    const { prepared } = prepare('responses', { model: 'up/up-model', input: 'hi', max_output_tokens: 100 }, 32768);
    expect(prepared.adapted).toBeUndefined();
    expect(prepared.call.rawBody).toBe(JSON.stringify({ model: 'up-model', input: 'hi', max_output_tokens: 100 }));
  });

  it('Gemini: generationConfig.maxOutputTokens lowered (the model is in the path), thinking and the rest as written; under the maximum the bytes as written', () => {
    const target: RouteTarget = { model: 'up/up-model', stream: true, framing: 'sse' };
    const body = { contents: [{ role: 'narrator', parts: [{ text: 'x' }] }], generationConfig: { maxOutputTokens: 131072, temperature: 0.2, thinkingConfig: { thinkingBudget: 100000 } }, future: 1 };
    const { prepared, sent } = prepare('gemini', body, 65536, target);
    expect(sent).toEqual({ ...body, generationConfig: { maxOutputTokens: 65536, temperature: 0.2, thinkingConfig: { thinkingBudget: 100000 } } });
    expect(prepared).toMatchObject({ passthrough: true, adapted: ['generationConfig.maxOutputTokens=65536'], call: { framing: 'sse', stream: true } });
    const under = { contents: [], generationConfig: { maxOutputTokens: 100 } };
    const kept = prepare('gemini', under, 65536, target).prepared;
    expect(kept.adapted).toBeUndefined();
    expect(kept.call.rawBody).toBe(JSON.stringify(under));
    // Google's REST examples' snake_case (proto JSON takes both): lowered as written.
    const snake = { contents: [], generation_config: { max_output_tokens: 131072, temperature: 0.2 } };
    const lowered = prepare('gemini', snake, 65536, target);
    expect(lowered.sent).toEqual({ contents: [], generation_config: { max_output_tokens: 65536, temperature: 0.2 } });
    expect(lowered.prepared.adapted).toEqual(['generation_config.max_output_tokens=65536']);
  });

  it('a client key named __proto__ stays a key in every re-written body (Object.assign made it the copy\'s prototype: the body went upstream without it)', () => {
    const withProto = (text: string) => text.replace('"messages"', '"__proto__":{"kept":true},"messages"');
    const prepareRaw = (format: WireFormat, raw: string, max: number, target?: RouteTarget) => {
      const source = { format, raw, body: JSON.parse(raw) as Json, forwardHeaders: {}, target };
      const prepared = prepareCall(source, readInbound(source), modelFor(format, max), { defaultMaxTokens: 4096 });
      return JSON.parse(prepared.call.rawBody ?? '') as Json;
    };
    const own = (body: Json) => (Object.hasOwn(body, '__proto__') ? body.__proto__ : undefined);
    // Chat stream with stream_options of its own (so the body is re-serialised), capped, and not capped.
    const chat = withProto(JSON.stringify({ model: 'up/up-model', stream: true, stream_options: { include_usage: false }, max_tokens: 99999, messages: [] }));
    expect(own(prepareRaw('chat', chat, 16384))).toEqual({ kept: true });
    expect(own(prepareRaw('chat', chat, 200000))).toEqual({ kept: true });
    expect(own(prepareRaw('messages', withProto(JSON.stringify({ model: 'up/up-model', max_tokens: 128000, messages: [] })), 64000))).toEqual({ kept: true });
    const target: RouteTarget = { model: 'up/up-model', stream: false, framing: 'sse' };
    const gemini = JSON.stringify({ generationConfig: { maxOutputTokens: 131072 }, contents: [] }).replace('"contents"', '"__proto__":{"kept":true},"contents"');
    expect(own(prepareRaw('gemini', gemini, 65536, target))).toEqual({ kept: true });
  });
});
