import { describe, expect, it } from 'vitest';
import { useMockGateway } from './mock-gateway.ts';

// mock/echo answered as if `stop` were not there (a newcomer trial): OpenAI's Chat Completions ends the text before the first stop sequence.
describe('mock/echo and stop sequences', () => {
  const mock = useMockGateway();
  const post = async (route: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await mock.post(route, body, headers);
    expect(res.status).toBe(200);
    return (await res.json()) as Record<string, any>;
  };
  const messages = [{ role: 'user', content: 'one two three four' }];

  it('Chat: the echo ends before the earliest stop sequence (a string or a list), finish_reason stop', async () => {
    const listed = await post('/v1/chat/completions', { model: 'mock/echo', messages, stop: ['four', ' three'] });
    expect(listed.choices[0]).toMatchObject({ message: { content: 'one two' }, finish_reason: 'stop' });
    const single = await post('/v1/chat/completions', { model: 'mock/echo', messages, stop: 'two' });
    expect(single.choices[0].message.content).toBe('one ');
    const missing = await post('/v1/chat/completions', { model: 'mock/echo', messages, stop: ['five'] });
    expect(missing.choices[0].message.content).toBe('one two three four');
    // An empty sequence stops nothing (OpenAI's own would refuse it; the mock need not blank the echo).
    for (const stop of ['', [''], []]) expect((await post('/v1/chat/completions', { model: 'mock/echo', messages, stop })).choices[0].message.content).toBe('one two three four');
  });

  it('Chat streaming and Anthropic stop_sequences end there too', async () => {
    const res = await mock.post('/v1/chat/completions', { model: 'mock/echo', messages, stream: true, stop: ['three'] });
    const text = (await res.text())
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => (JSON.parse(line.slice(6)) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content ?? '')
      .join('');
    expect(text).toBe('one two ');
    const anthropic = await post('/v1/messages', { model: 'mock/echo', max_tokens: 256, messages, stop_sequences: ['three'] }, { 'anthropic-version': '2023-06-01' });
    expect(anthropic.content[0].text).toBe('one two ');
  });
});
