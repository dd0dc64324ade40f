/**
 * Prompt caching and no silent drops through the real CLI and server (issue 16), with the
 * official clients: a two-turn conversation from the `openai` client to an Anthropic-format fake
 * upstream gets gateway-placed cache breakpoints (none with `promptCache: 'off'`); the cache
 * read the upstream reports comes back as `prompt_tokens_details.cached_tokens` and is billed at
 * `pricing.cacheRead`; a Responses request with a hosted tool for a model no Responses upstream
 * serves gets a 422 naming the tool and the model, and the upstream is never called.
 */
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

type Json = Record<string, any>;

const LONG_SYSTEM = `You are a careful assistant. ${'Follow the house style guide to the letter. '.repeat(220)}`;
/** USD per million tokens. */
const PRICING = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

/** Every cache_control in a Messages request body, as `<where> <type>`. */
function markers(body: Json): string[] {
  const out: string[] = [];
  if (Array.isArray(body.system)) body.system.forEach((b: Json, i: number) => b.cache_control && out.push(`system[${i}] ${b.cache_control.type}`));
  for (const tool of body.tools ?? []) if (tool.cache_control) out.push(`tool ${tool.name} ${tool.cache_control.type}`);
  (body.messages as Json[]).forEach((m, i) => {
    if (Array.isArray(m.content)) for (const b of m.content) if (b.cache_control) out.push(`messages[${i}] ${m.role} ${b.type} ${b.cache_control.type}`);
  });
  return out;
}

describe('prompt caching across formats (openai client → Anthropic upstream)', () => {
  let upstream: FakeUpstream;
  let gw: SpawnedGateway | undefined;
  let configFile: string;
  let dataDir: string;
  let key: string;

  const cli = async (args: string[]) => {
    const result = await runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
    return { code: result.exitCode, out: String(result.stdout), err: String(result.stderr) };
  };
  const openai = () => new OpenAI({ baseURL: `${gw!.url}/v1`, apiKey: key, maxRetries: 0, timeout: 10_000 });
  const usedCredits = async (): Promise<number> => {
    const res = await fetch(`${gw!.url}/v1/key`, { headers: { authorization: `Bearer ${key}` } });
    return ((await res.json()) as { data: { limit_credits: { used: number } } }).data.limit_credits.used;
  };

  beforeAll(async () => {
    // The first request of a conversation writes the cache, every later one reads it.
    upstream = await startFakeUpstream((_req, index) => ({
      json: {
        id: `msg_${index}`, type: 'message', role: 'assistant', model: 'claude-up', content: [{ type: 'text', text: 'Noted.' }],
        stop_reason: 'end_turn', stop_sequence: null,
        usage: { input_tokens: 400, output_tokens: 20, cache_creation_input_tokens: index === 0 ? 2600 : 0, cache_read_input_tokens: index === 0 ? 0 : 2600 },
      },
    }));
    const dir = tempDir();
    dataDir = path.join(dir, 'data');
    configFile = writeConfig(dir, {
      providers: {
        a: { plugin: 'anthropic', baseURL: upstream.url, apiKey: 'x', models: [{ id: 'claude-up', pricing: PRICING }] },
        off: { plugin: 'anthropic', baseURL: upstream.url, apiKey: 'x', promptCache: 'off', models: [{ id: 'claude-up', pricing: PRICING }] },
      },
    });
    expect((await cli(['accounts', 'create', '--email', 'cache@example.com', '--tier', 'enterprise', '--credits', '100000'])).code).toBe(0);
    const created = await cli(['keys', 'create', '--account', 'cache@example.com', '--json', '--limit', '1000']);
    expect(created.err).toBe('');
    key = (JSON.parse(created.out) as { key: string }).key;
    gw = await spawnGateway({ configFile, dataDir });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });
  beforeEach(() => {
    upstream.requests.length = 0;
  });

  async function twoTurns(model: string) {
    const client = openai();
    const first: OpenAI.ChatCompletionMessageParam[] = [{ role: 'system', content: LONG_SYSTEM }, { role: 'user', content: 'Remember the number 7.' }];
    const one = await client.chat.completions.create({ model, messages: first });
    const second: OpenAI.ChatCompletionMessageParam[] = [...first, { role: 'assistant', content: one.choices[0].message.content }, { role: 'user', content: 'Which number?' }];
    const before = await usedCredits();
    const two = await client.chat.completions.create({ model, messages: second });
    const cost = (await usedCredits()) - before;
    return { one, two, cost, bodies: upstream.requests.map((r) => r.json as Json) };
  }

  it("places breakpoints on the system prompt and, on the second turn, the last stable turn; reports and bills the cache read", async () => {
    const { one, two, cost, bodies } = await twoTurns('a/claude-up');
    expect(bodies).toHaveLength(2);
    expect(markers(bodies[0])).toEqual(['system[0] ephemeral']);
    expect(markers(bodies[1])).toEqual(['system[0] ephemeral', 'messages[1] assistant text ephemeral']);
    expect(bodies[1].system[0].text).toBe(LONG_SYSTEM);
    // Anthropic's uncached 400 + cache write/read 2600 = OpenAI's prompt_tokens 3000, cached part in prompt_tokens_details.
    expect(one.usage).toMatchObject({ prompt_tokens: 3000, completion_tokens: 20 });
    expect(two.usage).toMatchObject({ prompt_tokens: 3000, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 2600 } });
    // 400 × $3 + 2600 × $0.30 (cache read) + 20 × $15 per million = $0.00228 = 2.28 credits (1 credit = $0.001).
    expect(cost).toBeCloseTo(2.28, 4);
  });

  it("promptCache: 'off' sends no breakpoints", async () => {
    const { bodies } = await twoTurns('off/claude-up');
    expect(bodies).toHaveLength(2);
    for (const body of bodies) expect(JSON.stringify(body)).not.toContain('cache_control');
  });

  it('a Responses request with a hosted tool for a model no Responses upstream serves → 422 naming the tool and the model', async () => {
    const error = await openai()
      .responses.create({ model: 'a/claude-up', input: 'Search the news', tools: [{ type: 'web_search' }] })
      .then(() => undefined, (e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
    expect(error).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    expect(error!.status).toBe(422);
    expect(error!.message).toContain("'web_search'");
    expect(error!.message).toContain("'a/claude-up'");
    expect(upstream.requests).toHaveLength(0);
  });
});
