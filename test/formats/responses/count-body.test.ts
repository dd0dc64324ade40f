/**
 * What a token count over a Responses upstream sends to /v1/responses/input_tokens: the counted
 * fields of the converted request, without a reasoning summary (it changes no input token, and
 * OpenAI refuses summaries to an organization it has not verified).
 */
import { describe, expect, it } from 'vitest';
import { getFormat } from '../../../src/formats/index.ts';

describe('a Responses count body', () => {
  it("a Messages client's thinking request is counted with its reasoning effort and no summary", () => {
    const request = getFormat('messages').codec.decodeRequest({
      model: 'gpt-5', max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 2048 }, messages: [{ role: 'user', content: 'Say hi' }],
    });
    const body = getFormat('responses').countTokens!.bodyFor!(request, 'gpt-5') as Record<string, unknown>;
    expect(body.reasoning).toEqual({ effort: 'medium' });
    expect(body.input).toEqual([expect.objectContaining({ role: 'user' })]);
    expect(body).not.toHaveProperty('max_output_tokens');
  });
});
