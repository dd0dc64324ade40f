/**
 * The routes coding agents use (issue 24), with the request shapes Claude Code and Codex send
 * (docs wire-formats-providers §6), through the real gateway to strict fakes that reject what
 * the real APIs reject: Claude Code's body (a system message inside `messages`, adaptive
 * thinking, `output_config.effort`, `max_tokens: 32000`) to Chat, Responses and Messages
 * upstreams; Codex's body (a `namespace` tool group, `web_search`) to Messages and Chat
 * upstreams; the parameters fitted to the target model and named in `X-Gateway-Adapted`.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

type Json = Record<string, any>;

const WRITE_TOOL = { name: 'Write', description: 'Write a file', input_schema: { type: 'object', properties: { file_path: { type: 'string' }, content: { type: 'string' } }, required: ['file_path', 'content'] } };
const WRITE_INPUT = { file_path: '/tmp/hello.txt', content: 'hello' };

/** Picks the Write tool (Claude Code) or the namespaced spawn tool (Codex) for turn 1. */
function pick(names: string[]) {
  const name = names.find((n) => n === 'Write' || n.endsWith('spawn_agent'));
  return name ? { name, input: WRITE_INPUT } : undefined;
}

/** What Claude Code sends for a model id it does not recognise. */
function claudeCodeBody(model: string, messages: Json[]): Json {
  return {
    model,
    max_tokens: 32000,
    system: [{ type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } }],
    messages,
    tools: [WRITE_TOOL],
    thinking: { type: 'adaptive' },
    output_config: { effort: 'high' },
    metadata: { user_id: 'user_1_account__session_abc' },
    stream: true,
  };
}

const FIRST_TURN = [
  { role: 'user', content: [{ type: 'text', text: 'Write hello to /tmp/hello.txt' }] },
  { role: 'system', content: 'The working directory is /tmp.' },
];

/** What Codex sends (HTTP transport): instructions, a namespace group, web_search, stream. */
function codexBody(model: string, input: Json[]): Json {
  return {
    model,
    instructions: 'You are Codex.',
    input,
    tools: [
      { type: 'function', name: 'shell', description: 'Run a command', strict: false, parameters: { type: 'object', properties: { command: { type: 'array', items: { type: 'string' } } }, required: ['command'] } },
      {
        type: 'namespace',
        name: 'multi_agent_v1',
        description: 'Tools in the multi_agent_v1 namespace.',
        tools: [{ type: 'function', name: 'spawn_agent', description: 'Spawn', strict: false, parameters: { type: 'object', properties: { file_path: { type: 'string' }, content: { type: 'string' } } } }],
      },
      { type: 'web_search', external_web_access: false },
    ],
    tool_choice: 'auto',
    parallel_tool_calls: false,
    store: false,
    stream: true,
    include: [],
    prompt_cache_key: 'thread-1',
  };
}

