/**
 * Prompt caching across the 9 (client × upstream) pairs (issue 16): cache_control markers
 * written by a Messages client reach a Messages upstream unchanged and never reach a Chat or
 * Responses upstream; a Chat or Responses client routed to a Messages upstream gets breakpoints
 * placed by the gateway unless `promptCache: 'off'` (bodies made by the pipeline's own
 * prepareCall; test/e2e/prompt-cache-matrix.test.ts sends the same 9 pairs through the server);
 * prompt_cache_key passes between the OpenAI formats; cache reads/writes reported by any
 * upstream come back in the client format's own usage fields.
 */
import { describe, expect, it } from 'vitest';
import { getCodec } from '../../src/formats/registry.ts';
import { minCacheableTokens, placeCacheBreakpoints } from '../../src/formats/messages/index.ts';
import type { WireFormat } from '../../src/ir/types.ts';
import { prepareCall } from '../../src/pipeline/prepare-call.ts';
import type { ChatExchange } from '../../src/pipeline/types.ts';
import type { CatalogModel, Provider } from '../../src/providers/types.ts';

type Json = Record<string, any>;

const FORMATS: WireFormat[] = ['chat', 'messages', 'responses'];
const PAIRS = FORMATS.flatMap((client) => FORMATS.map((upstream) => ({ client, upstream })));
/** ~2,500 estimated tokens: above Anthropic's minimum cacheable prefix of 1,024. */
const LONG_SYSTEM = `You are a careful assistant. ${'Follow the house style guide to the letter. '.repeat(220)}`;
const WEATHER = { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const TIME = { name: 'get_time', description: 'Local time', parameters: { type: 'object', properties: { tz: { type: 'string' } }, required: ['tz'] } };
const HOUR = { type: 'ephemeral', ttl: '1h' };
const EPHEMERAL = { type: 'ephemeral' };

/** The same conversation (system, tools, a tool round trip, a new question) as each client writes it. */
function clientBody(format: WireFormat): Json {
  if (format === 'messages') {
    return {
      model: 'client-model',
      max_tokens: 512,
      system: [{ type: 'text', text: LONG_SYSTEM, cache_control: HOUR }],
      tools: [
        { name: WEATHER.name, description: WEATHER.description, input_schema: WEATHER.parameters },
        { name: TIME.name, description: TIME.description, input_schema: TIME.parameters, cache_control: HOUR },
      ],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_C1', name: 'get_weather', input: { city: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_C1', content: '18°C', cache_control: EPHEMERAL }] },
        { role: 'assistant', content: [{ type: 'text', text: 'It is 18°C.', cache_control: EPHEMERAL }] },
        { role: 'user', content: [{ type: 'text', text: 'And tomorrow?' }] },
      ],
    };
  }
  if (format === 'chat') {
    return {
      model: 'client-model',
      prompt_cache_key: 'conv-42',
      messages: [
        { role: 'system', content: LONG_SYSTEM },
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_C1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_C1', content: '18°C' },
        { role: 'assistant', content: 'It is 18°C.' },
        { role: 'user', content: 'And tomorrow?' },
      ],
      tools: [WEATHER, TIME].map((t) => ({ type: 'function', function: t })),
    };
  }
  return {
    model: 'client-model',
    prompt_cache_key: 'conv-42',
    instructions: LONG_SYSTEM,
    input: [
      { role: 'user', content: 'Weather in Paris?' },
      { type: 'function_call', call_id: 'call_C1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_C1', output: '18°C' },
      { role: 'assistant', content: 'It is 18°C.' },
      { role: 'user', content: 'And tomorrow?' },
    ],
    tools: [WEATHER, TIME].map((t) => ({ type: 'function', ...t, strict: false })),
  };
}

