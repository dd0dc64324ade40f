/**
 * Whether a request asking for thinking over its cap may be answered past the cap by a model that
 * may serve it (the credit hold then holds the budget on top): only formats whose face says their
 * cap bounds reasoning (Chat, Responses: OpenAI counts reasoning inside `max_completion_tokens` and
 * `max_output_tokens`) are safe; Messages (the encoder raises `max_tokens` to budget + cap) and
 * Gemini (Google does not document that `maxOutputTokens` bounds thoughts) are not, and one such
 * model among the fallbacks is enough.
 */
import { describe, expect, it } from 'vitest';
import { getFormat } from '../../src/formats/index.ts';
import { mayThinkPastCap, readInbound } from '../../src/pipeline/index.ts';
import type { WireFormat } from '../../src/ir/index.ts';
import type { CatalogModel, Provider } from '../../src/providers/index.ts';

function modelSpeaking(...formats: WireFormat[]): CatalogModel {
  const provider = { id: 'up', formats } as unknown as Provider;
  return { id: `up/${formats.join('-')}`, provider, upstreamId: 'm', spec: { id: 'm' }, formats };
}

describe('mayThinkPastCap', () => {
  it('is false for a request only OpenAI formats serve, passed through or converted', () => {
    expect(mayThinkPastCap([modelSpeaking('chat')], 'chat')).toBe(false);
    expect(mayThinkPastCap([modelSpeaking('chat', 'responses')], 'responses')).toBe(false);
    // A Responses or Gemini request converted to Chat, a Chat one to Responses.
    expect(mayThinkPastCap([modelSpeaking('chat')], 'responses')).toBe(false);
    expect(mayThinkPastCap([modelSpeaking('chat')], 'gemini')).toBe(false);
    expect(mayThinkPastCap([modelSpeaking('responses')], 'chat')).toBe(false);
  });

  it('is true where Claude or Gemini may serve it, a fallback among them, or no model is known', () => {
    expect(mayThinkPastCap([modelSpeaking('messages')], 'chat')).toBe(true);
    expect(mayThinkPastCap([modelSpeaking('gemini')], 'chat')).toBe(true);
    expect(mayThinkPastCap([modelSpeaking('gemini')], 'gemini')).toBe(true);
    expect(mayThinkPastCap([modelSpeaking('chat'), modelSpeaking('messages')], 'chat')).toBe(true);
    expect(mayThinkPastCap([], 'chat')).toBe(true);
  });

  it("takes a model's first format too where it speaks the client's (a Responses passthrough may be retried converted)", () => {
    expect(mayThinkPastCap([modelSpeaking('messages', 'responses')], 'responses')).toBe(true);
    expect(mayThinkPastCap([modelSpeaking('responses', 'messages')], 'messages')).toBe(true);
  });
});

describe('the facts a thinking request is read with', () => {
  const read = (format: WireFormat, body: Record<string, unknown>) => readInbound({ format, body, raw: JSON.stringify(body) }).facts;

  it('hold the budget on top of a smaller cap, and say how much of it that is', () => {
    expect(read('chat', { model: 'm', messages: [], max_completion_tokens: 16, reasoning_effort: 'high' })).toMatchObject({ maxTokens: 16 + 4096, thinkingOnTop: 4096 });
    expect(read('responses', { model: 'm', input: 'hi', max_output_tokens: 16, reasoning: { effort: 'high' } })).toMatchObject({ maxTokens: 16 + 4096, thinkingOnTop: 4096 });
  });

  it('say nothing on top of a cap above the budget, nor without thinking', () => {
    expect(read('chat', { model: 'm', messages: [], max_completion_tokens: 5000, reasoning_effort: 'high' }).thinkingOnTop).toBeUndefined();
    expect(read('chat', { model: 'm', messages: [], max_completion_tokens: 16 }).thinkingOnTop).toBeUndefined();
  });

  it('come from the format faces: Chat and Responses say their cap bounds reasoning, Messages and Gemini do not', () => {
    expect([getFormat('chat'), getFormat('responses'), getFormat('messages'), getFormat('gemini')].map((f) => f.capBoundsReasoning === true)).toEqual([true, true, false, false]);
  });
});
