/**
 * The official SDKs' own stream helpers against the real gateway (bin/gateway serve), for
 * every upstream format: an openai provider speaking Chat, an openai provider speaking
 * Responses and an anthropic provider, each at a fake upstream on 127.0.0.1 that answers with
 * the matrix fixtures (test/fixtures/matrix) in split SSE frames. Each test checks what the
 * client got (content, tool calls with parsed arguments, thinking with signature, usage) and
 * what the upstream received (path, model, converted fields, credentials).
 */
import fs from 'node:fs';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BuiltinFormat } from '../../src/formats/index.ts';

/** The formats the official OpenAI and Anthropic SDKs speak (Gemini has its own e2e with @google/genai, legacy Completions test/e2e/completions.test.ts). */
type WireFormat = Extract<BuiltinFormat, 'chat' | 'messages' | 'responses'>;
import { splitPieces, startFakeUpstream, type FakeReply, type FakeUpstream, type ReceivedRequest } from '../helpers/fake-upstream.ts';
import { REPO_ROOT, spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

type Json = Record<string, any>;
type Scenario = 'text' | 'parallel-tools' | 'reasoning';

const fixture = (name: string) => fs.readFileSync(path.join(REPO_ROOT, 'test/fixtures/matrix', name), 'utf8');
const TEXT = 'Héllo wörld 👋!';
const OPAQUE = { chat: 'ErUBCkYIBRgCIkDsigMatrixOR==', messages: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBMatrix+/Q==', responses: 'gAAAAABmxMatrix-encrypted_opaque==' } as const;
const CALL_IDS = { chat: ['call_P1aa', 'call_P2bb', 'call_P3cc'], messages: ['toolu_01P1', 'toolu_01P2', 'toolu_01P3'], responses: ['call_P1', 'call_P2', 'call_P3'] } as const;
const UPSTREAM_PATH = { chat: '/v1/chat/completions', responses: '/v1/responses', messages: '/v1/messages' } as const;

/** Which fixture the upstream answers with, read from the request it got (in its own format). */
function scenarioOf(format: WireFormat, body: Json): Scenario {
  if (Array.isArray(body.tools) && body.tools.length > 0) return 'parallel-tools';
  const reasoning = format === 'chat' ? body.reasoning_effort : format === 'messages' ? body.thinking : body.reasoning;
  return reasoning ? 'reasoning' : 'text';
}

/** A native mid-stream error of each format, after some text. */
function failingStream(format: WireFormat): string[] {
  const records = { chat: 3, messages: 4, responses: 5 }[format]; // up to the first text delta
  const head = fixture(`${format}/text.sse.txt`).split('\n\n').slice(0, records).join('\n\n') + '\n\n';
  const tail = {
    chat: 'data: {"error":{"message":"Upstream overloaded","type":"server_error","param":null,"code":null}}\n\n',
    messages: 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
    responses: 'event: error\ndata: {"type":"error","sequence_number":5,"code":"server_error","message":"Upstream overloaded","param":null}\n\n',
  }[format];
  return splitPieces([head, tail], 11);
}

function fakeFor(format: WireFormat) {
  return (req: ReceivedRequest): FakeReply => {
    const body = req.json ?? {};
    const prompt = JSON.stringify(body.messages ?? body.input ?? '');
    if (prompt.includes('CUT')) return { sse: splitPieces([fixture(`${format}/text.sse.txt`).slice(0, 700)], 11), reset: true };
    if (prompt.includes('FAIL')) return { sse: failingStream(format) };
    const scenario = scenarioOf(format, body);
    return body.stream ? { sse: splitPieces([fixture(`${format}/${scenario}.sse.txt`)], 13) } : { json: JSON.parse(fixture(`${format}/${scenario}.json`)) };
  };
}

/** The spec code each upstream's mid-stream error record (failingStream) is classified as. */
const FAIL_CODE = { chat: 'provider_error', messages: 'provider_unavailable', responses: 'provider_error' } as const;

/** The four inbound streaming routes, Gemini's included, for raw-wire checks. */
const CLIENT_ROUTES: Array<{ client: BuiltinFormat; path: (model: string) => string; body: (model: string, prompt: string) => Json }> = [
  { client: 'chat', path: () => '/v1/chat/completions', body: (model, prompt) => ({ model, stream: true, messages: [{ role: 'user', content: prompt }] }) },
  { client: 'messages', path: () => '/v1/messages', body: (model, prompt) => ({ model, max_tokens: 100, stream: true, messages: [{ role: 'user', content: prompt }] }) },
  { client: 'responses', path: () => '/v1/responses', body: (model, prompt) => ({ model, stream: true, input: prompt }) },
  { client: 'gemini', path: (model) => `/v1beta/models/${model}:streamGenerateContent?alt=sse`, body: (_model, prompt) => ({ contents: [{ role: 'user', parts: [{ text: prompt }] }] }) },
];

const UPSTREAMS: Array<{ format: WireFormat; model: string; upstreamModel: string }> = [
  { format: 'chat', model: 'c/gpt-chat', upstreamModel: 'gpt-chat' },
  { format: 'responses', model: 'r/gpt-resp', upstreamModel: 'gpt-resp' },
  { format: 'messages', model: 'a/claude-up', upstreamModel: 'claude-up' },
];

const WEATHER = { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const TIME = { name: 'get_time', description: 'Local time', parameters: { type: 'object', properties: { tz: { type: 'string' } }, required: ['tz'] } };
const LOCATION = { name: 'get_location', description: 'Where the user is', parameters: { type: 'object', properties: {} } };
const TOOLS = [WEATHER, TIME, LOCATION];
const EXPECTED_CALLS = [{ city: 'Paris' }, { tz: 'CET' }, {}];

/** The text of a Response's message items (`output_text` is a convenience of `create()`, not of the stream helper). */
function outputText(response: { output: Array<Record<string, any>> }): string {
  return response.output.flatMap((item) => (item.type === 'message' ? item.content : [])).map((part: Json) => part.text ?? '').join('');
}

describe('official SDK stream helpers through the gateway, every upstream format', () => {
  const fakes = {} as Record<WireFormat, FakeUpstream>;
  let gw: SpawnedGateway;
  let openai: OpenAI;
  let anthropic: Anthropic;

  beforeAll(async () => {
    for (const { format } of UPSTREAMS) fakes[format] = await startFakeUpstream(fakeFor(format));
    gw = await spawnGateway({
      config: {
        providers: {
          c: { plugin: 'openai', baseURL: `${fakes.chat.url}/v1`, apiKey: 'up-chat-key', formats: ['chat'], models: ['gpt-chat'] },
          r: { plugin: 'openai', baseURL: `${fakes.responses.url}/v1`, apiKey: 'up-resp-key', formats: ['responses'], models: ['gpt-resp'] },
          a: { plugin: 'anthropic', baseURL: fakes.messages.url, apiKey: 'up-anthropic-key', models: ['claude-up'] },
          mock: { plugin: 'mock' },
        },
        routing: { retry: { attempts: 1 } },
      },
    });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0, timeout: 10_000 });
    anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0, timeout: 10_000 });
  });
  afterAll(async () => {
    await gw?.stop();
    for (const fake of Object.values(fakes)) await fake.close();
  });
  beforeEach(() => {
    for (const fake of Object.values(fakes)) fake.requests.length = 0;
  });

  /** The one request the upstream of `format` got for the last call. */
  function received(format: WireFormat): ReceivedRequest {
    const requests = fakes[format].requests;
    expect(requests).toHaveLength(1);
    expect(requests[0].path).toBe(UPSTREAM_PATH[format]);
    return requests[0];
  }

  /** Upstream-side checks every converted request must pass. */
  function expectUpstreamBasics(format: WireFormat, upstreamModel: string, clientFormat: WireFormat): Json {
    const req = received(format);
    const body = req.json!;
    expect(body.model).toBe(upstreamModel);
    if (format === 'messages') {
      expect(req.headers['x-api-key']).toBe('up-anthropic-key');
      expect(req.headers['anthropic-version']).toBe('2023-06-01');
      expect(req.headers.authorization).toBeUndefined();
      // The openai clients gave no max tokens: the gateway default (defaults.maxTokens) is sent.
      if (clientFormat !== 'messages') expect(body.max_tokens).toBeGreaterThanOrEqual(4096);
    } else {
      expect(req.headers.authorization).toBe(format === 'chat' ? 'Bearer up-chat-key' : 'Bearer up-resp-key');
    }
    if (format === 'chat' && body.stream) expect(body.stream_options).toEqual({ include_usage: true });
    return body;
  }

  describe.each(UPSTREAMS)('$format upstream', ({ format, model, upstreamModel }) => {
    describe('openai chat.completions.stream().finalChatCompletion()', () => {
      it('text and usage', async () => {
        const completion = await openai.chat.completions
          .stream({ model, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }], stream_options: { include_usage: true } })
          .finalChatCompletion();
        expect(completion.choices[0].message.content).toBe(TEXT);
        expect(completion.choices[0].finish_reason).toBe('stop');
        expect(completion.id).toMatch(/^chatcmpl-/);
        expect(completion.usage).toMatchObject({ prompt_tokens: 100, completion_tokens: 50, total_tokens: 150, prompt_tokens_details: { cached_tokens: 40 }, completion_tokens_details: { reasoning_tokens: 20 } });
        const body = expectUpstreamBasics(format, upstreamModel, 'chat');
        if (format === 'messages') expect(body.system).toBe('Be brief.');
        if (format === 'responses') expect(body.instructions).toBe('Be brief.');
      });

      it('parallel tool calls with parsed arguments', async () => {
        const completion = await openai.chat.completions
          .stream({ model, messages: [{ role: 'user', content: 'all three' }], tools: TOOLS.map((fn) => ({ type: 'function' as const, function: fn })), parallel_tool_calls: false })
          .finalChatCompletion();
        const calls = completion.choices[0].message.tool_calls ?? [];
        expect(calls.map((c) => (c.type === 'function' ? [c.id, c.function.name] : []))).toEqual(CALL_IDS[format].map((id, i) => [id, TOOLS[i].name]));
        expect(calls.map((c) => (c.type === 'function' ? JSON.parse(c.function.arguments || '{}') : undefined))).toEqual(EXPECTED_CALLS);
        expect(completion.choices[0].finish_reason).toBe('tool_calls');
        const body = expectUpstreamBasics(format, upstreamModel, 'chat');
        if (format === 'messages') {
          expect(body.tools[0]).toEqual({ name: 'get_weather', description: 'Current weather', input_schema: WEATHER.parameters });
          expect(body.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
        }
        if (format === 'responses') {
          expect(body.tools[0]).toMatchObject({ type: 'function', name: 'get_weather', parameters: WEATHER.parameters });
          expect(body.parallel_tool_calls).toBe(false);
        }
      });

      it('thinking with its signature (deltas; the final object keeps the last reasoning_details)', async () => {
        const stream = openai.chat.completions.stream({ model, messages: [{ role: 'user', content: 'Which is smaller?' }], reasoning_effort: 'high' });
        let thinking = '';
        const opaque: string[] = [];
        stream.on('chunk', (chunk) => {
          const delta = chunk.choices[0]?.delta as Json | undefined;
          // Converted streams use reasoning_content; an OpenRouter-style upstream passes through with `reasoning`.
          thinking += delta?.reasoning_content ?? delta?.reasoning ?? '';
          for (const d of (delta?.reasoning_details ?? []) as Json[]) if (d.signature || d.data) opaque.push(d.signature ?? d.data);
        });
        const completion = await stream.finalChatCompletion();
        expect(completion.choices[0].message.content).toBe('9.11 is smaller.');
        expect(thinking).toBe('Compare the numbers.');
        expect(opaque).toEqual([OPAQUE[format]]);
        // The openai SDK keeps only the last chunk's value of fields it does not know.
        const last = (completion.choices[0].message as Json).reasoning_details as Json[];
        expect(last.map((d) => d.signature ?? d.data)).toEqual([OPAQUE[format]]);
        const body = expectUpstreamBasics(format, upstreamModel, 'chat');
        if (format === 'messages') expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 4096 });
        if (format === 'responses') expect(body.reasoning).toMatchObject({ effort: 'high' });
        if (format === 'chat') expect(body.reasoning_effort).toBe('high');
      });
    });

    describe('openai responses.stream().finalResponse()', () => {
      it('text and usage', async () => {
        const response = await openai.responses.stream({ model, instructions: 'Be brief.', input: 'hi' }).finalResponse();
        expect(outputText(response)).toBe(TEXT);
        expect(response.status).toBe('completed');
        expect(response.id).toMatch(/^resp_/);
        expect(response.usage).toMatchObject({ input_tokens: 100, output_tokens: 50, total_tokens: 150, input_tokens_details: { cached_tokens: 40 }, output_tokens_details: { reasoning_tokens: 20 } });
        const body = expectUpstreamBasics(format, upstreamModel, 'responses');
        if (format === 'chat') expect(body.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
        if (format === 'messages') expect(body.system).toBe('Be brief.');
      });

      it('parallel function calls with parsed arguments', async () => {
        const response = await openai.responses
          .stream({ model, input: 'all three', tools: TOOLS.map((t) => ({ type: 'function' as const, ...t, strict: false })) })
          .finalResponse();
        const calls = response.output.filter((item) => item.type === 'function_call');
        expect(calls.map((c) => [c.call_id, c.name])).toEqual(CALL_IDS[format].map((id, i) => [id, TOOLS[i].name]));
        expect(calls.map((c) => JSON.parse(c.arguments))).toEqual(EXPECTED_CALLS);
        for (const call of calls) expect(call.id).toMatch(/^fc_/);
        const body = expectUpstreamBasics(format, upstreamModel, 'responses');
        if (format === 'chat') expect(body.tools[0]).toEqual({ type: 'function', function: { ...WEATHER, strict: false } });
      });

      it('reasoning with its signature in encrypted_content', async () => {
        const response = await openai.responses.stream({ model, input: 'Which is smaller?', reasoning: { effort: 'high', summary: 'auto' } }).finalResponse();
        const reasoning = response.output.filter((item) => item.type === 'reasoning');
        expect(reasoning).toHaveLength(1);
        expect(reasoning[0].summary.map((s) => s.text).join('')).toBe('Compare the numbers.');
        // Foreign signatures ride in encrypted_content (gwpm: carried); OpenAI's own is kept byte-exact.
        expect(reasoning[0].encrypted_content).toEqual(format === 'responses' ? OPAQUE.responses : expect.stringMatching(/^gwpm:/));
        expect(outputText(response)).toBe('9.11 is smaller.');
        const body = expectUpstreamBasics(format, upstreamModel, 'responses');
        if (format === 'messages') expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 4096 });
      });
    });

    describe('anthropic messages.stream().finalMessage()', () => {
      it('text and usage', async () => {
        const message = await anthropic.messages.stream({ model, max_tokens: 1000, system: 'Be brief.', messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
        expect(message.content).toEqual([expect.objectContaining({ type: 'text', text: TEXT })]);
        expect(message.stop_reason).toBe('end_turn');
        expect(message.id).toMatch(/^msg_/);
        expect(message.usage).toMatchObject({ input_tokens: 50, output_tokens: 50, cache_read_input_tokens: 40, cache_creation_input_tokens: 10 });
        // A converted stream's message_delta says stop_details as the API does (the SDK copies it: undefined before).
        if (format !== 'messages') expect(message.stop_details).toBeNull();
        const body = expectUpstreamBasics(format, upstreamModel, 'messages');
        if (format === 'chat') expect(body.max_tokens).toBe(1000);
        if (format === 'responses') expect(body.max_output_tokens).toBe(1000);
      });

      it('parallel tool_use blocks with parsed inputs', async () => {
        const message = await anthropic.messages
          .stream({ model, max_tokens: 1000, messages: [{ role: 'user', content: 'all three' }], tools: TOOLS.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters as Anthropic.Tool.InputSchema })) })
          .finalMessage();
        const uses = message.content.filter((b) => b.type === 'tool_use');
        expect(uses.map((b) => [b.id, b.name, b.input])).toEqual(CALL_IDS[format].map((id, i) => [id, TOOLS[i].name, EXPECTED_CALLS[i]]));
        expect(message.stop_reason).toBe('tool_use');
        const body = expectUpstreamBasics(format, upstreamModel, 'messages');
        if (format === 'chat') expect(body.tools[2]).toEqual({ type: 'function', function: { name: 'get_location', description: 'Where the user is', parameters: LOCATION.parameters } });
      });

      it('thinking with its signature', async () => {
        const message = await anthropic.messages
          .stream({ model, max_tokens: 8000, thinking: { type: 'enabled', budget_tokens: 4096 }, messages: [{ role: 'user', content: 'Which is smaller?' }] })
          .finalMessage();
        const thinking = message.content.filter((b) => b.type === 'thinking');
        expect(thinking).toHaveLength(1);
        expect(thinking[0].thinking).toBe('Compare the numbers.');
        // OpenAI encrypted reasoning rides in the signature (gwpm: carried); Anthropic signatures are kept byte-exact.
        expect(thinking[0].signature).toEqual(format === 'responses' ? expect.stringMatching(/^gwpm:/) : OPAQUE[format]);
        expect(message.content.at(-1)).toMatchObject({ type: 'text', text: '9.11 is smaller.' });
        expect(message.usage.output_tokens).toBe(50);
        const body = expectUpstreamBasics(format, upstreamModel, 'messages');
        if (format === 'chat') expect(body.reasoning_effort).toBe('high');
        if (format === 'responses') expect(body.reasoning).toMatchObject({ effort: 'high' });
      });
    });

    describe('a failure after the stream started', () => {
      it('Anthropic SDK: finalMessage() rejects with an APIError instead of hanging', async () => {
        const started = Date.now();
        const error = await anthropic.messages.stream({ model, max_tokens: 100, messages: [{ role: 'user', content: 'FAIL now' }] }).finalMessage().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(Anthropic.APIError);
        expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: expect.stringMatching(/_error$/) } });
        expect(Date.now() - started).toBeLessThan(5000);
      });

      it('Anthropic SDK: a cut upstream connection also rejects', async () => {
        const error = await anthropic.messages.stream({ model, max_tokens: 100, messages: [{ role: 'user', content: 'CUT now' }] }).finalMessage().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(Anthropic.APIError);
      });

      it('openai SDKs: chat and responses stream helpers reject', async () => {
        await expect(openai.chat.completions.stream({ model, messages: [{ role: 'user', content: 'FAIL now' }] }).finalChatCompletion()).rejects.toBeInstanceOf(OpenAI.APIError);
        const responses = openai.responses.stream({ model, input: 'FAIL now' }).finalResponse();
        // Converted: our error event carries `error`, which the SDK throws as an APIError. Passthrough
        // relays OpenAI's own flat error event, which the SDK rejects with as it is.
        if (format === 'responses') await expect(responses).rejects.toMatchObject({ type: 'error', code: 'server_error' });
        else await expect(responses).rejects.toBeInstanceOf(OpenAI.APIError);
      });

      // Converted streams only: a passthrough relays the upstream's own error record as it is.
      it.each(CLIENT_ROUTES.filter((route) => route.client !== format))('$client client: the error event carries the stable code and the request id (spec §7), as when the gateway fails the stream itself', async (route) => {
        const res = await fetch(`${gw.url}${route.path(model)}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${gw.key}`, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
          body: JSON.stringify(route.body(model, 'FAIL now')),
          signal: AbortSignal.timeout(5000),
        });
        expect(res.status).toBe(200);
        const requestId = res.headers.get('x-request-id');
        expect(requestId).toMatch(/^req_/);
        const records = (await res.text()).trim().split(/\r?\n\r?\n/).map((record) => JSON.parse(record.replace(/^(event: .*\n)?data: /, '')) as Json);
        const code = FAIL_CODE[format];
        const error = records.find((record) => record.type === 'error' || (record.error && !record.type))!;
        if (route.client === 'chat') expect(error).toMatchObject({ error: { code, type: 'api_error', request_id: requestId }, correlation_id: requestId });
        if (route.client === 'messages') expect(error).toMatchObject({ type: 'error', error: { code, type: expect.stringMatching(/_error$/), request_id: requestId }, request_id: requestId });
        if (route.client === 'responses') expect(error).toMatchObject({ type: 'error', code, error: { code, request_id: requestId } });
        if (route.client === 'gemini') expect(error).toMatchObject({ error: { status: expect.any(String), details: [{ reason: code }], request_id: requestId } });
      });

      it('the raw stream ends with the client format\'s error event and closes', async () => {
        const raw = await fetch(`${gw.url}/v1/messages`, {
          method: 'POST',
          headers: { 'x-api-key': gw.key!, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
          body: JSON.stringify({ model, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'FAIL now' }] }),
          signal: AbortSignal.timeout(5000),
        });
        const text = await raw.text();
        expect(text).toContain('Héllo');
        expect(text.trimEnd().split('\n\n').at(-1)).toMatch(/^event: error\ndata: \{"type":"error"/);
        expect(text).not.toContain('message_stop');
      });
    });
  });

  // Regression: the mock streams reasoning_content, then one signature-only reasoning_details
  // item; finalMessage() used to show two thinking blocks (text without signature, signature without text).
  it('Anthropic SDK with thinking against the mock: one thinking block carrying text and signature', async () => {
    const message = await anthropic.messages
      .stream({ model: 'mock/echo', max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'hello there' }] })
      .finalMessage();
    const thinking = message.content.filter((b) => b.type === 'thinking');
    expect(thinking).toHaveLength(1);
    expect(thinking[0].thinking).toContain('hello there');
    expect(thinking[0].signature).not.toBe('');
    expect(message.content.at(-1)).toMatchObject({ type: 'text', text: 'hello there' });
    const json = await anthropic.messages.create({ model: 'mock/echo', max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: 'hello there' }] });
    expect(json.content.filter((b) => b.type === 'thinking')).toEqual(thinking);
  });

  describe('SDK conventions (spec §5 rule 5)', () => {
    it('accepts x-api-key on every route and anthropic-version on /v1/messages', async () => {
      const chat = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'x-api-key': gw.key!, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'a/claude-up', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(chat.status).toBe(200);
      expect(((await chat.json()) as Json).choices[0].message.content).toBe(TEXT);
      const messages = await fetch(`${gw.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': gw.key!, 'anthropic-version': '2023-06-01', 'anthropic-beta': 'interleaved-thinking-2025-05-14', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'c/gpt-chat', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(messages.status).toBe(200);
      expect(((await messages.json()) as Json).content[0].text).toBe(TEXT);
    });

    it('the Anthropic SDK reads the request id (its `request-id` header) on answers, streams and errors', async () => {
      const { data, response } = await anthropic.messages.create({ model: 'c/gpt-chat', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
      expect(response.headers.get('x-request-id')).toMatch(/^req_/);
      expect((data as Json)._request_id).toBe(response.headers.get('x-request-id'));
      const stream = anthropic.messages.stream({ model: 'c/gpt-chat', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
      await stream.finalMessage();
      expect(stream.request_id).toMatch(/^req_/);
      const missing = await anthropic.messages.create({ model: 'no-such-model', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      expect((missing as InstanceType<typeof Anthropic.APIError>).requestID).toBe(((missing as InstanceType<typeof Anthropic.APIError>).error as Json).request_id);
      const counted = await anthropic.messages.countTokens({ model: 'c/gpt-chat', messages: [{ role: 'user', content: 'hi' }] });
      expect(counted._request_id).toMatch(/^req_/);
    });

    it('a client whose base URL has /v1 once too often or too few is told the base URL to use', async () => {
      const doubled = new Anthropic({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
      const error = await doubled.messages.create({ model: 'c/gpt-chat', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Anthropic.NotFoundError);
      expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ error: { code: 'not_found', details: { did_you_mean: '/v1/messages' } } });
      expect((error as Error).message).toContain(`base URL ${gw.url}`);
      const bare = new OpenAI({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0 });
      const missing = await bare.chat.completions.create({ model: 'c/gpt-chat', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
      expect((missing as Error).message).toContain(`base URL ${gw.url}/v1`);
      const openRouterPath = new OpenAI({ baseURL: `${gw.url}/api/v1`, apiKey: gw.key, maxRetries: 0 });
      const moved = await openRouterPath.chat.completions.create({ model: 'c/gpt-chat', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      expect(moved).toBeInstanceOf(OpenAI.NotFoundError);
      expect((moved as Error).message).toContain(`OpenRouter's path (/api/v1)`);
      expect((moved as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ details: { did_you_mean: '/v1/chat/completions' } });
      // OpenRouter's Anthropic base URL is host/api (Claude Code's ANTHROPIC_BASE_URL): an Anthropic client is told the root, not /v1 (which it would double).
      const anthropicMoved = new Anthropic({ baseURL: `${gw.url}/api`, apiKey: gw.key, maxRetries: 0 });
      const claudeCode = await anthropicMoved.messages.create({ model: 'c/gpt-chat', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      expect(claudeCode).toBeInstanceOf(Anthropic.NotFoundError);
      expect((claudeCode as Error).message).toContain(`base URL ${gw.url}.`);
      expect((claudeCode as Error).message).not.toContain(`${gw.url}/v1.`);
      const unknown = await fetch(`${gw.url}/v1/no/such/thing`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}` } });
      expect(((await unknown.json()) as Json).error).not.toHaveProperty('details');
    });

    it('passes the client\'s anthropic-beta flags to an Anthropic upstream', async () => {
      await fetch(`${gw.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': gw.key!, 'anthropic-version': '2023-06-01', 'anthropic-beta': 'interleaved-thinking-2025-05-14', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'a/claude-up', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(received('messages').headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14');
    });

    it('error bodies on /v1/messages read natively in the Anthropic SDK and keep the spec envelope', async () => {
      const missing = await anthropic.messages.create({ model: 'no-such-model', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(Anthropic.NotFoundError);
      const body = (missing as InstanceType<typeof Anthropic.APIError>).error as Json;
      expect(body).toMatchObject({ type: 'error', error: { type: 'not_found_error', code: 'model_not_found', message: expect.any(String), request_id: expect.any(String) } });
      expect(body.request_id).toBe(body.error.request_id);
      expect((missing as InstanceType<typeof Anthropic.APIError>).type).toBe('not_found_error');

      const badKey = new Anthropic({ baseURL: gw.url, apiKey: 'sk-wrong', maxRetries: 0 });
      const denied = await badKey.messages.create({ model: 'a/claude-up', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      expect(denied).toBeInstanceOf(Anthropic.AuthenticationError);
      expect((denied as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });

      const invalid = await anthropic.messages.create({ model: 'a/claude-up', max_tokens: -1, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      expect(invalid).toBeInstanceOf(Anthropic.APIError);
      expect((invalid as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', code: 'validation_error' } });
    });
  });
});