/** A model of a provider speaking `format`, as the registry builds it (only what prepareCall reads). */
function modelFor(format: WireFormat, promptCache: 'auto' | 'off', hostedTools: 'drop' | 'reject' = 'reject', upstreamId = 'up-model'): CatalogModel {
  const provider = { id: 'up', formats: [format], promptCache, hostedTools } as unknown as Provider;
  return { id: `up/${upstreamId}`, provider, upstreamId, spec: { id: upstreamId }, formats: [format] };
}

/** The body the pipeline sends upstream (src/pipeline/prepare-call.ts, as the live path calls it). */
function toUpstream(client: WireFormat, upstream: WireFormat, body: Json, promptCache: 'auto' | 'off' = 'auto', upstreamId?: string): Json {
  const raw = JSON.stringify(body);
  const exchange = { format: client, raw, body: JSON.parse(raw), forwardHeaders: {}, signal: new AbortController().signal, ids: { requestId: 'req_1', correlationId: 'req_1' } } as ChatExchange;
  const request = getCodec(client).decodeRequest(structuredClone(body));
  const { call } = prepareCall(exchange, request, modelFor(upstream, promptCache, 'reject', upstreamId), { defaultMaxTokens: 4096 });
  return JSON.parse(call.rawBody ?? JSON.stringify(call.body)) as Json;
}

/** Every cache_control in a Messages body, as `<where> <marker>`. */
function markers(body: Json): string[] {
  const out: string[] = [];
  const system = typeof body.system === 'string' ? [] : (body.system ?? []);
  system.forEach((b: Json, i: number) => b.cache_control && out.push(`system[${i}] ${JSON.stringify(b.cache_control)}`));
  (body.tools ?? []).forEach((t: Json) => t.cache_control && out.push(`tool ${t.name} ${JSON.stringify(t.cache_control)}`));
  (body.messages ?? []).forEach((m: Json, i: number) => {
    if (!Array.isArray(m.content)) return;
    m.content.forEach((b: Json) => b.cache_control && out.push(`messages[${i}] ${m.role} ${b.type} ${JSON.stringify(b.cache_control)}`));
  });
  return out;
}

const UPSTREAM_CACHED_USAGE: Record<WireFormat, Json> = {
  chat: { prompt_tokens: 3000, completion_tokens: 20, total_tokens: 3020, prompt_tokens_details: { cached_tokens: 2600 } },
  messages: { input_tokens: 400, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 2600 },
  responses: { input_tokens: 3000, input_tokens_details: { cached_tokens: 2600 }, output_tokens: 20, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 3020 },
};

