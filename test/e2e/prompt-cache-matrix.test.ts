/**
 * Prompt caching across all 9 (client × upstream) pairs through the real CLI and server
 * (issue 16's matrix), with the official clients: `openai` chat.completions and responses,
 * `@anthropic-ai/sdk` messages, each against a fake Chat upstream (openai plugin), a fake
 * Responses upstream (openai plugin, `formats: ['responses']`) and a fake Anthropic upstream
 * (anthropic plugin). For every pair the same conversation (a long system prompt, tools, a tool
 * round trip, a new question; the Messages client marks its own breakpoints, ttl included) is
 * sent twice:
 * - what the upstream received: a Messages upstream gets the Messages client's markers unchanged
 *   and gateway-placed breakpoints for Chat/Responses clients; Chat/Responses upstreams never
 *   get a cache_control;
 * - the first request writes the cache (the Anthropic fake reports cache_creation_input_tokens),
 *   the identical second one reads it (every fake reports its own cached-token field): both show
 *   up in the client's own usage fields, and the credits drawn are the cacheWrite / cacheRead
 *   prices (config `pricing`), for each client format, streamed and not.
 */
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WireFormat } from '../../src/ir/types.ts';
import { chatSse, namedSse, startFakeUpstream, type FakeReply, type FakeUpstream, type ReceivedRequest } from '../helpers/fake-upstream.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

type Json = Record<string, any>;

