/**
 * The local token count (count_tokens / input_tokens without an upstream counter): every request
 * is encoded on a worker thread, so the event loop keeps turning while it is counted (and while
 * the encoder is built: test/e2e/newcomer.test.ts), and the number is the same as on this
 * thread. The e2e side is test/e2e/agents-endpoints.test.ts.
 */
import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../src/ir/index.ts';
import { countInputTokens } from '../../src/pipeline/index.ts';

const tiktoken = new Tiktoken(o200k);

function request(system: string, user: string): ChatRequest {
  return { model: 'm', system: [{ type: 'text', text: system }], stream: false, messages: [{ role: 'user', content: [{ type: 'text', text: user }] }] };
}

/** OpenAI's recipe as count-input-tokens.ts follows it: 3 to prime the reply, 3 per message (the system one included). */
const expected = (system: string, user: string) => 3 + 3 + tiktoken.encode(system).length + 3 + tiktoken.encode(user).length;

/** Prose with code in it, as a coding agent's context reads: ~1 ms of encoding per 1,000 characters. */
function longText(chars: number): string {
  const words = 'the quick brown fox jumps over the lazy dog; function twice(x) { return x * 2; } // 12345 é'.split(' ');
  let text = '';
  for (let i = 0; text.length < chars; i += 1) text += `${words[(i * 7) % words.length]} `;
  return text;
}

describe('countInputTokens', () => {
  it('counts a short request exactly', async () => {
    expect(await countInputTokens(request('Be brief.', 'Hello there, how are you?'))).toBe(expected('Be brief.', 'Hello there, how are you?'));
  });

  it('counts a long request on a worker: the same number, and the event loop turns while it counts', async () => {
    await countInputTokens(request('warm', 'the encoder is built')); // the turn below is then the long count's, not the load's
    const system = longText(40_000);
    const user = longText(400_000);
    let turned = false;
    const timer = setTimeout(() => (turned = true), 0);
    const tokens = await countInputTokens(request(system, user));
    clearTimeout(timer);
    expect(turned).toBe(true);
    expect(tokens).toBe(expected(system, user));
  });

  it('counts several long requests at once, each its own number', async () => {
    const texts = [longText(20_000), longText(60_000), longText(30_000)];
    const counts = await Promise.all(texts.map((text) => countInputTokens(request('s', text))));
    expect(counts).toEqual(texts.map((text) => expected('s', text)));
  });
});