function upstreamAnswer(format: WireFormat): Json {
  if (format === 'chat') {
    return { id: 'chatcmpl-u', object: 'chat.completion', created: 1, model: 'up-model', choices: [{ index: 0, message: { role: 'assistant', content: 'Sunny.' }, finish_reason: 'stop' }], usage: UPSTREAM_CACHED_USAGE.chat };
  }
  if (format === 'messages') {
    return { id: 'msg_u', type: 'message', role: 'assistant', model: 'up-model', content: [{ type: 'text', text: 'Sunny.' }], stop_reason: 'end_turn', stop_sequence: null, usage: UPSTREAM_CACHED_USAGE.messages };
  }
  return {
    id: 'resp_u', object: 'response', created_at: 1, status: 'completed', model: 'up-model',
    output: [{ type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Sunny.', annotations: [] }] }],
    usage: UPSTREAM_CACHED_USAGE.responses,
  };
}

/** The cached-read count as the client's format reports it. */
function cachedIn(format: WireFormat, body: Json): Json {
  const usage = body.usage;
  if (format === 'chat') return { total: usage.prompt_tokens, cached: usage.prompt_tokens_details.cached_tokens };
  if (format === 'messages') return { total: usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens, cached: usage.cache_read_input_tokens };
  return { total: usage.input_tokens, cached: usage.input_tokens_details.cached_tokens };
}

for (const { client, upstream } of PAIRS) describe(`prompt cache: ${client} client → ${upstream} upstream`, () => {
  it('cache markers reach the upstream as expected', () => {
    const body = toUpstream(client, upstream, clientBody(client));
    if (upstream !== 'messages') {
      // Chat and Responses upstreams do not accept cache_control (ttl broke them elsewhere): never forwarded.
      expect(JSON.stringify(body)).not.toContain('cache_control');
      return;
    }
    const expected =
      client === 'messages'
        ? // The client's own markers, ttl included, unchanged and in place; none added.
          [
            `system[0] ${JSON.stringify(HOUR)}`,
            `tool get_time ${JSON.stringify(HOUR)}`,
            `messages[2] user tool_result ${JSON.stringify(EPHEMERAL)}`,
            `messages[3] assistant text ${JSON.stringify(EPHEMERAL)}`,
          ]
        : // Placed by the gateway: the end of tools+system, and the last turn before the new question.
          [`system[0] ${JSON.stringify(EPHEMERAL)}`, `messages[3] assistant text ${JSON.stringify(EPHEMERAL)}`];
    expect(markers(body)).toEqual(expected);
    expect(body.system[0].text).toBe(LONG_SYSTEM);
  });

  it("promptCache: 'off' places no breakpoints", () => {
    const body = toUpstream(client, upstream, clientBody(client), 'off');
    if (client === 'messages' && upstream === 'messages') expect(markers(body)).toHaveLength(4);
    else expect(JSON.stringify(body)).not.toContain('cache_control');
  });

  it("prompt_cache_key passes through only to OpenAI-format upstreams (converted to Chat: OpenAI's models only)", () => {
    const body = toUpstream(client, upstream, clientBody(client), 'auto', 'gpt-4.1');
    if (client === 'messages' || upstream === 'messages') expect(body.prompt_cache_key).toBeUndefined();
    else expect(body.prompt_cache_key).toBe('conv-42');
    // Another vendor's Chat server (Groq) refuses it: 400 "property 'prompt_cache_key' is unsupported".
    if (client === 'responses' && upstream === 'chat') expect(toUpstream(client, upstream, clientBody(client), 'auto', 'llama-3.3-70b-versatile').prompt_cache_key).toBeUndefined();
  });

  it('cached input reported by the upstream reaches the client in its own fields', () => {
    const request = getCodec(client).decodeRequest(clientBody(client));
    const response = getCodec(upstream).decodeResponse(upstreamAnswer(upstream));
    expect(response.usage).toMatchObject({ inputTokens: 3000, cacheReadTokens: 2600 });
    expect(cachedIn(client, getCodec(client).encodeResponse(response, request))).toEqual({ total: 3000, cached: 2600 });
  });
});

describe('prompt_cache_retention and prompt_cache_options', () => {
  const fields = { prompt_cache_retention: '24h', prompt_cache_options: { mode: 'implicit', ttl: '30m' } };

  it.each(PAIRS.filter(({ client }) => client !== 'messages'))('$client client → $upstream upstream: carried between the OpenAI formats only', ({ client, upstream }) => {
    const body = toUpstream(client, upstream, { ...clientBody(client), ...fields }, 'auto', 'gpt-4.1');
    if (upstream === 'messages') {
      expect(body).not.toHaveProperty('prompt_cache_retention');
      expect(body).not.toHaveProperty('prompt_cache_options');
    } else {
      expect(body).toMatchObject(fields);
    }
  });
});

describe('placeCacheBreakpoints', () => {
  const long = (text: string) => `${text} ${'x'.repeat(6000)}`;

  it('leaves a short system string a string on a first turn', () => {
    const body: Json = { system: 'Be brief.', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] };
    placeCacheBreakpoints(body);
    expect(body.system).toBe('Be brief.');
  });

  it('places nothing on a short request (below the minimum cacheable length)', () => {
    const body: Json = { system: 'Be terse.', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }, { role: 'assistant', content: [{ type: 'text', text: 'Hello' }] }, { role: 'user', content: [{ type: 'text', text: 'Again' }] }] };
    placeCacheBreakpoints(body);
    expect(body.system).toBe('Be terse.');
    expect(markers(body)).toEqual([]);
  });

  it('marks the last tool when there is no system prompt, and no history on a first turn', () => {
    const body: Json = { tools: [{ name: 'a', input_schema: { description: long('a') } }, { name: 'b', input_schema: {} }], messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }] };
    placeCacheBreakpoints(body);
    expect(markers(body)).toEqual([`tool b ${JSON.stringify(EPHEMERAL)}`]);
  });

  it('never exceeds 4 breakpoints, counting the client’s own (tool_result contents included)', () => {
    const body: Json = {
      system: [{ type: 'text', text: long('sys') }],
      tools: [{ name: 'a', input_schema: {}, cache_control: EPHEMERAL }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'one', cache_control: EPHEMERAL }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'a', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'r', cache_control: EPHEMERAL }] }] },
        { role: 'assistant', content: [{ type: 'text', text: 'two' }] },
        { role: 'user', content: [{ type: 'text', text: 'three' }] },
      ],
    };
    placeCacheBreakpoints(body);
    // 3 from the client + 1 placed (the system prompt first); the history mark did not fit.
    expect(body.system[0].cache_control).toEqual(EPHEMERAL);
    expect(body.messages[3].content[0].cache_control).toBeUndefined();
  });

  it('skips thinking blocks, which cannot carry a marker', () => {
    const body: Json = {
      system: long('sys'),
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'a' }, { type: 'thinking', thinking: 't', signature: 's' }] },
        { role: 'user', content: [{ type: 'text', text: 'q2' }] },
      ],
    };
    placeCacheBreakpoints(body);
    expect(body.messages[1].content[0].cache_control).toEqual(EPHEMERAL);
    expect(body.messages[1].content[1].cache_control).toBeUndefined();
  });
});