const FORMATS: WireFormat[] = ['chat', 'responses', 'messages'];
/** ~2,400 estimated tokens: above the minimum cacheable prefix of the upstream model (1,024). */
const LONG_SYSTEM = `You are a careful assistant. ${'Follow the house style guide to the letter. '.repeat(220)}`;
const WEATHER = { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const TIME = { name: 'get_time', description: 'Local time', parameters: { type: 'object', properties: { tz: { type: 'string' } }, required: ['tz'] } };
const HOUR = { type: 'ephemeral', ttl: '1h' } as const;
const EPHEMERAL = { type: 'ephemeral' } as const;
/** USD per million tokens; 1 credit = $0.001. */
const PRICING = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const MODEL: Record<WireFormat, string> = { chat: 'c/gpt-chat', responses: 'r/gpt-resp', messages: 'a/claude-sonnet-4-5' };
/** Every fake counts 3,000 input tokens (2,600 of them the cached prefix) and 20 output tokens. */
const INPUT = 3000;
const CACHED = 2600;
const OUTPUT = 20;
const credits = (usd: number) => usd * 1000;
/** Uncached input, cache part and output at their prices. */
const cost = (cachePrice: number) => credits(((INPUT - CACHED) * PRICING.input + CACHED * cachePrice + OUTPUT * PRICING.output) / 1e6);
const COST = {
  /** No cache at all (an OpenAI-format upstream's first request): $0.0093. */
  plain: cost(PRICING.input),
  /** Anthropic's first request writes 2,600 tokens at cacheWrite: $0.01125. */
  write: cost(PRICING.cacheWrite),
  /** Every second request reads 2,600 tokens at cacheRead: $0.00228. */
  read: cost(PRICING.cacheRead),
};

/** Each upstream answers in its own format: the first sight of a body writes the cache, a repeat reads it. */
function reply(format: WireFormat, repeat: boolean, stream: boolean): FakeReply {
  const cached = repeat ? CACHED : 0;
  if (format === 'messages') {
    const usage = { input_tokens: INPUT - CACHED, cache_creation_input_tokens: repeat ? 0 : CACHED, cache_read_input_tokens: cached };
    if (!stream) {
      return { json: { id: 'msg_up', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'Sunny.' }], stop_reason: 'end_turn', stop_sequence: null, usage: { ...usage, output_tokens: OUTPUT } } };
    }
    return {
      sse: namedSse([
        { type: 'message_start', message: { id: 'msg_up', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Sunny.' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: OUTPUT } },
        { type: 'message_stop' },
      ]),
    };
  }
  if (format === 'chat') {
    const usage = { prompt_tokens: INPUT, completion_tokens: OUTPUT, total_tokens: INPUT + OUTPUT, prompt_tokens_details: { cached_tokens: cached } };
    if (!stream) {
      return { json: { id: 'chatcmpl-up', object: 'chat.completion', created: 1, model: 'gpt-chat', choices: [{ index: 0, message: { role: 'assistant', content: 'Sunny.' }, finish_reason: 'stop' }], usage } };
    }
    const chunk = (delta: Json, finish: string | null) => ({ id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1, model: 'gpt-chat', choices: [{ index: 0, delta, finish_reason: finish }] });
    return { sse: chatSse([chunk({ role: 'assistant', content: 'Sunny.' }, null), chunk({}, 'stop'), { ...chunk({}, null), choices: [], usage }]) };
  }
  const usage = { input_tokens: INPUT, input_tokens_details: { cached_tokens: cached }, output_tokens: OUTPUT, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: INPUT + OUTPUT };
  const message = { type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Sunny.', annotations: [] }] };
  const response = { id: 'resp_up', object: 'response', created_at: 1, status: 'completed', model: 'gpt-resp', output: [message], usage };
  if (!stream) return { json: response };
  return {
    sse: namedSse([
      { type: 'response.created', sequence_number: 0, response: { ...response, status: 'in_progress', output: [], usage: null } },
      { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { ...message, status: 'in_progress', content: [] } },
      { type: 'response.content_part.added', sequence_number: 2, output_index: 0, item_id: 'msg_1', content_index: 0, part: { type: 'output_text', text: '', annotations: [] } },
      { type: 'response.output_text.delta', sequence_number: 3, output_index: 0, item_id: 'msg_1', content_index: 0, delta: 'Sunny.' },
      { type: 'response.output_text.done', sequence_number: 4, output_index: 0, item_id: 'msg_1', content_index: 0, text: 'Sunny.' },
      { type: 'response.content_part.done', sequence_number: 5, output_index: 0, item_id: 'msg_1', content_index: 0, part: message.content[0] },
      { type: 'response.output_item.done', sequence_number: 6, output_index: 0, item: message },
      { type: 'response.completed', sequence_number: 7, response },
    ]),
  };
}

/** Bodies each fake has seen in the current test (a Chat and a Responses client convert to the same Messages body). */
const seen = new Set<string>();

function fakeFor(format: WireFormat) {
  return (req: ReceivedRequest): FakeReply => {
    const id = `${format} ${req.body}`;
    const repeat = seen.has(id);
    seen.add(id);
    return reply(format, repeat, req.json?.stream === true);
  };
}

/** Every cache_control in a Messages body, as `<where> <marker>`. */
function markers(body: Json): string[] {
  const out: string[] = [];
  if (Array.isArray(body.system)) body.system.forEach((b: Json, i: number) => b.cache_control && out.push(`system[${i}] ${JSON.stringify(b.cache_control)}`));
  for (const tool of body.tools ?? []) if (tool.cache_control) out.push(`tool ${tool.name} ${JSON.stringify(tool.cache_control)}`);
  (body.messages as Json[]).forEach((m, i) => {
    if (Array.isArray(m.content)) for (const b of m.content) if (b.cache_control) out.push(`messages[${i}] ${m.role} ${b.type} ${JSON.stringify(b.cache_control)}`);
  });
  return out;
}

/** The cache counts as the client's format reports them: all input, cache reads, cache writes. */
function cacheUsage(client: WireFormat, usage: Json): { input: number; read: number; write: number } {
  if (client === 'chat') return { input: usage.prompt_tokens, read: usage.prompt_tokens_details.cached_tokens, write: usage.prompt_tokens_details.cache_write_tokens ?? 0 };
  if (client === 'responses') return { input: usage.input_tokens, read: usage.input_tokens_details.cached_tokens, write: usage.input_tokens_details.cache_write_tokens ?? 0 };
  // Anthropic's input_tokens is the uncached rest.
  return { input: usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens, read: usage.cache_read_input_tokens, write: usage.cache_creation_input_tokens };
}

describe('prompt caching matrix through the gateway (9 pairs, official clients)', () => {
  const fakes = {} as Record<WireFormat, FakeUpstream>;
  let gw: SpawnedGateway | undefined;
  let key: string;
  let openai: OpenAI;
  let anthropic: Anthropic;

  const usedCredits = async (): Promise<number> => {
    const res = await fetch(`${gw!.url}/v1/key`, { headers: { authorization: `Bearer ${key}` } });
    return ((await res.json()) as { data: { limit_credits: { used: number } } }).data.limit_credits.used;
  };
  /** Credits drawn by `send` (a streamed request settles when its stream ends: wait for it). */
  async function drawn<T>(send: () => Promise<T>, expected: number): Promise<{ value: T; cost: number }> {
    const before = await usedCredits();
    const value = await send();
    let spent = (await usedCredits()) - before;
    for (let i = 0; i < 50 && Math.abs(spent - expected) > 1e-6; i++) {
      await new Promise((r) => setTimeout(r, 20));
      spent = (await usedCredits()) - before;
    }
    return { value, cost: spent };
  }

  beforeAll(async () => {
    for (const format of FORMATS) fakes[format] = await startFakeUpstream(fakeFor(format));
    const dir = tempDir();
    const dataDir = path.join(dir, 'data');
    const configFile = writeConfig(dir, {
      providers: {
        c: { plugin: 'openai', baseURL: `${fakes.chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: [{ id: 'gpt-chat', pricing: PRICING }] },
        r: { plugin: 'openai', baseURL: `${fakes.responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: [{ id: 'gpt-resp', pricing: PRICING }] },
        a: { plugin: 'anthropic', baseURL: fakes.messages.url, apiKey: 'x', models: [{ id: 'claude-sonnet-4-5', pricing: PRICING }] },
      },
      routing: { retry: { attempts: 1 } },
    });
    const cli = (args: string[]) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
    expect((await cli(['accounts', 'create', '--email', 'matrix@example.com', '--tier', 'enterprise', '--credits', '100000'])).exitCode).toBe(0);
    const created = await cli(['keys', 'create', '--account', 'matrix@example.com', '--json', '--limit', '10000']);
    expect(String(created.stderr)).toBe('');
    key = (JSON.parse(String(created.stdout)) as { key: string }).key;
    gw = await spawnGateway({ configFile, dataDir });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0, timeout: 10_000 });
    anthropic = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0, timeout: 10_000 });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    for (const fake of Object.values(fakes)) await fake?.close();
  });
  beforeEach(() => {
    for (const fake of Object.values(fakes)) fake.requests.length = 0;
    seen.clear();
  });

  /** Sends the conversation once as `client`, to `model`; gives back the usage object the client got. */
  async function send(client: WireFormat, model: string, stream: boolean): Promise<Json> {
    if (client === 'chat') {
      const params: Omit<OpenAI.ChatCompletionCreateParamsNonStreaming, 'stream'> = {
        model,
        messages: [
          { role: 'system', content: LONG_SYSTEM },
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_C1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
          { role: 'tool', tool_call_id: 'call_C1', content: '18°C' },
          { role: 'assistant', content: 'It is 18°C.' },
          { role: 'user', content: 'And tomorrow?' },
        ],
        tools: [WEATHER, TIME].map((f) => ({ type: 'function' as const, function: f })),
      };
      if (!stream) return (await openai.chat.completions.create(params)).usage as Json;
      const final = await openai.chat.completions.stream({ ...params, stream_options: { include_usage: true } }).finalChatCompletion();
      return final.usage as Json;
    }
    if (client === 'responses') {
      const params: Omit<OpenAI.Responses.ResponseCreateParamsNonStreaming, 'stream'> = {
        model,
        instructions: LONG_SYSTEM,
        input: [
          { role: 'user', content: 'Weather in Paris?' },
          { type: 'function_call', call_id: 'call_C1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'function_call_output', call_id: 'call_C1', output: '18°C' },
          { role: 'assistant', content: 'It is 18°C.' },
          { role: 'user', content: 'And tomorrow?' },
        ],
        tools: [WEATHER, TIME].map((t) => ({ type: 'function' as const, ...t, strict: false })),
        store: false,
      };
      if (!stream) return (await openai.responses.create(params)).usage as Json;
      return (await openai.responses.stream(params).finalResponse()).usage as Json;
    }
    const params: Anthropic.MessageCreateParamsNonStreaming = {
      model,
      max_tokens: 512,
      system: [{ type: 'text', text: LONG_SYSTEM, cache_control: HOUR }],
      tools: [
        { name: WEATHER.name, description: WEATHER.description, input_schema: WEATHER.parameters as Anthropic.Tool.InputSchema },
        { name: TIME.name, description: TIME.description, input_schema: TIME.parameters as Anthropic.Tool.InputSchema, cache_control: HOUR },
      ],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_C1', name: 'get_weather', input: { city: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_C1', content: '18°C', cache_control: EPHEMERAL }] },
        { role: 'assistant', content: [{ type: 'text', text: 'It is 18°C.', cache_control: EPHEMERAL }] },
        { role: 'user', content: [{ type: 'text', text: 'And tomorrow?' }] },
      ],
    };
    if (!stream) return (await anthropic.messages.create(params)).usage as unknown as Json;
    return (await anthropic.messages.stream(params).finalMessage()).usage as unknown as Json;
  }

  /** What a Messages upstream must receive from each client. */
  const EXPECTED_MARKERS: Record<WireFormat, string[]> = {
    // The client's own markers, ttl included, unchanged and in place; none added.
    messages: [
      `system[0] ${JSON.stringify(HOUR)}`,
      `tool get_time ${JSON.stringify(HOUR)}`,
      `messages[2] user tool_result ${JSON.stringify(EPHEMERAL)}`,
      `messages[3] assistant text ${JSON.stringify(EPHEMERAL)}`,
    ],
    // Placed by the gateway: the end of tools + system, and the last turn before the new question.
    chat: [`system[0] ${JSON.stringify(EPHEMERAL)}`, `messages[3] assistant text ${JSON.stringify(EPHEMERAL)}`],
    responses: [`system[0] ${JSON.stringify(EPHEMERAL)}`, `messages[3] assistant text ${JSON.stringify(EPHEMERAL)}`],
  };

  for (const stream of [false, true]) {
    for (const client of FORMATS) {
      for (const upstream of FORMATS) {
        it(`${client} client → ${upstream} upstream${stream ? ' (streamed)' : ''}: markers, cache usage in the client's fields, billed at cacheWrite then cacheRead`, async () => {
          const model = MODEL[upstream];
          const written = upstream === 'messages';
          const first = await drawn(() => send(client, model, stream), written ? COST.write : COST.plain);
          const second = await drawn(() => send(client, model, stream), COST.read);

          const bodies = fakes[upstream].requests.map((r) => r.json as Json);
          expect(bodies).toHaveLength(2);
          // Identical requests reach the upstream identically (what lets its cache hit).
          expect(fakes[upstream].requests[1].body).toBe(fakes[upstream].requests[0].body);
          if (upstream === 'messages') {
            expect(markers(bodies[0])).toEqual(EXPECTED_MARKERS[client]);
            expect(bodies[0].system[0].text).toBe(LONG_SYSTEM);
          } else {
            expect(fakes[upstream].requests[0].body).not.toContain('cache_control');
          }

          // The first request: the Anthropic fake wrote 2,600 tokens to the cache, an OpenAI-format one cached nothing.
          expect(cacheUsage(client, first.value)).toEqual({ input: INPUT, read: 0, write: written ? CACHED : 0 });
          expect(first.cost).toBeCloseTo(written ? COST.write : COST.plain, 6);
          // The identical second request read them, at the cache-read price.
          expect(cacheUsage(client, second.value)).toEqual({ input: INPUT, read: CACHED, write: 0 });
          expect(second.cost).toBeCloseTo(COST.read, 6);
        });
      }
    }
  }
});