describe('coding-agent request shapes through converted and passthrough routes', () => {
  let chat: StrictFake;
  let responses: StrictFake;
  let messages: StrictFake;
  let gw: SpawnedGateway;
  let anthropic: Anthropic;
  let openai: OpenAI;

  beforeAll(async () => {
    chat = await startStrictFake({ format: 'chat', models: { 'gpt-4o-mini': { maxOutput: 16384, reasoning: false } }, pick });
    responses = await startStrictFake({ format: 'responses', models: { 'gpt-4.1': { maxOutput: 32768, reasoning: false }, 'gpt-5': { maxOutput: 128000, reasoning: true } }, pick });
    messages = await startStrictFake({ format: 'messages', models: { 'claude-up': { maxOutput: 64000, reasoning: true } }, pick });
    gw = await spawnGateway({
      config: {
        providers: {
          oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
          or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-4.1', 'gpt-5'] },
          ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: [{ id: 'claude-up', maxOutputTokens: 64000, capabilities: ['streaming', 'function_calling', 'thinking'] }] },
        },
      },
    });
    anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0, timeout: 10_000 });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0, timeout: 10_000 });
  });
  afterAll(async () => {
    await gw?.stop();
    for (const fake of [chat, responses, messages]) await fake?.close();
  });
  beforeEach(() => {
    for (const fake of [chat, responses, messages]) {
      fake.requests.length = 0;
      fake.rejections.length = 0;
    }
  });

  /** Claude Code's two turns (tool call, then the result) as an Anthropic SDK stream; returns the second answer's text. */
  async function claudeCodeLoop(model: string, betas?: string): Promise<{ text: string; adapted: string | null }> {
    const headers = betas ? { 'anthropic-beta': betas } : undefined;
    const first = anthropic.messages.stream(claudeCodeBody(model, FIRST_TURN) as never, { headers });
    const firstMessage = await first.finalMessage();
    const adapted = (await first.withResponse()).response.headers.get('x-gateway-adapted');
    const use = firstMessage.content.find((block) => block.type === 'tool_use');
    expect(use).toMatchObject({ name: 'Write', input: WRITE_INPUT });
    const second = await anthropic.messages
      .stream(
        claudeCodeBody(model, [
          ...FIRST_TURN,
          { role: 'assistant', content: firstMessage.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use!.type === 'tool_use' ? use!.id : '', content: 'written' }] },
        ]) as never,
        { headers },
      )
      .finalMessage();
    const text = second.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
    return { text, adapted };
  }

  it('Claude Code → Chat gpt-4o-mini: system message in place, max_tokens clamped to 16384, no reasoning_effort, X-Gateway-Adapted', async () => {
    const { text, adapted } = await claudeCodeLoop('oc/gpt-4o-mini');
    expect(chat.rejections).toEqual([]);
    expect(text).toBe('Done: the file is written.');
    const sent = chat.requests[0].json as Json;
    expect(sent.max_tokens).toBe(16384);
    expect(sent).not.toHaveProperty('reasoning_effort');
    expect(sent.messages.map((m: Json) => m.role)).toEqual(['system', 'user', 'system']);
    expect(adapted).toBe('max_tokens=16384, reasoning=removed');
  });

  it('Claude Code → Responses gpt-4.1: a system message item, no reasoning', async () => {
    const { text } = await claudeCodeLoop('or/gpt-4.1');
    expect(responses.rejections).toEqual([]);
    expect(text).toBe('Done: the file is written.');
    const sent = responses.requests[0].json as Json;
    expect(sent.input.map((item: Json) => item.role)).toEqual(['user', 'system']);
    expect(sent).not.toHaveProperty('reasoning');
  });

  it('Claude Code → Responses gpt-5 (reasons): asks for reasoning.encrypted_content so thinking comes back signed', async () => {
    const { text } = await claudeCodeLoop('or/gpt-5');
    expect(responses.rejections).toEqual([]);
    expect(text).toBe('Done: the file is written.');
    expect(responses.requests[0].json).toMatchObject({ reasoning: { effort: 'high' }, include: ['reasoning.encrypted_content'] });
    // Turn 2 replays the reasoning item with the encrypted content it came with.
    const replayed = (responses.requests[1].json as Json).input.find((item: Json) => item.type === 'reasoning');
    expect(replayed?.encrypted_content).toMatch(/^enc_/);
  });

  it('Claude Code → Messages passthrough under an id it does not know: the body and betas as the client wrote them', async () => {
    const { text } = await claudeCodeLoop('ant/claude-up', 'claude-code-20250219,mid-conversation-system-2026-04-07,claude-code-20250219');
    expect(messages.rejections).toEqual([]);
    expect(text).toBe('Done: the file is written.');
    expect((messages.requests[0].json as Json).messages[1]).toEqual({ role: 'system', content: 'The working directory is /tmp.' });
    expect(messages.requests[0].headers['anthropic-beta']).toBe('claude-code-20250219,mid-conversation-system-2026-04-07');
  });

  it.each(['ant/claude-up', 'oc/gpt-4o-mini'])('Codex → %s: namespace flattened and mapped back, web_search as Claude\'s server tool or dropped and named', async (model) => {
    const fake = model.startsWith('ant') ? messages : chat;
    const input: Json[] = [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Write hello' }] }];
    const { data: stream, response } = await openai.responses.create(codexBody(model, input) as never).withResponse();
    const anthropic = model.startsWith('ant');
    expect(response.headers.get('x-gateway-dropped-tools')).toBe(anthropic ? null : 'web_search');
    const output: Json[] = [];
    for await (const event of stream as unknown as AsyncIterable<Json>) if (event.type === 'response.output_item.done') output.push(event.item);
    const call = output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ name: 'spawn_agent', namespace: 'multi_agent_v1', arguments: JSON.stringify(WRITE_INPUT) });
    const tools = (fake.requests[0].json as Json).tools as Json[];
    expect(tools.map((t) => t.name ?? t.function?.name)).toEqual(anthropic ? ['shell', 'multi_agent_v1__spawn_agent', 'web_search'] : ['shell', 'multi_agent_v1__spawn_agent']);
    if (anthropic) expect(tools[2]).toEqual({ type: 'web_search_20250305', name: 'web_search' });

    const second = await openai.responses.create({ ...codexBody(model, [...input, ...output, { type: 'function_call_output', call_id: call!.call_id, output: 'ok' }]), stream: false } as never);
    expect(fake.rejections).toEqual([]);
    expect((second as unknown as { output_text: string }).output_text).toBe('Done: the file is written.');
  });

  it('a Messages role the gateway does not know: forwarded as written on passthrough, 422 naming it on conversion', async () => {
    const body = { model: 'ant/claude-up', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }, { role: 'narrator', content: 'aside' }], future_field: { a: 1 } };
    const post = (model: string) =>
      fetch(`${gw.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': gw.key ?? '', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, model }),
      });
    await post('ant/claude-up');
    // The upstream judges it (the strict fake, like Anthropic, refuses the role): the gateway did not.
    expect(messages.requests).toHaveLength(1);
    expect(messages.requests[0].json).toMatchObject({ messages: body.messages, future_field: { a: 1 } });
    const converted = await post('oc/gpt-4o-mini');
    expect(converted.status).toBe(422);
    expect(JSON.stringify(await converted.json())).toContain('messages[1].role');
    expect(chat.requests).toHaveLength(0);
  });

  it("hostedTools: 'reject' answers 422 naming the tool instead of dropping it", async () => {
    const strict = await spawnGateway({
      config: { providers: { oc: { plugin: 'openai', baseURL: `${chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'], hostedTools: 'reject' } } },
    });
    try {
      const res = await fetch(`${strict.url}/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${strict.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...codexBody('oc/gpt-4o-mini', [{ role: 'user', content: 'hi' }]), stream: false }),
      });
      expect(res.status).toBe(422);
      expect(JSON.stringify(await res.json())).toContain("'web_search'");
      expect(chat.requests).toHaveLength(0);
    } finally {
      await strict.stop();
    }
  });
});
