/**
 * Prompt caching and no silent drops through the real CLI and server (issue 16), with the
 * official clients: a two-turn conversation from the `openai` client to an Anthropic-format fake
 * upstream gets gateway-placed cache breakpoints (none with `promptCache: 'off'`); the cache
 * read the upstream reports comes back as `prompt_tokens_details.cached_tokens` and is billed at
 * `pricing.cacheRead`; a Responses client (responses.create) gets the same breakpoints, and a
 * stored conversation (`previous_response_id`) begun on an OpenAI-format model and continued on
 * Claude reaches the Anthropic upstream with them; a Responses request with a hosted tool is
 * auto-routed only to a Responses upstream, and gets a 422 naming the tool and the model (no
 * upstream called) when no candidate can run it; the same for an Anthropic server tool sent by
 * the `@anthropic-ai/sdk` client (only an Anthropic upstream runs it). (All 9 pairs, with billing at cacheWrite and
 * cacheRead for each client format: test/e2e/prompt-cache-matrix.test.ts.)
 */
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
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

/** A whole Chat completion saying `text`. */
function chatAnswer(text: string): Json {
  return { id: 'chatcmpl-u', object: 'chat.completion', created: 1, model: 'gpt', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 } };
}

/** A whole Response saying `text`. */
function responsesAnswer(text: string): Json {
  return {
    id: 'resp_u', object: 'response', created_at: 1, status: 'completed', model: 'gpt',
    output: [{ type: 'message', id: 'msg_u', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] }],
    usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 2, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 12 },
  };
}