describe("Anthropic's minimum cacheable length per model", () => {
  it.each([
    ['claude-sonnet-4-5-20250929', 1024],
    ['claude-sonnet-4-6', 1024],
    ['claude-opus-4-1-20250805', 1024],
    ['claude-opus-4-20250514', 1024],
    ['claude-3-7-sonnet-20250219', 1024],
    ['claude-opus-4-5-20251101', 4096],
    ['claude-opus-4-6', 4096],
    ['claude-opus-4-7', 2048],
    ['claude-haiku-4-5-20251001', 4096],
    ['anthropic/claude-haiku-4.5', 4096],
    ['us.anthropic.claude-haiku-4-5-20251001-v1:0', 4096],
    ['claude-3-5-haiku-20241022', 2048],
    ['claude-3-haiku-20240307', 2048],
    ['anthropic.claude-3-haiku-20240307-v1:0', 2048],
    ['some-unknown-model', 1024],
  ])('%s → %i tokens', (model, tokens) => {
    expect(minCacheableTokens(model)).toBe(tokens);
  });

  /** A converted request whose system prompt is estimated at about `tokens` tokens (4 chars each). */
  const withSystem = (model: string, tokens: number): Json => ({
    model,
    system: 's'.repeat(tokens * 4 - 2),
    messages: [{ role: 'user', content: [{ type: 'text', text: 'q' }] }, { role: 'assistant', content: [{ type: 'text', text: 'a' }] }, { role: 'user', content: [{ type: 'text', text: 'q2' }] }],
  });

  it.each([
    ['claude-sonnet-4-5', 1100, true],
    ['claude-3-5-haiku-20241022', 1100, false],
    ['claude-3-5-haiku-20241022', 2100, true],
    ['claude-haiku-4-5', 3000, false],
    ['claude-haiku-4-5', 4200, true],
    ['claude-opus-4-6', 3000, false],
  ] as const)('%s with a ~%i-token prefix: breakpoints placed = %s', (model, tokens, placed) => {
    const body = withSystem(model, tokens);
    placeCacheBreakpoints(body);
    expect(markers(body)).toEqual(placed ? [`system[0] ${JSON.stringify(EPHEMERAL)}`, `messages[1] assistant text ${JSON.stringify(EPHEMERAL)}`] : []);
  });

  it('through the Messages encoder: the upstream model id picks the minimum', () => {
    const chat = { model: 'x', messages: [{ role: 'system', content: 'h'.repeat(12_000) }, { role: 'user', content: 'hi' }] };
    const encode = (upstreamModel: string) =>
      getCodec('messages').encodeRequest(getCodec('chat').decodeRequest(structuredClone(chat)), { upstreamModel, defaultMaxTokens: 1024, autoCache: true });
    expect(markers(encode('claude-sonnet-4-5'))).toEqual([`system[0] ${JSON.stringify(EPHEMERAL)}`]);
    expect(markers(encode('claude-haiku-4-5'))).toEqual([]);
  });
});

