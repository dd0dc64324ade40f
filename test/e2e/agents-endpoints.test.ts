/**
 * The helper endpoints agents and SDKs call (issue 24), through the real gateway with the
 * official SDKs: the Anthropic SDK's `messages.countTokens` and `models.list` / `retrieve`, the
 * OpenAI SDK's `responses.inputTokens.count` — the upstream's own counter where it has one (in
 * the client's format, or converted to the upstream's: Claude Code counting on a GPT or Gemini
 * model), else a local tokenizer count, never zero — and the warn line an inference 4xx leaves.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { runCli, spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';

/** The id of a tool_result block whose tool_use the message before it does not hold, if any. */
function loneToolResult(messages: unknown): string | undefined {
  const list = Array.isArray(messages) ? (messages as Array<{ content?: unknown }>) : [];
  const blocks = (message: { content?: unknown } | undefined) => (Array.isArray(message?.content) ? (message.content as Array<Record<string, unknown>>) : []);
  for (let i = 0; i < list.length; i += 1) {
    for (const block of blocks(list[i])) {
      if (block.type === 'tool_result' && !blocks(list[i - 1]).some((use) => use.type === 'tool_use' && use.id === block.tool_use_id)) return String(block.tool_use_id);
    }
  }
  return undefined;
}

