/**
 * A Messages passthrough takes out the thinking blocks Anthropic cannot verify (docs/api-decisions.md,
 * "Thinking across models"); the e2e side is test/e2e/thinking-model-switch.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { dropUnverifiableThinking } from '../../../src/formats/messages/drop-unverifiable-thinking.ts';
import { carryOpaque } from '../../../src/formats/shared/index.ts';

type Json = Record<string, any>;

const prepare = (body: Json) => dropUnverifiableThinking({ body, raw: JSON.stringify(body), stream: false }) as (ReturnType<typeof dropUnverifiableThinking> & { body: Json }) | undefined;
const question = { role: 'user', content: 'hi' };
const call = { type: 'tool_use', id: 'toolu_1', name: 'Write', input: {} };
const result = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] };

describe('dropUnverifiableThinking', () => {
  it('leaves a body with Anthropic signatures only as it is (no re-serialization)', () => {
    expect(prepare({ model: 'm', thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [question, { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: 'EqQBCkYIBxgCKkA' }, call] }, result] })).toBeUndefined();
  });

  it('takes out an empty signature; a tool loop left unsigned gets thinking off', () => {
    const out = prepare({ model: 'm', thinking: { type: 'adaptive' }, messages: [question, { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: '' }, call] }, result] })!;
    expect((out.body.messages as Array<{ content: unknown }>)[1].content).toEqual([call]);
    expect(out.body.thinking).toBeUndefined();
    expect(out.adapted).toEqual(['thinking=dropped(1)', 'thinking=off']);
    expect(JSON.parse(out.raw)).toEqual(out.body);
  });

  it('puts a carried Anthropic signature and redacted thinking back as Anthropic wrote them; thinking stays on', () => {
    const signed = { type: 'thinking', thinking: 't', signature: carryOpaque({ signature: 'EqQBanthropic', metadata: { bedrock: { x: 1 } } }) };
    const redacted = { type: 'thinking', thinking: '', signature: carryOpaque({ redacted: 'EmwKAhgB' }) };
    const out = prepare({ model: 'm', thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [question, { role: 'assistant', content: [signed, redacted, call] }, result] })!;
    expect((out.body.messages as Array<{ content: unknown }>)[1].content).toEqual([{ type: 'thinking', thinking: 't', signature: 'EqQBanthropic' }, { type: 'redacted_thinking', data: 'EmwKAhgB' }, call]);
    expect(out.body.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
    expect(out.adapted).toBeUndefined();
  });

  it("takes out another vendor's carried reasoning; an assistant turn of thinking alone goes", () => {
    const openai = { type: 'thinking', thinking: 'gpt', signature: carryOpaque({ id: 'rs_1', encrypted: 'gAAAA' }) };
    const out = prepare({ model: 'm', messages: [question, { role: 'assistant', content: [openai] }, { role: 'user', content: 'again' }, { role: 'assistant', content: [openai, { type: 'text', text: 'x' }] }, { role: 'user', content: 'more' }] })!;
    expect(out.body.messages).toEqual([question, { role: 'user', content: 'again' }, { role: 'assistant', content: [{ type: 'text', text: 'x' }] }, { role: 'user', content: 'more' }]);
    expect(out.adapted).toEqual(['thinking=dropped(2)']);
  });
});