describe('cache_control on Chat content parts (OpenRouter-style clients)', () => {
  const chat: Json = {
    model: 'client-model',
    messages: [
      { role: 'system', content: [{ type: 'text', text: 'Short rules.' }, { type: 'text', text: LONG_SYSTEM, cache_control: HOUR }] },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' }, cache_control: EPHEMERAL }, { type: 'text', text: 'Weather in Paris?' }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_C1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_C1', content: [{ type: 'text', text: '18°C', cache_control: EPHEMERAL }] },
      { role: 'user', content: 'And tomorrow?' },
    ],
    tools: [{ type: 'function', function: WEATHER }],
  };

  it('reach a Messages upstream in place (ttl kept), counted toward the limit of 4', () => {
    const body = toUpstream('chat', 'messages', chat);
    expect(markers(body)).toEqual([
      `system[1] ${JSON.stringify(HOUR)}`,
      `messages[0] user image ${JSON.stringify(EPHEMERAL)}`,
      // The one the gateway adds: the last turn before the final user turn (the tool result and
      // the new question are one Anthropic user message). The system prompt is already marked.
      `messages[1] assistant tool_use ${JSON.stringify(EPHEMERAL)}`,
      `messages[2] user tool_result ${JSON.stringify(EPHEMERAL)}`,
    ]);
    expect(body.system[1].text).toBe(LONG_SYSTEM);
    expect(toUpstream('chat', 'messages', chat, 'off').system[1].cache_control).toEqual(HOUR);
  });

  it('an assistant text part keeps its marker too', () => {
    const body = toUpstream('chat', 'messages', { model: 'm', messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: [{ type: 'text', text: 'a', cache_control: EPHEMERAL }] }, { role: 'user', content: 'q2' }] });
    expect(markers(body)).toEqual([`messages[1] assistant text ${JSON.stringify(EPHEMERAL)}`]);
  });

  it('never reach a Responses upstream', () => {
    expect(JSON.stringify(toUpstream('chat', 'responses', chat))).not.toContain('cache_control');
  });

  it('a Chat upstream gets the client body byte for byte (same-format passthrough)', () => {
    const raw = JSON.stringify(chat);
    const exchange = { format: 'chat', raw, body: JSON.parse(raw), forwardHeaders: {}, signal: new AbortController().signal, ids: { requestId: 'r', correlationId: 'r' } } as ChatExchange;
    const model = { ...modelFor('chat', 'auto'), upstreamId: 'client-model' };
    expect(prepareCall(exchange, getCodec('chat').decodeRequest(structuredClone(chat)), model, { defaultMaxTokens: 4096 }).call.rawBody).toBe(raw);
  });
});

