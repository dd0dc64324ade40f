import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { entraEnv, startFakeAzure, type FakeAzure } from '../helpers/fake-azure.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { until } from '../helpers/until.ts';
import { runChatBatch } from '../helpers/chat-batch.ts';

type Json = Record<string, any>;

const API_KEY = 'azure-key-0123456789';
const ENTRA = { tenantId: 'contoso-tenant', clientId: 'app-7f3c', clientSecret: 'entra-client-secret-value', expiresInSeconds: 4 };
const GPT41 = { model: 'gpt-4.1', maxOutput: 32_768, reasoning: false };
/** A gpt-5 deployment under a name of its own: Azure applies gpt-5's rules (no `stop`, no sampling). */
const GPT5 = { model: 'gpt-5', maxOutput: 128_000, reasoning: true };
/** An Azure AI Foundry deployment of a model OpenAI does not make. */
const LLAMA = { model: 'Llama-3.3-70B-Instruct', maxOutput: 8_192, reasoning: false };
/** A small red PNG, as clients send images. */
const PNG_DATA_URL = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** Both tools the weather script calls in parallel on turn 1. */
const pickWeather = (names: string[]) => (names.includes('get_weather') ? [{ name: 'get_weather', input: { city: 'Paris' } }, { name: 'get_weather', input: { city: 'Oslo' } }] : undefined);

const weatherTool: OpenAI.Chat.ChatCompletionTool = { type: 'function', function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } };

/**
 * The `azure` plugin through the real CLI against a strict Azure OpenAI fake
 * (test/helpers/fake-azure.ts), with the official openai and Anthropic clients: both API paths,
 * api-key and Entra auth, the three client formats, tools, images, billing, throttling and
 * fallback, Azure's content filter, media, batches.
 */
