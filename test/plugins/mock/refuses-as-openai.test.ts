import { describe, expect, it } from 'vitest';
import { useMockGateway } from './mock-gateway.ts';

// The offline mock answered what OpenAI refuses (temperature 5, a 'robot' role) and one choice
// for n: 2, so offline development missed what production would refuse or answer.
describe('mock/echo answers and refuses as OpenAI Chat Completions does', () => {
  const mock = useMockGateway();
  const post = (body: unknown) => mock.post('/v1/chat/completions', body);
  const messages = [{ role: 'user', content: 'Hello there' }];

  it('a temperature above 2 is a 400 naming it, with OpenAI\'s words', async () => {
    const res = await post({ model: 'mock/echo', messages, temperature: 5 });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).toContain("Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got 5 instead.");
    expect((await post({ model: 'mock/echo', messages, temperature: 2 })).status).toBe(200);
  });

  it('a role OpenAI does not know is a 400 naming messages[i].role', async () => {
    const res = await post({ model: 'mock/echo', messages: [{ role: 'robot', content: 'beep' }] });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).toContain("Invalid value: 'robot'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.");
  });

  it('n: 2 answers two choices, whole and streamed; n: 0 is a 400', async () => {
    const whole = (await (await post({ model: 'mock/echo', messages, n: 2 })).json()) as { choices: Array<{ index: number; message: { content: string } }> };
    expect(whole.choices.map((c) => [c.index, c.message.content])).toEqual([[0, 'Hello there'], [1, 'Hello there']]);
    const streamed = await (await post({ model: 'mock/echo', messages, n: 2, stream: true })).text();
    const indexes = new Set(streamed.split('\n').filter((l) => l.startsWith('data: {')).flatMap((l) => (JSON.parse(l.slice(6)) as { choices: Array<{ index: number }> }).choices.map((c) => c.index)));
    expect([...indexes].sort()).toEqual([0, 1]);
    expect((await post({ model: 'mock/echo', messages, n: 0 })).status).toBe(400);
  });
});