describe('Messages markers and is_error on other blocks', () => {
  const body: Json = {
    model: 'client-model',
    max_tokens: 64,
    messages: [
      { role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' }, cache_control: EPHEMERAL }, { type: 'text', text: 'Look' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'look', input: {}, cache_control: HOUR }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'boom', is_error: true }] },
    ],
  };

  it('image and tool_use markers and is_error reach a Messages upstream through the IR', () => {
    const sent = toUpstream('messages', 'messages', body);
    expect(sent.messages[0].content[0].cache_control).toEqual(EPHEMERAL);
    expect(sent.messages[1].content[0].cache_control).toEqual(HOUR);
    expect(sent.messages[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1', content: 'boom', is_error: true });
  });

  it.each(['chat', 'responses'] as const)('a %s upstream gets the tool result text without is_error or markers (it has no field for them)', (upstream) => {
    const sent = JSON.stringify(toUpstream('messages', upstream, body));
    expect(sent).toContain('boom');
    expect(sent).not.toContain('is_error');
    expect(sent).not.toContain('cache_control');
  });
});

describe("hosted tools are never dropped silently (prepareCall, hostedTools: 'reject'; 'drop' names them)", () => {
  const send = (upstream: WireFormat, body: Json) => () => toUpstream('responses', upstream, { model: 'client-model', input: 'Search the news', ...body });

  const prepare = (upstream: WireFormat, tools: Json[]) => {
    const body = { model: 'client-model', input: 'Search the news', tools: [...tools, { type: 'function', ...WEATHER }], tool_choice: { type: tools[0]!.type } };
    const exchange = { format: 'responses', raw: JSON.stringify(body), body, forwardHeaders: {}, signal: new AbortController().signal, ids: { requestId: 'r', correlationId: 'r' } } as ChatExchange;
    return prepareCall(exchange, getCodec('responses').decodeRequest(structuredClone(body)), modelFor(upstream, 'auto', 'drop'), { defaultMaxTokens: 4096 });
  };

  it("policy 'drop' (the default) leaves them out of a chat upstream's body and names them", () => {
    const prepared = prepare('chat', [{ type: 'web_search' }]);
    expect(prepared.droppedTools).toEqual(['web_search']);
    expect(JSON.stringify(prepared.call.body)).not.toContain('web_search');
  });

  it("policy 'drop' leaves out what a messages upstream cannot run, and maps web_search onto its server tool", () => {
    const prepared = prepare('messages', [{ type: 'file_search', vector_store_ids: ['vs_1'] }, { type: 'web_search', filters: { allowed_domains: ['example.com'] } }]);
    expect(prepared.droppedTools).toEqual(['file_search']);
    expect(prepared.call.body.tools).toContainEqual({ type: 'web_search_20250305', name: 'web_search', allowed_domains: ['example.com'] });
    expect(JSON.stringify(prepared.call.body)).not.toContain('file_search');
  });

  it('a hosted tool → 422 naming the tool and the model for a chat upstream', () => {
    expect(send('chat', { tools: [{ type: 'web_search' }] })).toThrow(/'web_search'.*'up\/up-model'/);
  });

  it('a hosted tool without an Anthropic equivalent → 422 naming only it for a messages upstream', () => {
    expect(send('messages', { tools: [{ type: 'web_search' }, { type: 'file_search', vector_store_ids: ['vs_1'] }] })).toThrow(/hosted tool 'file_search' is not supported.*'up\/up-model'/i);
  });

  it.each(['chat', 'messages'] as const)('a hosted tool forced by tool_choice alone → 422 too for a %s upstream', (upstream) => {
    expect(send(upstream, { tool_choice: { type: 'web_search_preview' } })).toThrow(/'web_search_preview'.*'up\/up-model'/);
  });

  it('a Responses upstream gets both as sent', () => {
    const body = send('responses', { tools: [{ type: 'web_search' }], tool_choice: { type: 'web_search' } })();
    expect(body.tools).toEqual([{ type: 'web_search' }]);
    expect(body.tool_choice).toEqual({ type: 'web_search' });
  });

  it('allowed_tools over function tools is not a hosted tool (its mode converts)', () => {
    const tools = [{ type: 'function', ...WEATHER }];
    const body = send('messages', { tools, tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'get_weather' }] } })();
    expect(body.tool_choice).toEqual({ type: 'any' });
  });
});