describe('count_tokens, input_tokens, models in Anthropic shape, client-error warnings', () => {
  let counting: FakeUpstream;
  let gw: SpawnedGateway;
  let anthropic: Anthropic;
  let openai: OpenAI;

  beforeAll(async () => {
    counting = await startFakeUpstream((request) => {
      if (request.path === '/v1/messages/count_tokens') {
        // Anthropic's counter refuses a tool_result whose tool_use is not in the message before it, as its Messages API does.
        const lone = loneToolResult(request.json?.messages);
        if (lone) return { status: 400, json: { type: 'error', error: { type: 'invalid_request_error', message: `messages.0.content.0: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${lone}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.` } } };
        return { json: { input_tokens: 4242 } };
      }
      if (request.path === '/v1/responses/input_tokens') {
        // OpenAI's counter refuses what it does not take (a converted body must leave max_output_tokens, store, stream… out).
        const unknown = Object.keys(request.json ?? {}).filter((key) => !['model', 'input', 'instructions', 'tools', 'tool_choice', 'parallel_tool_calls', 'reasoning', 'text', 'truncation', 'conversation', 'previous_response_id'].includes(key));
        if (unknown.length > 0) return { status: 400, json: { error: { message: `Unknown parameter: '${unknown[0]}'.`, type: 'invalid_request_error', param: unknown[0], code: 'unknown_parameter' } } };
        // …and a function_call_output whose function_call the input does not hold.
        const input = Array.isArray(request.json?.input) ? (request.json.input as Array<Record<string, unknown>>) : [];
        const output = input.find((item) => item.type === 'function_call_output' && !input.some((call) => call.type === 'function_call' && call.call_id === item.call_id));
        if (output) return { status: 400, json: { error: { message: `No tool call found for function call output with call_id ${String(output.call_id)}.`, type: 'invalid_request_error', param: 'input', code: null } } };
        return { json: { object: 'response.input_tokens', input_tokens: 4343 } };
      }
      if (request.path === '/v1beta/models/gemini-2.5-flash:countTokens') return { json: { totalTokens: 4444, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 4444 }] } };
      return { status: 500, json: { error: { message: 'not scripted' } } };
    });
    gw = await spawnGateway({
      config: {
        providers: {
          ant: { plugin: 'anthropic', baseURL: counting.url, apiKey: 'x', models: [{ id: 'claude-up', displayName: 'Claude Up', contextWindow: 200000, maxOutputTokens: 64000 }] },
          or: { plugin: 'openai', baseURL: `${counting.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5'] },
          oc: { plugin: 'openai', baseURL: `${counting.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4o-mini'] },
          gg: { plugin: 'google', baseURL: counting.url, apiKey: 'goog-key', models: ['gemini-2.5-flash'] },
        },
      },
    });
    anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0, timeout: 10_000 });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0, timeout: 10_000 });
  });
  afterAll(async () => {
    await gw?.stop();
    await counting?.close();
  });

  const TEXT = 'The quick brown fox jumps over the lazy dog. '.repeat(20);
  /** A 1×1 PNG. */
  const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

  // First: the count_tokens error case below shares its key and code (one line per key and code per minute).
  it('an inference 4xx leaves one warn line with the request id, code and field, rate-limited per key and code', async () => {
    // Converted (Chat client → Messages upstream): a same-format request would be forwarded as written (issue 24 §1).
    const bad = { model: 'ant/claude-up', messages: [{ role: 'user', content: 'hi' }], temperature: 7 };
    const send = () => fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' }, body: JSON.stringify(bad) });
    const first = await send();
    expect(first.status).toBe(422);
    const requestId = first.headers.get('x-request-id')!;
    const line = await until('the warn line', async () => gw.stderr().split('\n').find((l) => l.includes('client error') && l.includes(requestId)));
    expect(line).toContain('warn');
    expect(line).toContain('code=validation_error');
    expect(line).toContain('field=temperature');
    const second = await send();
    expect(second.status).toBe(422);
    const again = second.headers.get('x-request-id')!;
    // A later, different error is logged: so the second 422 had its chance to be, and was not.
    const other = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'nope/none', messages: [{ role: 'user', content: 'hi' }] }) });
    const otherId = other.headers.get('x-request-id')!;
    await until('the other warn line', async () => gw.stderr().split('\n').find((l) => l.includes('client error') && l.includes(otherId)));
    expect(gw.stderr()).not.toContain(again);
  });

  it("messages.countTokens on an Anthropic upstream: the upstream's count, body forwarded with its model id", async () => {
    const { data, response } = await anthropic.messages.countTokens({ model: 'ant/claude-up', messages: [{ role: 'user', content: TEXT }] }).withResponse();
    expect(data).toEqual({ input_tokens: 4242 });
    expect(response.headers.get('x-gateway-token-count')).toBe('upstream');
    const sent = counting.requests.find((r) => r.path === '/v1/messages/count_tokens')!;
    expect(sent.json).toMatchObject({ model: 'claude-up', messages: [{ role: 'user', content: TEXT }] });
    // The live window (TUI, gateway status, the operator page) names the model and the provider that counted (none before).
    const status = await runCli(['--config', gw.configFile, '--data-dir', gw.dataDir, 'status', '--json']);
    const latest = (JSON.parse(String(status.stdout)) as { latest: Array<{ route: string; model: string | null; provider: string | null }> }).latest[0];
    expect(latest).toMatchObject({ route: '/v1/messages/count_tokens', model: 'ant/claude-up', provider: 'ant' });
  });

  // Before, a count whose model spoke another format was local (tiktoken's o200k: an estimate for Gemini, seconds of CPU on a long conversation).
  it.each([
    ['or/gpt-5', 4343, '/v1/responses/input_tokens'],
    ['gg/gemini-2.5-flash', 4444, '/v1beta/models/gemini-2.5-flash:countTokens'],
  ])("messages.countTokens on %s: the request converted to the upstream's counter, its count in Anthropic's answer", async (model, tokens, route) => {
    counting.requests.length = 0;
    const { data, response } = await anthropic.messages
      .countTokens({ model, system: 'Be brief.', messages: [{ role: 'user', content: TEXT }], tools: [{ name: 'lookup', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }] })
      .withResponse();
    expect(data).toEqual({ input_tokens: tokens });
    expect(response.headers.get('x-gateway-token-count')).toBe('upstream');
    const sent = counting.requests.find((r) => r.path === route)!.json as Record<string, any>;
    if (model === 'or/gpt-5') expect(sent).toMatchObject({ model: 'gpt-5', instructions: 'Be brief.', input: [{ role: 'user', content: [{ type: 'input_text', text: TEXT }] }], tools: [{ type: 'function', name: 'lookup' }] });
    else expect(sent).toMatchObject({ generateContentRequest: { model: 'models/gemini-2.5-flash', systemInstruction: { parts: [{ text: 'Be brief.' }] }, contents: [{ role: 'user', parts: [{ text: TEXT }] }] } });
  });

  // gemini-cli counts a tool's output alone (a functionResponse and the media a tool read, no functionCall before it):
  // Anthropic's and OpenAI's counters refuse a result without its call, so the count went local (tiktoken's estimate).
  it.each([
    ['ant/claude-up', 4242, '/v1/messages/count_tokens'],
    ['or/gpt-5', 4343, '/v1/responses/input_tokens'],
  ])("@google/genai's countTokens of a lone functionResponse on %s: the upstream's count", async (model, tokens, route) => {
    counting.requests.length = 0;
    const ai = new GoogleGenAI({ apiKey: gw.key!, httpOptions: { baseUrl: gw.url, timeout: 25_000 } });
    const counted = await ai.models.countTokens({
      model,
      contents: [{ role: 'user', parts: [{ functionResponse: { name: 'read_file', response: { output: TEXT } } }, { inlineData: { mimeType: 'image/png', data: PNG } }] }],
    });
    expect(counted.totalTokens).toBe(tokens);
    const sent = JSON.stringify(counting.requests.find((r) => r.path === route)!.json);
    // The tool's words and the image are counted.
    expect(sent).toContain('The quick brown fox');
    expect(sent).toContain(PNG);
  });

  it('messages.countTokens on a Chat upstream: a local count, about 10 tokens per sentence, never zero', async () => {
    // The first local count loads the tokenizer's ranks (seconds on a busy machine): more than the client's 10 s.
    const { data, response } = await anthropic.messages.countTokens({ model: 'oc/gpt-4o-mini', system: 'Be brief.', messages: [{ role: 'user', content: TEXT }] }, { timeout: 25_000 }).withResponse();
    expect(response.headers.get('x-gateway-token-count')).toBe('local');
    // 20 × "The quick brown fox jumps over the lazy dog. " is 200 tokens in o200k_base; framing adds a few.
    expect(data.input_tokens).toBeGreaterThanOrEqual(200);
    expect(data.input_tokens).toBeLessThan(230);
  });

  it('responses.inputTokens.count: upstream on a Responses upstream and (converted) on a Messages one, local on Chat', async () => {
    const upstream = await openai.responses.inputTokens.count({ model: 'or/gpt-5', input: TEXT });
    expect(upstream).toEqual({ object: 'response.input_tokens', input_tokens: 4343 });
    expect(await openai.responses.inputTokens.count({ model: 'ant/claude-up', input: TEXT })).toEqual({ object: 'response.input_tokens', input_tokens: 4242 });
    const local = await openai.responses.inputTokens.count({ model: 'oc/gpt-4o-mini', input: TEXT }, { timeout: 25_000 });
    expect(local.object).toBe('response.input_tokens');
    expect(local.input_tokens).toBeGreaterThanOrEqual(200);
  });

  it("count_tokens errors come in Anthropic's error shape", async () => {
    const res = await fetch(`${gw.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'x-api-key': gw.key!, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  });

  it("models.list and models.retrieve answer an Anthropic SDK in Anthropic's shape; OpenAI clients keep theirs", async () => {
    const ids: string[] = [];
    for await (const model of anthropic.models.list({ limit: 2 })) {
      expect(model).toMatchObject({ type: 'model', display_name: expect.any(String), created_at: '2025-01-01T00:00:00Z' });
      ids.push(model.id);
    }
    expect(ids.sort()).toEqual(['ant/claude-up', 'gg/gemini-2.5-flash', 'oc/gpt-4o-mini', 'or/gpt-5']);
    const page = await anthropic.models.list({ limit: 2 });
    expect(page.has_more).toBe(true);
    expect(page.first_id).toBe(page.data[0].id);
    expect(page.last_id).toBe(page.data[1].id);
    expect(await anthropic.models.retrieve('ant/claude-up')).toEqual({ type: 'model', id: 'ant/claude-up', display_name: 'Claude Up', created_at: '2025-01-01T00:00:00Z', max_input_tokens: 200000, max_tokens: 64000 });
    const openaiList = await openai.models.list();
    expect(openaiList.data[0]).toMatchObject({ object: 'model' });
  });

  it('models.list takes a limit from 1 to 1000 as the API does: another is an invalid_request_error naming limit', async () => {
    for (const limit of [0, 1001, 2.5, 'ten']) {
      const refused = await anthropic.models.list({ limit: limit as number }).catch((error: unknown) => error);
      expect(refused, `limit ${limit}`).toBeInstanceOf(Anthropic.APIError);
      const error = refused as InstanceType<typeof Anthropic.APIError>;
      expect(error.status, `limit ${limit}`).toBe(422);
      expect(error.error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', code: 'validation_error', param: 'limit' } });
    }
    expect((await anthropic.models.list({ limit: 1000 })).data.length).toBe(4);
    expect((await anthropic.models.list({ limit: 1 })).data.length).toBe(1);
  });

  it("the model routes send an Anthropic SDK the request-id header it reads (answers and errors)", async () => {
    const { response, request_id: listed } = await anthropic.models.list({ limit: 1 }).withResponse();
    expect(listed).toBe(response.headers.get('x-request-id'));
    const { response: one, request_id: retrieved } = await anthropic.models.retrieve('ant/claude-up').withResponse();
    expect(retrieved).toMatch(/^req_/);
    expect(retrieved).toBe(one.headers.get('x-request-id'));
    const missing = (await anthropic.models.retrieve('ant/nothing').catch((error: unknown) => error)) as InstanceType<typeof Anthropic.APIError>;
    expect(missing.requestID).toMatch(/^req_/);
    expect(missing.requestID).toBe(missing.headers?.get('x-request-id'));
    // An OpenAI client is not sent Anthropic's header.
    const plain = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${gw.key}` } });
    expect(plain.headers.get('request-id')).toBeNull();
  });

  it("errors off /v1/messages answer an Anthropic SDK in Anthropic's shape too (models.retrieve, a route not served); OpenAI clients keep theirs", async () => {
    const missing = await anthropic.models.retrieve('ant/nothing').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(Anthropic.NotFoundError);
    expect((missing as InstanceType<typeof Anthropic.NotFoundError>).error).toMatchObject({ type: 'error', error: { type: 'not_found_error', code: 'model_not_found' } });
    const stranger = new Anthropic({ baseURL: gw.url, apiKey: 'sk-not-a-key', maxRetries: 0 });
    const refused = await stranger.models.list().catch((error: unknown) => error);
    expect((refused as InstanceType<typeof Anthropic.AuthenticationError>).error).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const unserved = await fetch(`${gw.url}/v1/skills`, { headers: { 'x-api-key': gw.key!, 'anthropic-version': '2023-06-01' } });
    expect(unserved.status).toBe(404);
    expect(await unserved.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error', code: 'not_found' } });
    const openaiMissing = await openai.models.retrieve('ant/nothing').catch((error: unknown) => error);
    expect((openaiMissing as InstanceType<typeof OpenAI.NotFoundError>).error).toMatchObject({ code: 'model_not_found', type: 'invalid_request_error' });
  });
});
