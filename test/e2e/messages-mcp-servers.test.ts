/**
 * Anthropic's MCP connector (`mcp_servers`: Claude calls those servers' tools itself) on a model
 * served in another format: the servers cannot be reached there, so they follow the hosted-tools
 * policy like Anthropic's server tools: dropped and named in X-Gateway-Dropped-Tools (default),
 * or refused with 422 where the model's policy is 'reject'. On Claude they pass as written.
 * Before, a converted request dropped them without a word.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

type Json = Record<string, any>;

describe("Anthropic's mcp_servers on a converted route", () => {
  let chat: StrictFake;
  let messages: StrictFake;
  let gw: SpawnedGateway;

  beforeAll(async () => {
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o': { maxOutput: 16384, reasoning: false }, 'gpt-4.1': { maxOutput: 32768, reasoning: false } }, finalText: 'Hello.' });
    messages = await startStrictFake({ format: 'messages', models: { 'claude-up': { maxOutput: 64000, reasoning: false } }, finalText: 'Hello.' });
    gw = await spawnGateway({
      config: {
        providers: {
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o', { id: 'gpt-4.1', hostedTools: 'reject' }] },
          ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: [{ id: 'claude-up', maxOutputTokens: 64000, contextWindow: 200000, capabilities: ['streaming'] }] },
        },
        routing: { retry: { attempts: 1 } },
      },
    });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    for (const fake of [chat, messages]) await fake?.close();
  });

  const send = (model: string) =>
    fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': gw.key!, 'anthropic-version': '2023-06-01', 'anthropic-beta': 'mcp-client-2025-04-04', 'content-type': 'application/json' },
      body: JSON.stringify({ model, max_tokens: 100, mcp_servers: [{ type: 'url', url: 'https://mcp.example.com/sse', name: 'example' }], messages: [{ role: 'user', content: 'Hi' }] }),
    });

  it('a Chat model (hostedTools drop, the default): answered without them, named in X-Gateway-Dropped-Tools', async () => {
    const res = await send('oc/gpt-4o');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-dropped-tools')).toBe('mcp_servers');
    expect(chat.rejections).toEqual([]);
    expect(JSON.stringify(chat.requests.at(-1)!.json)).not.toContain('mcp');
  });

  it("a Chat model whose hostedTools is 'reject': 422 naming them, nothing sent", async () => {
    const before = chat.requests.length;
    const res = await send('oc/gpt-4.1');
    expect(res.status).toBe(422);
    expect(((await res.json()) as Json).error.message).toContain('mcp_servers');
    expect(chat.requests.length).toBe(before);
  });

  // Before: a value that is not a list (one server written as an object) was dropped without a word on a converted
  // route, the model answering without its tools; Anthropic's API refuses it.
  it("servers not written as a list: 422 naming mcp_servers on a converted route, in Anthropic's shape, nothing sent", async () => {
    const before = chat.requests.length;
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': gw.key!, 'anthropic-version': '2023-06-01', 'anthropic-beta': 'mcp-client-2025-04-04', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'oc/gpt-4o', max_tokens: 100, mcp_servers: { type: 'url', url: 'https://mcp.example.com/sse', name: 'example' }, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(res.status).toBe(422);
    expect(((await res.json()) as Json).error).toMatchObject({ type: 'invalid_request_error', code: 'validation_error', param: 'mcp_servers' });
    expect(chat.requests.length).toBe(before);
  });

  it('Claude: passed as written, nothing dropped', async () => {
    const res = await send('ant/claude-up');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-dropped-tools')).toBeNull();
    expect((messages.requests.at(-1)!.json as Json).mcp_servers).toEqual([{ type: 'url', url: 'https://mcp.example.com/sse', name: 'example' }]);
  });
});