describe('Anthropic-defined tools are never dropped silently either', () => {
  const WEB_SEARCH = { type: 'web_search_20250305', name: 'web_search', max_uses: 3 };
  const messagesBody: Json = {
    model: 'client-model',
    max_tokens: 256,
    tools: [{ name: WEATHER.name, input_schema: WEATHER.parameters }, WEB_SEARCH, { type: 'bash_20250124', name: 'bash' }],
    messages: [{ role: 'user', content: 'Search the news' }],
  };

  it('a Messages request with them → 422 naming them and the model for a chat upstream', () => {
    expect(() => toUpstream('messages', 'chat', messagesBody)).toThrow(/Anthropic tool 'web_search_20250305', 'bash_20250124'.*'up\/up-model'.*Anthropic Messages API/);
  });

  it('a responses upstream runs the web search; the 422 names only the tool it cannot run', () => {
    expect(() => toUpstream('messages', 'responses', messagesBody)).toThrow(/Anthropic tool 'bash_20250124' is not supported.*'up\/up-model'/);
    const body = toUpstream('messages', 'responses', { ...messagesBody, tools: [messagesBody.tools[0], WEB_SEARCH] });
    expect(body.tools).toContainEqual({ type: 'web_search' });
  });

  it('a Messages request without them converts as before', () => {
    const body = toUpstream('messages', 'chat', { ...messagesBody, tools: [messagesBody.tools[0]] });
    expect(body.tools).toEqual([{ type: 'function', function: { name: WEATHER.name, parameters: WEATHER.parameters } }]);
  });

  it('they survive the IR to a Messages upstream, after the client tools', () => {
    const request = getCodec('messages').decodeRequest(structuredClone(messagesBody));
    expect(request.tools?.map((t) => t.name)).toEqual(['get_weather']);
    const body = getCodec('messages').encodeRequest(request, { upstreamModel: 'claude', defaultMaxTokens: 1024 });
    expect(body.tools).toEqual([{ name: WEATHER.name, input_schema: WEATHER.parameters }, WEB_SEARCH, { type: 'bash_20250124', name: 'bash' }]);
    expect(body).not.toHaveProperty('serverTools');
  });
});

