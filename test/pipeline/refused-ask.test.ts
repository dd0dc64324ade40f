/**
 * A converted call made once more without an ask the upstream refused for the account (the target
 * format's `fit.withoutRefused`): OpenAI's reasoning summary, which an organization it has not
 * verified may not ask for. Any other refusal stands, and a passthrough is never edited.
 */
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../src/errors/index.ts';
import { prepareCall, readInbound, withoutRefusedAsk } from '../../src/pipeline/index.ts';
import type { CatalogModel, Provider } from '../../src/providers/index.ts';

const provider = { id: 'up', formats: ['responses'] } as unknown as Provider;
const model: CatalogModel = { id: 'up/gpt-5', provider, upstreamId: 'gpt-5', spec: { id: 'gpt-5' }, formats: ['responses'] };

function prepared(format: 'messages' | 'responses', body: Record<string, unknown>) {
  const source = { format, raw: JSON.stringify(body), body, forwardHeaders: {} };
  return prepareCall(source, readInbound(source), model, { defaultMaxTokens: 4096 });
}

const refused = (param: string | undefined, status = 400) =>
  new GatewayError('bad_request', "The provider 'up' rejected the request: Your organization must be verified to generate reasoning summaries.", { details: { provider: 'up', upstream_status: status, ...(param ? { param } : {}) } });

const THINKING = { model: 'up/gpt-5', max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 2048 }, messages: [{ role: 'user', content: 'hi' }] };

describe('withoutRefusedAsk', () => {
  it("a Messages client's thinking on a Responses upstream: the refused summary left out, said", () => {
    const first = prepared('messages', THINKING);
    expect(first.call.body.reasoning).toEqual({ effort: 'medium', summary: 'auto' });
    const again = withoutRefusedAsk(first, refused('reasoning.summary'))!;
    expect(again.call.body.reasoning).toEqual({ effort: 'medium' });
    expect(JSON.parse(again.call.rawBody).reasoning).toEqual({ effort: 'medium' });
    expect(again.call.body.input).toEqual(first.call.body.input);
    expect(again.adapted).toEqual(['reasoning.summary=removed']);
  });

  it('any other refusal stands', () => {
    const first = prepared('messages', THINKING);
    expect(withoutRefusedAsk(first, refused('reasoning.effort'))).toBeUndefined();
    expect(withoutRefusedAsk(first, refused(undefined))).toBeUndefined();
    expect(withoutRefusedAsk(first, refused('reasoning.summary', 500))).toBeUndefined();
    expect(withoutRefusedAsk(first, new Error('boom'))).toBeUndefined();
  });

  it('a body without a summary, or a passthrough (the client asked for it), is not sent again', () => {
    expect(withoutRefusedAsk(prepared('messages', { ...THINKING, thinking: { type: 'enabled', budget_tokens: 2048, display: 'omitted' } }), refused('reasoning.summary'))).toBeUndefined();
    const passthrough = prepared('responses', { model: 'up/gpt-5', input: 'hi', reasoning: { effort: 'low', summary: 'auto' } });
    expect(passthrough.passthrough).toBe(true);
    expect(withoutRefusedAsk(passthrough, refused('reasoning.summary'))).toBeUndefined();
  });
});
