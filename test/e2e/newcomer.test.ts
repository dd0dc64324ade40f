import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { REPO_ROOT, spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

// The newcomer's path: the repo's own gateway.config.ts, a fresh data dir, the printed key.
describe('newcomer: serve with the repo config and call mock/echo with the openai client', () => {
  let gw: SpawnedGateway;
  let client: OpenAI;

  beforeAll(async () => {
    gw = await spawnGateway({ configFile: path.join(REPO_ROOT, 'gateway.config.ts'), dataDir: path.join(tempDir(), 'data'), env: { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' } });
    expect(gw.key).toMatch(/^sk-gw-[A-Za-z0-9]{40}$/);
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
  });
  afterAll(async () => {
    expect(await gw.stop()).toBe(0);
  });

  it('prints the base URL and the key once', () => {
    // @google/genai and gemini-cli take the host too (before, the line named only OpenAI's and Anthropic's).
    expect(gw.stdout()).toContain(`gateway listening on ${gw.url}  (OpenAI base URL: ${gw.url}/v1, Anthropic and Google base URL: ${gw.url})`);
    expect(gw.stdout().match(/sk-gw-/g)).toHaveLength(1);
    // As README's tour shows it: without OPENAI_API_KEY / ANTHROPIC_API_KEY only mock serves, said at start.
    expect(gw.stdout()).toMatch(/^providers: mock \(9 models\)$/m);
  });

  it('answers a completion', async () => {
    const completion = await client.chat.completions.create({ model: 'mock/echo', messages: [{ role: 'user', content: 'Hello from a newcomer' }] });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0].message.content).toBe('Hello from a newcomer');
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
  });

  it("the printed key's answers carry the spec's rate-limit headers (enterprise: counted, effectively unlimited)", async () => {
    const ask = () => client.chat.completions.create({ model: 'mock/echo', messages: [{ role: 'user', content: 'count me' }] }).withResponse();
    const first = (await ask()).response.headers;
    const second = (await ask()).response.headers;
    expect(first.get('x-ratelimit-limit')).toBe('1000000');
    expect(Number(second.get('x-ratelimit-used'))).toBe(Number(first.get('x-ratelimit-used')) + 1);
    expect(Number(second.get('x-ratelimit-remaining'))).toBe(Number(first.get('x-ratelimit-remaining')) - 1);
    expect(Number(first.get('x-ratelimit-reset'))).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
    expect(first.get('x-ratelimit-resource')).toBe('user');
    expect(first.get('x-request-priority')).toBe('4');
    expect(first.get('x-concurrency-remaining')).toBe('999');
  });

  it('streams, and the stream helper builds the final completion', async () => {
    const stream = await client.chat.completions.create({
      model: 'mock/echo',
      messages: [{ role: 'user', content: 'one two three four five six seven' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let roleFirst: string | undefined;
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      roleFirst ??= chunk.choices[0]?.delta.role;
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(roleFirst).toBe('assistant');
    expect(text).toBe('one two three four five six seven');
    expect(usage?.completion_tokens).toBeGreaterThan(0);

    const runner = client.chat.completions.stream({ model: 'mock/echo', messages: [{ role: 'user', content: 'streamed helper' }] });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0].message.content).toBe('streamed helper');
    expect(final.choices[0].finish_reason).toBe('stop');
  });

  it('runs a tool call through the mock', async () => {
    const tools: OpenAI.ChatCompletionTool[] = [
      { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
    ];
    const first = await client.chat.completions.create({ model: 'mock/echo', messages: [{ role: 'user', content: 'please call get_weather' }], tools });
    const call = first.choices[0].message.tool_calls?.[0];
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    expect(call?.type === 'function' && call.function.name).toBe('get_weather');
    expect(JSON.parse(call?.type === 'function' ? call.function.arguments : '{}')).toEqual({ city: 'Paris' });
  });

  it('lists models and retrieves one by its encoded id', async () => {
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toContain('mock/echo');
    const model = await client.models.retrieve('mock/echo');
    expect(model.id).toBe('mock/echo');
    const res = await fetch(`${gw.url}/v1/models?type=chat&capability=thinking`, { headers: { authorization: `Bearer ${gw.key}` } });
    const body = (await res.json()) as { data: Array<{ id: string }> };
    expect(body.data.map((m) => m.id)).toEqual(['mock/echo']);
  });

  // Claude Code's first request is a count_tokens; mock/echo has no counter, so it is counted locally.
  it('the first local token count leaves the gateway answering: /health on time while the tokenizer loads', async () => {
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key!, maxRetries: 0, timeout: 60_000 });
    let counted = false;
    const counting = anthropic.messages.countTokens({ model: 'mock/echo', messages: [{ role: 'user', content: 'How many tokens is this?' }] }).finally(() => (counted = true));
    // Before: the main thread built js-tiktoken's encoder (1-6 s of one synchronous task) and every request waited for it.
    let slowest = 0;
    while (!counted) {
      const asked = performance.now();
      expect((await fetch(`${gw.url}/health`)).status).toBe(200);
      slowest = Math.max(slowest, performance.now() - asked);
    }
    expect((await counting).input_tokens).toBe(12);
    expect(slowest).toBeLessThan(500);
  });

  it('answers /health without a key', async () => {
    const res = await fetch(`${gw.url}/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(((await res.json()) as { status: string }).status).toBe('ok');
  });
});