describe("OpenAI's explicit breakpoints (prompt_cache_breakpoint) reach Claude as cache_control", () => {
  const EXPLICIT = { mode: 'explicit' };
  const chat: Json = {
    model: 'client-model',
    messages: [
      { role: 'system', content: [{ type: 'text', text: 'Shared instructions.', prompt_cache_breakpoint: EXPLICIT }] },
      { role: 'user', content: [{ type: 'text', text: 'A long document.', prompt_cache_breakpoint: EXPLICIT }, { type: 'text', text: 'Summarize it.' }] },
    ],
  };
  const responses: Json = {
    model: 'client-model',
    input: [
      { role: 'developer', content: [{ type: 'input_text', text: 'Shared instructions.', prompt_cache_breakpoint: EXPLICIT }] },
      { role: 'user', content: [{ type: 'input_text', text: 'A long document.', prompt_cache_breakpoint: EXPLICIT }, { type: 'input_text', text: 'Summarize it.' }] },
    ],
  };

  it.each([
    ['chat', chat],
    ['responses', responses],
  ] as const)('a %s client → a Messages upstream gets them as ephemeral markers in place', (client, body) => {
    const sent = toUpstream(client, 'messages', body);
    expect(markers(sent)).toEqual([`system[0] ${JSON.stringify(EPHEMERAL)}`, `messages[0] user text ${JSON.stringify(EPHEMERAL)}`]);
    expect(JSON.stringify(sent)).not.toContain('prompt_cache_breakpoint');
  });

  it('an unknown mode is not a breakpoint', () => {
    const body = structuredClone(chat);
    body.messages[1].content[0].prompt_cache_breakpoint = { mode: 'implicit' };
    expect(markers(toUpstream('chat', 'messages', body))).toEqual([`system[0] ${JSON.stringify(EPHEMERAL)}`]);
  });

  it('converted between the OpenAI formats they stay OpenAI breakpoints, in place (never a cache_control)', () => {
    const toResponses = toUpstream('chat', 'responses', chat);
    expect(toResponses.instructions).toBeUndefined();
    expect(toResponses.input).toEqual([
      { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'Shared instructions.', prompt_cache_breakpoint: EXPLICIT }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'A long document.', prompt_cache_breakpoint: EXPLICIT }, { type: 'input_text', text: 'Summarize it.' }] },
    ]);
    const toChat = toUpstream('responses', 'chat', responses);
    expect(toChat.messages).toEqual([
      { role: 'developer', content: [{ type: 'text', text: 'Shared instructions.', prompt_cache_breakpoint: EXPLICIT }] },
      { role: 'user', content: [{ type: 'text', text: 'A long document.', prompt_cache_breakpoint: EXPLICIT }, { type: 'text', text: 'Summarize it.' }] },
    ]);
    for (const body of [toResponses, toChat]) expect(JSON.stringify(body)).not.toContain('cache_control');
    expect(toUpstream('responses', 'responses', responses).input[1].content[0].prompt_cache_breakpoint).toEqual(EXPLICIT);
  });

  it('a lone marked text part, a tool result and an image keep them on a Chat upstream', () => {
    const body = toUpstream('responses', 'chat', {
      model: 'm',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'Doc', prompt_cache_breakpoint: EXPLICIT }] },
        { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_1', output: [{ type: 'input_text', text: 'result', prompt_cache_breakpoint: EXPLICIT }] },
        { role: 'user', content: [{ type: 'input_image', image_url: 'https://example.com/a.png', prompt_cache_breakpoint: EXPLICIT }] },
      ],
    });
    expect(body.messages[0].content).toEqual([{ type: 'text', text: 'Doc', prompt_cache_breakpoint: EXPLICIT }]);
    expect(body.messages[2].content).toEqual([{ type: 'text', text: 'result', prompt_cache_breakpoint: EXPLICIT }]);
    expect(body.messages[3].content).toEqual([{ type: 'image_url', image_url: { url: 'https://example.com/a.png' }, prompt_cache_breakpoint: EXPLICIT }]);
  });

  it('a Responses request re-encoded (as for previous_response_id) keeps them', () => {
    const codec = getCodec('responses');
    const again: Json = codec.encodeRequest(codec.decodeRequest(structuredClone(responses)), { upstreamModel: 'm' });
    expect(again.input[0].content[0].prompt_cache_breakpoint).toEqual(EXPLICIT);
    expect(again.input[1].content[0].prompt_cache_breakpoint).toEqual(EXPLICIT);
  });
});

describe("Gemini's googleSearch is the gemini face's vendor tool, decoded or not", () => {
  const body: Json = { contents: [{ role: 'user', parts: [{ text: 'Search the news' }] }], tools: [{ googleSearch: {} }] };
  const target = { model: 'client-model', stream: false };
  const prepare = (upstream: WireFormat) => {
    const raw = JSON.stringify(body);
    const exchange = { format: 'gemini', raw, body: JSON.parse(raw), target, forwardHeaders: {}, signal: new AbortController().signal, ids: { requestId: 'r', correlationId: 'r' } } as ChatExchange;
    return prepareCall(exchange, getCodec('gemini').decodeRequest(structuredClone(body), target), modelFor(upstream, 'auto'), { defaultMaxTokens: 4096 });
  };

  it('a Chat upstream (no hosted web search) cannot run it: 422 naming the tool and the Gemini API', () => {
    expect(() => prepare('chat')).toThrow(/hosted tool 'googleSearch' is not supported by model 'up\/up-model'.*the Gemini API/i);
  });

  it('a Responses upstream runs it as its own web_search', () => {
    expect(prepare('responses').call.body.tools).toEqual([{ type: 'web_search' }]);
  });
});