describe('azure plugin (official clients, strict Azure OpenAI fake)', () => {
  let azure: FakeAzure;
  let backup: StrictFake;
  let gw: SpawnedGateway;
  let openai: OpenAI;
  let anthropic: Anthropic;

  beforeAll(async () => {
    azure = await startFakeAzure({
      deployments: { 'prod-gpt41': GPT41, 'my-dalle': { ...GPT41, model: 'dall-e-3' }, pictures: { ...GPT41, model: 'gpt-image-1' }, 'my-tts': { ...GPT41, model: 'tts-1' }, 'my-whisper': { ...GPT41, model: 'whisper-1' }, 'my-embed': { ...GPT41, model: 'text-embedding-3-small' }, 'my-gpt5-prod': GPT5, 'Llama-3.3-70B-Instruct': LLAMA },
      apiKey: API_KEY,
      entra: ENTRA,
      pick: pickWeather,
      finalText: 'Paris 18°C, Oslo 9°C.',
    });
    backup = await startStrictFake({ format: 'chat', models: { 'gpt-4.1': GPT41 }, finalText: 'from the backup' });
    gw = await spawnGateway({
      env: entraEnv,
      config: {
        providers: {
          azure: {
            plugin: 'azure',
            endpoint: azure.url,
            apiKey: API_KEY,
            formats: ['chat', 'responses'],
            models: [
              { id: 'gpt-4.1', deployment: 'prod-gpt41' },
              { id: 'dall-e-3', deployment: 'my-dalle' },
              { id: 'gpt-image-1', deployment: 'pictures' },
              { id: 'tts-1', deployment: 'my-tts' },
              { id: 'whisper-1', deployment: 'my-whisper' },
              { id: 'text-embedding-3-small', deployment: 'my-embed' },
            ],
          },
          // Chat only, so Messages and Responses clients are converted: the deployment names no model; the id (or baseModel) does.
          'azure-chat': {
            plugin: 'azure',
            endpoint: azure.url,
            apiKey: API_KEY,
            models: [{ id: 'gpt-5', deployment: 'my-gpt5-prod' }, { id: 'reasoner', deployment: 'my-gpt5-prod', baseModel: 'gpt-5' }, 'Llama-3.3-70B-Instruct', { id: 'gpt-4.1', deployment: 'prod-gpt41' }],
          },
          'azure-dated': { plugin: 'azure', endpoint: azure.url, apiKey: API_KEY, apiVersion: '2025-04-01-preview', formats: ['chat', 'responses'], models: [{ id: 'gpt-4.1', deployment: 'prod-gpt41' }] },
          'azure-entra': { plugin: 'azure', endpoint: azure.url, tenantId: ENTRA.tenantId, clientId: ENTRA.clientId, clientSecret: ENTRA.clientSecret, authorityHost: azure.entraUrl, models: [{ id: 'gpt-4.1', deployment: 'prod-gpt41' }] },
          backup: { plugin: 'openai', baseURL: `${backup.url}/v1`, apiKey: 'sk-backup', models: ['gpt-4.1'], priority: 9 },
          // The alternative docs/providers.md names: the plain openai plugin on Azure's v1 path.
          'azure-via-openai': { plugin: 'openai', baseURL: `${azure.url}/openai/v1`, apiKey: API_KEY, models: [{ id: 'gpt-4.1', deployment: 'prod-gpt41' }] },
        },
        routing: { models: { 'azure/gpt-4.1': { fallbacks: ['backup/gpt-4.1'] } }, retry: { attempts: 2, baseMs: 10, maxMs: 3_000 } },
      },
    });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key!, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await azure?.close();
    await backup?.close();
  });
  beforeEach(() => {
    azure.requests.length = 0;
    backup.requests.length = 0;
  });

  const lastAzure = () => azure.requests.at(-1)!;

  it('Chat on the v1 path: the deployment as model, the api-key header, Azure annotations passed through', async () => {
    const completion = await openai.chat.completions.create({ model: 'azure/gpt-4.1', messages: [{ role: 'user', content: 'hello' }] });
    expect(completion.choices[0].message.content).toBe('Paris 18°C, Oslo 9°C.');
    const sent = lastAzure();
    expect(sent.path).toBe('/openai/v1/chat/completions');
    expect(sent.headers['api-key']).toBe(API_KEY);
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.json?.model).toBe('prod-gpt41');
    expect((completion as Json).prompt_filter_results[0].prompt_index).toBe(0);
    expect(azure.rejections).toEqual([]);
  });

  it('streamed Chat, Responses and Messages: the first chunk with no choices breaks neither passthrough nor conversion', async () => {
    const chat = await openai.chat.completions.create({ model: 'azure/gpt-4.1', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of chat) {
      text += chunk.choices[0]?.delta.content ?? '';
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe('Paris 18°C, Oslo 9°C.');
    expect(usage).toMatchObject({ prompt_tokens: 120, completion_tokens: 20 });

    const responses = await openai.responses.create({ model: 'azure/gpt-4.1', input: 'hi', stream: true });
    let responsesText = '';
    for await (const event of responses) if (event.type === 'response.output_text.delta') responsesText += event.delta;
    expect(responsesText).toBe('Paris 18°C, Oslo 9°C.');
    expect(lastAzure().path).toBe('/openai/v1/responses');

    const message = await anthropic.messages.stream({ model: 'azure/gpt-4.1', max_tokens: 256, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
    expect(message.content).toEqual([{ type: 'text', text: 'Paris 18°C, Oslo 9°C.' }]);
    expect(message.usage.output_tokens).toBe(20);
    expect(lastAzure().path).toBe('/openai/v1/chat/completions');
    expect(azure.rejections).toEqual([]);
  });

  it('a Gemini generateContent client reaches Azure through conversion, whole and streamed (SSE)', async () => {
    const gemini = (action: string) =>
      fetch(`${gw.url}/v1beta/models/azure-dated/gpt-4.1:${action}`, {
        method: 'POST',
        headers: { 'x-goog-api-key': gw.key!, 'content-type': 'application/json' },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
      });
    const whole = (await (await gemini('generateContent')).json()) as Json;
    expect(whole.candidates[0].content.parts).toEqual([{ text: 'Paris 18°C, Oslo 9°C.' }]);
    expect(whole.candidates[0].finishReason).toBe('STOP');
    expect(lastAzure().path).toBe('/openai/deployments/prod-gpt41/chat/completions?api-version=2025-04-01-preview');
    const streamed = await (await gemini('streamGenerateContent?alt=sse')).text();
    const texts = streamed.split('\n').filter((l) => l.startsWith('data: ')).flatMap((l) => (JSON.parse(l.slice(6)) as Json).candidates?.[0]?.content?.parts ?? []).map((p: Json) => p.text ?? '');
    expect(texts.join('')).toBe('Paris 18°C, Oslo 9°C.');
    expect(azure.rejections).toEqual([]);
  });

  it('the dated deployments path: Chat under /deployments/{name}, Responses at /openai/responses (envoy #2110), both with api-version', async () => {
    const completion = await openai.chat.completions.create({ model: 'azure-dated/gpt-4.1', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0].message.content).toBe('Paris 18°C, Oslo 9°C.');
    expect(lastAzure().path).toBe('/openai/deployments/prod-gpt41/chat/completions?api-version=2025-04-01-preview');

    const response = await openai.responses.create({ model: 'azure-dated/gpt-4.1', input: 'hi' });
    expect(response.output_text).toBe('Paris 18°C, Oslo 9°C.');
    expect(lastAzure().path).toBe('/openai/responses?api-version=2025-04-01-preview');
    expect(lastAzure().json?.model).toBe('prod-gpt41');

    const message = await anthropic.messages.create({ model: 'azure-dated/gpt-4.1', max_tokens: 256, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.content).toEqual([{ type: 'text', text: 'Paris 18°C, Oslo 9°C.' }]);
    expect(azure.rejections).toEqual([]);
  });

  it('tool use over two turns with parallel calls (Chat, and Messages streamed through conversion)', async () => {
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris and Oslo?' }];
    const first = await openai.chat.completions.create({ model: 'azure/gpt-4.1', messages, tools: [weatherTool] });
    const calls = first.choices[0].message.tool_calls! as OpenAI.Chat.ChatCompletionMessageFunctionToolCall[];
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    expect(calls.map((c) => JSON.parse(c.function.arguments).city)).toEqual(['Paris', 'Oslo']);
    messages.push(first.choices[0].message, ...calls.map((c) => ({ role: 'tool' as const, tool_call_id: c.id, content: '18°C' })));
    const second = await openai.chat.completions.create({ model: 'azure/gpt-4.1', messages, tools: [weatherTool] });
    expect(second.choices[0].message.content).toBe('Paris 18°C, Oslo 9°C.');
    expect((lastAzure().json?.messages as Json[]).filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(calls.map((c) => c.id));

    const tools: Anthropic.Tool[] = [{ name: 'get_weather', description: 'Weather in a city', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];
    const history: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Paris and Oslo?' }];
    const turn1 = await anthropic.messages.stream({ model: 'azure/gpt-4.1', max_tokens: 512, tools, messages: history }).finalMessage();
    expect(turn1.stop_reason).toBe('tool_use');
    const uses = turn1.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
    expect(uses.map((u) => (u.input as Json).city)).toEqual(['Paris', 'Oslo']);
    history.push({ role: 'assistant', content: turn1.content }, { role: 'user', content: uses.map((u) => ({ type: 'tool_result' as const, tool_use_id: u.id, content: '18°C' })) });
    const turn2 = await anthropic.messages.stream({ model: 'azure/gpt-4.1', max_tokens: 512, tools, messages: history }).finalMessage();
    expect(turn2.content).toEqual([{ type: 'text', text: 'Paris 18°C, Oslo 9°C.' }]);
    expect(azure.rejections).toEqual([]);
  });

  it('images in: a Chat image part and an Anthropic image block both reach Azure as image_url', async () => {
    await openai.chat.completions.create({ model: 'azure/gpt-4.1', messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: PNG_DATA_URL } }] }] });
    expect((lastAzure().json?.messages as Json[])[0].content[1]).toEqual({ type: 'image_url', image_url: { url: PNG_DATA_URL } });
    await anthropic.messages.create({
      model: 'azure/gpt-4.1',
      max_tokens: 64,
      messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_DATA_URL.split(',')[1] } }, { type: 'text', text: 'what is this?' }] }],
    });
    const parts = (lastAzure().json?.messages as Json[]).at(-1)!.content as Json[];
    expect(parts.find((p) => p.type === 'image_url')?.image_url.url).toBe(PNG_DATA_URL);
    expect(azure.rejections).toEqual([]);
  });

  it("bills Azure usage at the catalog's OpenAI prices for the model id (not the deployment name)", async () => {
    const models = (await (await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${gw.key}` } })).json()) as { data: Json[] };
    const azureModel = models.data.find((m) => m.id === 'azure/gpt-4.1')!;
    const backupModel = models.data.find((m) => m.id === 'backup/gpt-4.1')!;
    expect(azureModel.pricing).toEqual(backupModel.pricing);
    expect(azureModel.pricing.prompt).toBe('0.000002');
    const used = async () => -((await (await fetch(`${gw.url}/v1/credits`, { headers: { authorization: `Bearer ${gw.key}` } })).json()) as Json).data.credits.balance as number;
    const before = await used();
    await openai.chat.completions.create({ model: 'azure/gpt-4.1', messages: [{ role: 'user', content: 'price me' }] });
    // 120 tokens in at $2/M and 20 out at $8/M: $0.0004, 0.4 credits (1 credit = $0.001).
    const cost = await until('the request billed', async () => {
      const delta = (await used()) - before;
      return delta > 0 ? delta : undefined;
    });
    expect(cost).toBeCloseTo(0.4, 6);
  });

  it('an Azure 429 is retried after its retry-after, then the chain falls back to another provider', async () => {
    const { data, response } = await openai.chat.completions.create({ model: 'azure/gpt-4.1', messages: [{ role: 'user', content: 'THROTTLE please' }] }).withResponse();
    expect(data.choices[0].message.content).toBe('from the backup');
    expect(azure.requests.map((r) => r.path)).toEqual(['/openai/v1/chat/completions', '/openai/v1/chat/completions']);
    expect(backup.requests).toHaveLength(1);
    expect(response.headers.get('x-fallback-used')).toBe('true');
  });

  describe("Azure's content filter, in each client's shape", () => {
    it('a filtered prompt is 400 content_filter for Chat, Responses and Messages, streamed or not', async () => {
      for (const stream of [false, true]) {
        const chat = await openai.chat.completions.create({ model: 'azure/gpt-4.1', messages: [{ role: 'user', content: 'FILTER_PROMPT' }], stream }).then(() => undefined, (e: unknown) => e);
        expect(chat).toBeInstanceOf(OpenAI.BadRequestError);
        expect((chat as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('content_filter');
        expect((chat as Error).message).toContain('content management policy');
        // Which category refused, as Azure said it.
        expect(((chat as InstanceType<typeof OpenAI.BadRequestError>).error as Json).details.content_filter_result.violence).toEqual({ filtered: true, severity: 'medium' });

        const responses = await openai.responses.create({ model: 'azure/gpt-4.1', input: 'FILTER_PROMPT', stream }).then(() => undefined, (e: unknown) => e);
        expect(responses).toBeInstanceOf(OpenAI.BadRequestError);
        expect((responses as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('content_filter');

        const messages = await anthropic.messages.create({ model: 'azure/gpt-4.1', max_tokens: 64, messages: [{ role: 'user', content: 'FILTER_PROMPT' }], stream }).then(() => undefined, (e: unknown) => e);
        expect(messages).toBeInstanceOf(Anthropic.BadRequestError);
        const body = (messages as InstanceType<typeof Anthropic.BadRequestError>).error as Json;
        expect(body.type).toBe('error');
        expect(body.error.type).toBe('invalid_request_error');
        expect(body.error.code ?? body.code).toBe('content_filter');
        expect(body.error.details.content_filter_result.violence.filtered).toBe(true);
      }
      // Not retried, not fallen back: the prompt is what was refused.
      expect(backup.requests).toHaveLength(0);
    });

    it('a filtered answer ends with content_filter / incomplete / refusal, streamed or not', async () => {
      const chat = await openai.chat.completions.create({ model: 'azure/gpt-4.1', messages: [{ role: 'user', content: 'FILTER_OUTPUT' }] });
      expect(chat.choices[0].finish_reason).toBe('content_filter');
      const chatStream = await openai.chat.completions.create({ model: 'azure/gpt-4.1', messages: [{ role: 'user', content: 'FILTER_OUTPUT' }], stream: true });
      const finishes: string[] = [];
      for await (const chunk of chatStream) for (const choice of chunk.choices) if (choice.finish_reason) finishes.push(choice.finish_reason);
      expect(finishes).toEqual(['content_filter']);

      const response = await openai.responses.create({ model: 'azure/gpt-4.1', input: 'FILTER_OUTPUT' });
      expect(response.status).toBe('incomplete');
      expect(response.incomplete_details?.reason).toBe('content_filter');

      const message = await anthropic.messages.create({ model: 'azure/gpt-4.1', max_tokens: 64, messages: [{ role: 'user', content: 'FILTER_OUTPUT' }] });
      expect(message.stop_reason).toBe('refusal');
      const streamed = await anthropic.messages.stream({ model: 'azure/gpt-4.1', max_tokens: 64, messages: [{ role: 'user', content: 'FILTER_OUTPUT' }] }).finalMessage();
      expect(streamed.stop_reason).toBe('refusal');
      expect(streamed.content).toEqual([{ type: 'text', text: 'Here is how' }]);

      // A Responses client on a Chat-only route: the Chat finish converted to incomplete.
      const converted = await openai.responses.create({ model: 'azure-entra/gpt-4.1', input: 'FILTER_OUTPUT', stream: true });
      let last: Json | undefined;
      for await (const event of converted) last = event as Json;
      expect(last?.type).toBe('response.incomplete');
      expect(last?.response.incomplete_details.reason).toBe('content_filter');
    });
  });

  it('images, speech, transcription and embeddings go to their deployments', async () => {
    const image = await openai.images.generate({ model: 'azure/dall-e-3', prompt: 'a red square', size: '1024x1024', response_format: 'b64_json' });
    expect(Buffer.from(image.data![0].b64_json!, 'base64').subarray(1, 4).toString()).toBe('PNG'); // the deployment's image, passed on
    expect(lastAzure().path).toBe('/openai/v1/images/generations');
    expect(lastAzure().json?.model).toBe('my-dalle');
    expect(lastAzure().json?.response_format).toBe('b64_json');
    // A gpt-image deployment under another name: no response_format (judged by the model id, not the deployment's name).
    const gptImage = await openai.images.generate({ model: 'azure/gpt-image-1', prompt: 'a red square', size: '1024x1024' });
    expect(gptImage.data?.length).toBe(1);
    expect(lastAzure().json).toMatchObject({ model: 'pictures', prompt: 'a red square' });
    expect(lastAzure().json).not.toHaveProperty('response_format');

    const speech = await openai.audio.speech.create({ model: 'azure/tts-1', voice: 'alloy', input: 'hello' });
    expect(Buffer.from(await speech.arrayBuffer()).length).toBeGreaterThan(0);
    expect(lastAzure().path).toBe('/openai/v1/audio/speech');

    const transcript = await openai.audio.transcriptions.create({ model: 'azure/whisper-1', file: await toFile(Buffer.from('RIFF....WAVEfmt '), 'a.wav', { type: 'audio/wav' }) });
    expect(transcript.text).toBe('hello from the fake transcription');
    expect(lastAzure().path).toBe('/openai/v1/audio/transcriptions');

    const embedding = await openai.embeddings.create({ model: 'azure/text-embedding-3-small', input: ['a', 'b'] });
    expect(embedding.data).toHaveLength(2);
    expect(lastAzure().json?.model).toBe('my-embed');
  });

  it('a batch line routed to azure (emulated)', async () => {
    expect(await runChatBatch(openai, [['az-1', 'azure/gpt-4.1', 'one'], ['az-2', 'azure-dated/gpt-4.1', 'two']])).toEqual([
      ['az-1', 200, 'Paris 18°C, Oslo 9°C.'],
      ['az-2', 200, 'Paris 18°C, Oslo 9°C.'],
    ]);
    expect(azure.requests.map((r) => r.path).sort()).toEqual(['/openai/deployments/prod-gpt41/chat/completions?api-version=2025-04-01-preview', '/openai/v1/chat/completions']);
  });

  it('Microsoft Entra: one token for many calls, sent as a bearer, refreshed before it expires', async () => {
    const issuedBefore = azure.tokensIssued;
    await Promise.all([1, 2, 3].map(() => openai.chat.completions.create({ model: 'azure-entra/gpt-4.1', messages: [{ role: 'user', content: 'hi' }] })));
    expect(azure.tokensIssued - issuedBefore).toBeLessThanOrEqual(1);
    const sent = lastAzure();
    expect(sent.headers.authorization).toMatch(/^Bearer eyJ0eXAi\./);
    expect(sent.headers['api-key']).toBeUndefined();
    const form = azure.tokenRequests.at(-1)!;
    expect(form).toMatchObject({ url: expect.stringMatching(/^\/contoso-tenant\/oauth2\/v2\.0\/token/), grant_type: 'client_credentials', client_id: ENTRA.clientId, scope: 'https://cognitiveservices.azure.com/.default' });
    // The token lives 4 s: it is refreshed half way, so calls keep succeeding with a new one.
    const firstToken = sent.headers.authorization;
    const issued = azure.tokensIssued;
    await until('a refreshed token', async () => {
      await openai.chat.completions.create({ model: 'azure-entra/gpt-4.1', messages: [{ role: 'user', content: 'again' }] });
      return azure.tokensIssued > issued ? true : undefined;
    });
    await openai.chat.completions.create({ model: 'azure-entra/gpt-4.1', messages: [{ role: 'user', content: 'after' }] });
    expect(lastAzure().headers.authorization).not.toBe(firstToken);
    expect(azure.tokensIssued).toBe(issued + 1);
  });

  it("the plain openai plugin on Azure's v1 path: the deployment as model, the key as a bearer, filters mapped", async () => {
    const completion = await openai.chat.completions.create({ model: 'azure-via-openai/gpt-4.1', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0].message.content).toBe('Paris 18°C, Oslo 9°C.');
    expect(lastAzure()).toMatchObject({ path: '/openai/v1/chat/completions', headers: { authorization: `Bearer ${API_KEY}` }, json: { model: 'prod-gpt41' } });
    const refused = await openai.chat.completions.create({ model: 'azure-via-openai/gpt-4.1', messages: [{ role: 'user', content: 'FILTER_PROMPT' }] }).then(() => undefined, (e: unknown) => e);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('content_filter');
  });

  it("a gpt-5 deployment named otherwise gets gpt-5's rules: a converted stop is left out, not refused by Azure", async () => {
    for (const model of ['azure-chat/gpt-5', 'azure-chat/reasoner']) {
      const { data, response } = await anthropic.messages
        .create({ model, max_tokens: 256, stop_sequences: ['END'], system: 'Be brief.', messages: [{ role: 'user', content: 'hi' }] })
        .withResponse();
      expect(data.content[0]).toMatchObject({ type: 'text', text: 'Paris 18°C, Oslo 9°C.' });
      const sent = lastAzure().json!;
      expect(sent).toMatchObject({ model: 'my-gpt5-prod', max_completion_tokens: 256, messages: [{ role: 'developer', content: 'Be brief.' }, { role: 'user' }] });
      expect([sent.stop, sent.max_tokens]).toEqual([undefined, undefined]);
      expect(response.headers.get('x-gateway-adapted')).toContain('stop=emulated');
    }
    expect(azure.rejections).toEqual([]);
    // baseModel gives the entry gpt-5's catalog facts too: its prices, its context window.
    const models = (await (await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${gw.key}` } })).json()) as { data: Json[] };
    const [gpt5, reasoner] = ['azure-chat/gpt-5', 'azure-chat/reasoner'].map((id) => models.data.find((m) => m.id === id)!);
    expect(reasoner.pricing).toEqual(gpt5.pricing);
    expect(reasoner.context_length).toBe(gpt5.context_length);
    expect(Number(gpt5.pricing.prompt)).toBeGreaterThan(0);
  });

  it("OpenAI's own fields go to an Azure OpenAI deployment, not to a Foundry model OpenAI does not make", async () => {
    await openai.responses.create({ model: 'azure-chat/gpt-4.1', input: 'hi', prompt_cache_key: 'session-7', safety_identifier: 'user-7' });
    expect(lastAzure().json).toMatchObject({ model: 'prod-gpt41', prompt_cache_key: 'session-7', safety_identifier: 'user-7' });
    await openai.responses.create({ model: 'azure-chat/Llama-3.3-70B-Instruct', input: 'hi', prompt_cache_key: 'session-7', safety_identifier: 'user-7' });
    const llama = lastAzure().json!;
    expect([llama.model, llama.prompt_cache_key, llama.safety_identifier]).toEqual(['Llama-3.3-70B-Instruct', undefined, undefined]);
    expect(azure.rejections).toEqual([]);
  });

  it('the fake checks what Azure checks: api-version on the deployments path, the key, the deployment', async () => {
    const post = (path: string, headers: Record<string, string>, body: Json) => fetch(`${azure.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const chatBody = { messages: [{ role: 'user', content: 'x' }] };
    const noVersion = await post('/openai/deployments/prod-gpt41/chat/completions', { 'api-key': API_KEY }, chatBody);
    expect([noVersion.status, await noVersion.json()]).toEqual([404, { error: { code: '404', message: 'Resource not found' } }]);
    const badKey = await post('/openai/v1/chat/completions', { 'api-key': 'wrong' }, { ...chatBody, model: 'prod-gpt41' });
    expect(badKey.status).toBe(401);
    const unknown = await post('/openai/v1/chat/completions', { 'api-key': API_KEY }, { ...chatBody, model: 'nope' });
    expect([unknown.status, ((await unknown.json()) as Json).error.code]).toEqual([404, 'DeploymentNotFound']);
    const extra = await post('/openai/v1/chat/completions', { 'api-key': API_KEY }, { ...chatBody, model: 'prod-gpt41', made_up: 1 });
    expect(extra.status).toBe(400);
  });
});