describe('prompt caching across formats (openai client → Anthropic upstream)', () => {
  let upstream: FakeUpstream;
  let chatUpstream: FakeUpstream;
  let responsesUpstream: FakeUpstream;
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
    chatUpstream = await startFakeUpstream(() => ({ json: chatAnswer('The number is 7.') }));
    responsesUpstream = await startFakeUpstream(() => ({ json: responsesAnswer('Searched.') }));
    const dir = tempDir();
    dataDir = path.join(dir, 'data');
    configFile = writeConfig(dir, {
      providers: {
        // Last for `gpt-both` (priority 3): chosen only for what the others cannot run.
        // 'reject': these tests check the 422 for hosted tools an upstream cannot run (the default 'drop' is in agents-routes.test.ts).
        a: { plugin: 'anthropic', baseURL: upstream.url, apiKey: 'x', priority: 3, hostedTools: 'reject', models: [{ id: 'claude-up', pricing: PRICING }, 'gpt-both'] },
        off: { plugin: 'anthropic', baseURL: upstream.url, apiKey: 'x', promptCache: 'off', models: [{ id: 'claude-up', pricing: PRICING }] },
        // `gpt-both` is served by a Chat upstream (tried first), a Responses upstream and the Anthropic one.
        c: { plugin: 'openai', baseURL: `${chatUpstream.url}/v1`, apiKey: 'x', formats: ['chat'], priority: 1, hostedTools: 'reject', models: ['gpt-chat', 'gpt-both'] },
        r: { plugin: 'openai', baseURL: `${responsesUpstream.url}/v1`, apiKey: 'x', formats: ['responses'], priority: 2, models: ['gpt-both'] },
      },
      routing: { retry: { attempts: 1 } },
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
    await chatUpstream?.close();
    await responsesUpstream?.close();
  });
  beforeEach(() => {
    upstream.requests.length = 0;
    chatUpstream.requests.length = 0;
    responsesUpstream.requests.length = 0;
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
      .responses.create({ model: 'a/claude-up', input: 'Search the news', tools: [{ type: 'file_search', vector_store_ids: ['vs_1'] }] })
      .then(() => undefined, (e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
    expect(error).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    expect(error!.status).toBe(422);
    expect(error!.message).toContain("'file_search'");
    expect(error!.message).toContain("'a/claude-up'");
    expect(upstream.requests).toHaveLength(0);
  });

  it('a Responses client (responses.create, previous_response_id) gets the same breakpoints on a Messages upstream', async () => {
    const client = openai();
    const one = await client.responses.create({ model: 'a/claude-up', instructions: LONG_SYSTEM, input: 'Remember the number 7.' });
    // instructions are not inherited along a chain (as at OpenAI): the client sends them again.
    const two = await client.responses.create({ model: 'a/claude-up', instructions: LONG_SYSTEM, previous_response_id: one.id, input: 'Which number?' });
    expect(two.usage).toMatchObject({ input_tokens: 3000, input_tokens_details: { cached_tokens: 2600 } });
    const bodies = upstream.requests.map((r) => r.json as Json);
    expect(bodies).toHaveLength(2);
    expect(markers(bodies[0])).toEqual(['system[0] ephemeral']);
    expect(bodies[1].messages.map((m: Json) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(markers(bodies[1])).toEqual(['system[0] ephemeral', 'messages[1] assistant text ephemeral']);
    expect(bodies[1].system[0].text).toBe(LONG_SYSTEM);
  });

  it('a stored conversation begun on an OpenAI-format model and continued on Claude reaches it with breakpoints', async () => {
    const client = openai();
    const one = await client.responses.create({ model: 'c/gpt-chat', instructions: LONG_SYSTEM, input: 'Remember the number 7.' });
    expect(chatUpstream.requests).toHaveLength(1);
    expect(one.output_text).toBe('The number is 7.');
    const two = await client.responses.create({ model: 'a/claude-up', instructions: LONG_SYSTEM, previous_response_id: one.id, input: 'Which number?' });
    expect(two.output_text).toBe('Noted.');
    const three = await client.responses.create({ model: 'a/claude-up', instructions: LONG_SYSTEM, previous_response_id: two.id, input: 'Thanks.' });
    expect(three.status).toBe('completed');
    const bodies = upstream.requests.map((r) => r.json as Json);
    expect(bodies).toHaveLength(2);
    // Turn 1's exchange (served by the Chat upstream) is the history Claude gets on turn 2, cached up to its answer.
    const turns = (body: Json) => (body.messages as Json[]).map((m) => `${m.role}: ${(m.content as Json[]).map((b) => b.text).join('')}`);
    expect(turns(bodies[0])).toEqual(['user: Remember the number 7.', 'assistant: The number is 7.', 'user: Which number?']);
    expect(markers(bodies[0])).toEqual(['system[0] ephemeral', 'messages[1] assistant text ephemeral']);
    // Turn 3: the breakpoint moves to Claude's own last answer; the system one stays.
    expect(bodies[1].messages.map((m: Json) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(markers(bodies[1])).toEqual(['system[0] ephemeral', 'messages[3] assistant text ephemeral']);
  });

  it('auto-routing sends a hosted-tool request only to a provider that can run it', async () => {
    const client = openai();
    // Without a hosted tool, gpt-both goes to its first provider, the Chat upstream.
    const plain = await client.responses.create({ model: 'gpt-both', input: 'Hello' }).withResponse();
    expect(plain.response.headers.get('x-routing-resolved-model')).toBe('c/gpt-both');
    expect(chatUpstream.requests).toHaveLength(1);
    expect(responsesUpstream.requests).toHaveLength(0);
    // With one, the Chat upstream (which would drop it) is skipped: the Responses upstream runs it.
    const hosted = await client.responses.create({ model: 'gpt-both', input: 'Search the news', tools: [{ type: 'web_search' }] }).withResponse();
    expect(hosted.response.headers.get('x-routing-resolved-model')).toBe('r/gpt-both');
    expect(hosted.data.output_text).toBe('Searched.');
    expect(chatUpstream.requests).toHaveLength(1);
    expect(responsesUpstream.requests).toHaveLength(1);
    expect((responsesUpstream.requests[0].json as Json).tools).toEqual([{ type: 'web_search' }]);
  });

  it('auto-routing with no candidate that can run the hosted tool → 422 naming the tool and the model', async () => {
    const error = await openai()
      .responses.create({ model: 'gpt-chat', input: 'Search the news', tools: [{ type: 'file_search', vector_store_ids: ['vs_1'] }] })
      .then(() => undefined, (e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
    expect(error).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    expect(error!.message).toContain("'file_search'");
    expect(error!.message).toContain("'gpt-chat'");
    expect(chatUpstream.requests).toHaveLength(0);
    expect(responsesUpstream.requests).toHaveLength(0);
  });

  it('an Anthropic server tool is auto-routed only to an Anthropic upstream, and refused (422) where none can run it', async () => {
    const anthropic = new Anthropic({ baseURL: gw!.url, apiKey: key, maxRetries: 0, timeout: 10_000 });
    // web_fetch: a server tool only Anthropic runs (web_search now maps to the Responses web_search tool).
    const tools = [{ type: 'web_fetch_20250910', name: 'web_fetch', max_uses: 2 }] as unknown as Anthropic.ToolUnion[];
    const routed = await anthropic.messages.create({ model: 'gpt-both', max_tokens: 64, messages: [{ role: 'user', content: 'Search the news' }], tools }).withResponse();
    expect(routed.response.headers.get('x-routing-resolved-model')).toBe('a/gpt-both');
    expect(chatUpstream.requests).toHaveLength(0);
    expect(responsesUpstream.requests).toHaveLength(0);
    expect((upstream.requests[0].json as Json).tools).toEqual([{ type: 'web_fetch_20250910', name: 'web_fetch', max_uses: 2 }]);

    const error = await anthropic.messages
      .create({ model: 'c/gpt-chat', max_tokens: 64, messages: [{ role: 'user', content: 'Search the news' }], tools })
      .then(() => undefined, (e: unknown) => e as InstanceType<typeof Anthropic.APIError>);
    expect(error).toBeInstanceOf(Anthropic.UnprocessableEntityError);
    expect(error!.message).toContain("'web_fetch_20250910'");
    expect(error!.message).toContain("'c/gpt-chat'");
    expect(chatUpstream.requests).toHaveLength(0);
    expect(upstream.requests).toHaveLength(1);
  });
});
