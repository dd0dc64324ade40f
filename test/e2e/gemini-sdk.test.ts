/**
 * The unmodified `@google/genai` SDK (httpOptions.baseUrl at the gateway) through the real
 * gateway, converted to the Chat, Responses and Messages strict fakes: generateContent,
 * generateContentStream, countTokens, models.list and get, a chat with function calling over
 * several turns, and errors in Google's shape. (A passthrough to a Gemini upstream needs the
 * `google` plugin and its fake: plugins/google's own tests.)
 */
import { ApiError, GoogleGenAI, Type, type Content } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

const pick = (names: string[]) => (names.includes('lookup') ? { name: 'lookup', input: { city: 'Paris' } } : undefined);
const LOOKUP = { name: 'lookup', description: 'Weather of a city', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const MODELS = [
  ['chat', 'oc/o4-mini'],
  ['responses', 'or/gpt-5'],
  ['messages', 'ant/claude-up'],
] as const;

describe('@google/genai through the gateway', () => {
  const fakes = {} as Record<(typeof MODELS)[number][0], StrictFake>;
  let gw: SpawnedGateway;
  let ai: GoogleGenAI;

  beforeAll(async () => {
    const options = { pick, toolTurns: 2, finalText: 'It is 18°C in Paris.' };
    fakes.chat = await startStrictFake({ format: 'chat', models: { 'o4-mini': { maxOutput: 100000, reasoning: true }, 'gpt-5.1': { maxOutput: 128000, reasoning: true } }, ...options });
    fakes.responses = await startStrictFake({ format: 'responses', models: { 'gpt-5': { maxOutput: 128000, reasoning: true } }, ...options });
    fakes.messages = await startStrictFake({ format: 'messages', models: { 'claude-up': { maxOutput: 64000, reasoning: true } }, ...options });
    gw = await spawnGateway({
      config: {
        providers: {
          oc: { plugin: 'openai', baseURL: `${fakes.chat.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['o4-mini', 'gpt-5.1'] },
          or: { plugin: 'openai', baseURL: `${fakes.responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5'] },
          ant: { plugin: 'anthropic', baseURL: fakes.messages.url, apiKey: 'x', models: [{ id: 'claude-up', maxOutputTokens: 64000, contextWindow: 200000, capabilities: ['streaming', 'function_calling', 'thinking'] }] },
          mock: { plugin: 'mock' }, // its offline embedding model, mock/embed
        },
        routing: { retry: { attempts: 1 } },
        storage: { openUploadsPerAccount: 3 },
      },
    });
    ai = new GoogleGenAI({ apiKey: gw.key, httpOptions: { baseUrl: gw.url, timeout: 15_000 } });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    for (const fake of Object.values(fakes)) await fake?.close();
  });
  beforeEach(() => {
    for (const fake of Object.values(fakes)) fake.requests.length = 0;
  });

  for (const [format, model] of MODELS) {
    describe(`converted to ${format}`, () => {
      it('generateContent: text, system instruction, usage', async () => {
        const response = await ai.models.generateContent({ model, contents: 'Say hi', config: { systemInstruction: 'Be brief.', maxOutputTokens: 200 } });
        expect(response.text).toBe('It is 18°C in Paris.');
        expect(response.usageMetadata?.promptTokenCount).toBeGreaterThan(0);
        expect(response.usageMetadata?.candidatesTokenCount).toBeGreaterThan(0);
        expect(response.candidates?.[0]?.finishReason).toBe('STOP');
        expect(fakes[format].rejections).toEqual([]);
        expect(fakes[format].requests).toHaveLength(1);
        expect(JSON.stringify(fakes[format].requests[0].json)).toContain('Be brief.');
      });

      it('generateContentStream: the text in pieces, then the finish and usage', async () => {
        const stream = await ai.models.generateContentStream({ model, contents: 'Say hi' });
        let text = '';
        let last: { finishReason?: string; usage?: number } = {};
        for await (const chunk of stream) {
          text += chunk.text ?? '';
          if (chunk.candidates?.[0]?.finishReason) last = { finishReason: chunk.candidates[0].finishReason, usage: chunk.usageMetadata?.totalTokenCount };
        }
        expect(text).toBe('It is 18°C in Paris.');
        expect(last.finishReason).toBe('STOP');
        expect(last.usage).toBeGreaterThan(0);
        expect(fakes[format].rejections).toEqual([]);
      });

      it('a chat with function calling over several turns: calls answered, then the final text', async () => {
        const chat = ai.chats.create({ model, config: { tools: [{ functionDeclarations: [LOOKUP] }] } });
        let response = await chat.sendMessage({ message: 'Weather in Paris?' });
        for (let turn = 0; turn < 2; turn += 1) {
          const calls = response.functionCalls ?? [];
          expect(calls.map((call) => [call.name, call.args])).toEqual([['lookup', { city: 'Paris' }]]);
          response = await chat.sendMessage({ message: calls.map((call) => ({ functionResponse: { id: call.id, name: call.name!, response: { result: '18°C' } } })) });
        }
        expect(response.text).toBe('It is 18°C in Paris.');
        expect(fakes[format].rejections).toEqual([]);
        expect(fakes[format].requests).toHaveLength(3);
        // The last request holds both calls and both results, paired by id.
        const history: Content[] = chat.getHistory();
        expect(history.filter((content) => content.parts?.some((part) => part.functionCall))).toHaveLength(2);
      });
    });
  }

  it('streamGenerateContent without alt=sse: one JSON array written element by element (key in ?key=)', async () => {
    const response = await fetch(`${gw.url}/v1beta/models/oc/o4-mini:streamGenerateContent?key=${gw.key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Say hi' }] }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const elements = JSON.parse(await response.text()) as Array<Record<string, any>>;
    expect(elements.map((e) => e.candidates[0].content.parts.map((p: { text?: string }) => p.text ?? '').join('')).join('')).toBe('It is 18°C in Paris.');
    expect(elements.at(-1)).toMatchObject({ candidates: [{ finishReason: 'STOP' }], usageMetadata: { totalTokenCount: expect.any(Number) } });
  });

  it("Google's REST example in snake_case (system_instruction, generation_config, inline_data) reaches a Chat upstream whole", async () => {
    const response = await fetch(`${gw.url}/v1beta/models/oc/o4-mini:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': gw.key! },
      body: JSON.stringify({
        system_instruction: { parts: [{ text: 'You are a cat. Your name is Neko.' }] },
        contents: [{ parts: [{ text: 'Hello there' }, { inline_data: { mime_type: 'image/png', data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==' } }] }],
        generation_config: { max_output_tokens: 321 },
      }),
    });
    expect(response.status).toBe(200);
    expect(fakes.chat.rejections).toEqual([]);
    const sent = fakes.chat.requests[0].json as { messages: Array<{ role: string; content: unknown }>; max_completion_tokens?: number; max_tokens?: number };
    expect(['system', 'developer']).toContain(sent.messages[0].role); // o4-mini takes its instructions as developer
    expect(JSON.stringify(sent.messages[0].content)).toContain('Your name is Neko.');
    expect(JSON.stringify(sent.messages[1].content)).toContain('image/png');
    expect(sent.max_completion_tokens ?? sent.max_tokens).toBe(321);
  });

  it('countTokens: a local count (no counter for this format upstream), never zero', async () => {
    const answer = await ai.models.countTokens({ model: 'oc/o4-mini', contents: 'How many tokens is this sentence?' });
    expect(answer.totalTokens).toBeGreaterThan(3);
    // Text only: the REST answer has the breakdown Google gives, all TEXT (the SDK keeps only the total).
    const rest = await fetch(`${gw.url}/v1beta/models/oc/o4-mini:countTokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': gw.key! },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'How many tokens is this sentence?' }] }] }),
    });
    expect(await rest.json()).toEqual({ totalTokens: answer.totalTokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: answer.totalTokens }] });
    expect(fakes.chat.requests).toHaveLength(0);
  });

  it("models.list and models.get: Gemini's list shape with the gateway's ids", async () => {
    const names: string[] = [];
    const pager = await ai.models.list({ config: { pageSize: 2 } });
    for await (const model of pager) names.push(model.name ?? '');
    expect(names).toEqual(expect.arrayContaining(['models/oc/o4-mini', 'models/or/gpt-5', 'models/ant/claude-up']));
    const one = await ai.models.get({ model: 'ant/claude-up' });
    expect(one).toMatchObject({ name: 'models/ant/claude-up', inputTokenLimit: 200000, outputTokenLimit: 64000 });
    expect(one.supportedActions).toEqual(expect.arrayContaining(['generateContent', 'countTokens']));
  });

  it("errors come in Google's shape with the gateway's code: unknown model, bad key", async () => {
    const unknown = await ai.models.generateContent({ model: 'nobody/nothing', contents: 'hi' }).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(ApiError);
    expect((unknown as ApiError).status).toBe(404);
    const body = JSON.parse((unknown as ApiError).message);
    expect(body.error).toMatchObject({ code: 404, status: 'NOT_FOUND', details: [expect.objectContaining({ reason: 'model_not_found' })] });
    const stranger = new GoogleGenAI({ apiKey: 'sk-not-a-key', httpOptions: { baseUrl: gw.url } });
    const refused = await stranger.models.generateContent({ model: 'oc/o4-mini', contents: 'hi' }).catch((error: unknown) => error);
    expect((refused as ApiError).status).toBe(401);
    expect(JSON.parse((refused as ApiError).message).error.status).toBe('UNAUTHENTICATED');
  });

  it("Gemini 3's multimodal function response (an image in functionResponse.parts) reaches every upstream format with the tool's result", async () => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    for (const [format, model] of MODELS) {
      const history: Content[] = [
        { role: 'user', parts: [{ text: 'What is in shot.png?' }] },
        { role: 'model', parts: [{ functionCall: { id: 'call_read_1', name: 'lookup', args: { city: 'Paris' } } }] },
        { role: 'user', parts: [{ functionResponse: { id: 'call_read_1', name: 'lookup', response: { output: 'shot.png attached' }, parts: [{ inlineData: { mimeType: 'image/png', data: png } }] } }] },
      ];
      // Before: 400 INVALID_ARGUMENT "functionResponse.parts has no equivalent in the upstream format".
      const answer = await ai.models.generateContent({ model, contents: history, config: { tools: [{ functionDeclarations: [LOOKUP] }] } });
      expect(answer.functionCalls?.length ?? answer.text?.length, format).toBeGreaterThan(0);
      const sent = JSON.stringify(fakes[format].requests.at(-1)!.json);
      expect(sent, format).toContain(png);
      expect(sent, format).toContain('shot.png attached');
      expect(fakes[format].rejections, format).toEqual([]);
    }
  });

  it('candidateCount 2 on a converted route is refused before anything goes up (the gateway reads one candidate), on every upstream format', async () => {
    for (const [format, model] of MODELS) {
      // Before, on a Chat upstream: n=2 went up (two choices billed) and the client got the first candidate only.
      const error = await ai.models.generateContent({ model, contents: 'hi', config: { candidateCount: 2 } }).catch((thrown: unknown) => thrown);
      expect(error, format).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(400);
      expect(JSON.parse((error as ApiError).message).error).toMatchObject({ status: 'INVALID_ARGUMENT', details: expect.arrayContaining([expect.objectContaining({ reason: 'validation_error' })]) });
      expect(fakes[format].requests, format).toHaveLength(0);
    }
    expect((await ai.models.generateContent({ model: 'oc/o4-mini', contents: 'hi', config: { candidateCount: 1 } })).text).toBe('It is 18°C in Paris.');
  });

  it("responseModalities with IMAGE on a model whose upstream cannot make images is Google's 400, before anything goes up; on Responses it asks for OpenAI's image tool", async () => {
    const config = { responseModalities: ['TEXT', 'IMAGE'] };
    for (const [format, model] of [MODELS[0], MODELS[2]]) {
      // Before: a text-only answer, as if the client had not asked for images.
      for (const call of [() => ai.models.generateContent({ model, contents: 'Draw a cat', config }), () => ai.models.generateContentStream({ model, contents: 'Draw a cat', config })]) {
        const error = await call().catch((thrown: unknown) => thrown);
        expect(error, format).toBeInstanceOf(ApiError);
        expect((error as ApiError).status).toBe(400);
        const body = JSON.parse((error as ApiError).message).error;
        expect(body).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', details: expect.arrayContaining([expect.objectContaining({ reason: 'bad_request' })]) });
        expect(body.message).toBe(`Model does not support the requested response modalities: image (model '${model}' is served by an upstream that answers in text only).`);
        expect(fakes[format].requests, format).toHaveLength(0);
      }
    }
    expect((await ai.models.generateContent({ model: 'or/gpt-5', contents: 'Draw a cat', config })).text).toBe('It is 18°C in Paris.');
    expect((fakes.responses.requests.at(-1)!.json as Record<string, any>).tools).toEqual([{ type: 'image_generation' }]);
    expect(fakes.responses.rejections).toEqual([]);
  });

  it('thinkingBudget 0 asks an OpenAI reasoning model for its least reasoning (low, minimal, none by model), -1 for its default; Claude gets no thinking', async () => {
    const effortOf = (format: keyof typeof fakes) => {
      const body = fakes[format].requests.at(-1)?.json as Record<string, any>;
      return format === 'chat' ? body.reasoning_effort : format === 'responses' ? body.reasoning?.effort : body.thinking;
    };
    const ask = (model: string, thinkingBudget: number) => ai.models.generateContent({ model, contents: 'Say hi', config: { thinkingConfig: { thinkingBudget } } });
    const cases = [['chat', 'oc/o4-mini', 'low'], ['chat', 'oc/gpt-5.1', 'none'], ['responses', 'or/gpt-5', 'minimal']] as const;
    for (const [format, model, least] of cases) {
      // Before: reasoning off sent no effort, and the model reasoned at its default (medium for o4-mini and gpt-5).
      expect((await ask(model, 0)).text, model).toBe('It is 18°C in Paris.');
      expect(effortOf(format), model).toBe(least);
      expect((await ask(model, -1)).text).toBe('It is 18°C in Paris.');
      expect(effortOf(format), `${model} dynamic`).toBeUndefined();
    }
    await ask('ant/claude-up', 0);
    expect(effortOf('messages')?.type ?? 'disabled').toBe('disabled');
    for (const fake of Object.values(fakes)) expect(fake.rejections).toEqual([]);
  });

  it("responseMimeType text/x.enum: every upstream format is asked for a strict schema with the enum, and the client gets the bare value, whole and streamed", async () => {
    const config = { responseMimeType: 'text/x.enum', responseSchema: { type: Type.STRING, enum: ['done', 'pending'] } };
    const schemaOf = (format: keyof typeof fakes) => {
      const body = fakes[format].requests.at(-1)?.json as Record<string, any>;
      return format === 'chat' ? body.response_format?.json_schema?.schema : format === 'responses' ? body.text?.format?.schema : body.output_config?.format?.schema;
    };
    for (const [format, model] of MODELS) {
      // Before: 400, "'text/x.enum' has no equivalent in the upstream format".
      expect((await ai.models.generateContent({ model, contents: 'Is it done?', config })).text, format).toBe('done');
      expect(schemaOf(format), format).toEqual({ type: 'object', properties: { answer: { type: 'string', enum: ['done', 'pending'] } }, required: ['answer'], additionalProperties: false });
      let text = '';
      for await (const chunk of await ai.models.generateContentStream({ model, contents: 'Is it done?', config })) text += chunk.text ?? '';
      expect(text, `${format} stream`).toBe('done');
      expect(fakes[format].rejections).toEqual([]);
    }
    const error = await ai.models.generateContent({ model: 'oc/o4-mini', contents: 'hi', config: { responseMimeType: 'text/x.enum', responseSchema: { type: Type.STRING } } }).catch((thrown: unknown) => thrown);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).message).toContain('text/x.enum');
  });

  it('GET on a model method (…:generateContent, :streamGenerateContent, :countTokens) is a wrong method, not an unknown model', async () => {
    for (const path of ['/v1beta/models/oc/o4-mini:generateContent', '/v1beta/models/models/oc/o4-mini:streamGenerateContent?alt=sse', '/v1/models/oc/o4-mini:countTokens']) {
      // Before: 404 "The model 'oc/o4-mini:generateContent' does not exist." for a model that does.
      const answer = await fetch(`${gw.url}${path}`, { headers: { 'x-goog-api-key': gw.key! } });
      expect(answer.status, path).toBe(405);
      expect(answer.headers.get('allow')).toBe('POST, OPTIONS');
      const body = (await answer.json()) as { error: { code: number; status: string; message: string; details: Array<Record<string, unknown>> } };
      expect(body.error).toMatchObject({ code: 405, status: 'UNIMPLEMENTED', details: [expect.objectContaining({ reason: 'method_not_allowed' })] });
      expect(body.error.message).toContain('served by POST');
    }
    // AI Studio's :predict is Imagen's, a POST on an image model (agents-google-clients): a GET is a 404 (it was a 405 "predict is
    // served by POST"), and so is a POST on a model that makes no images (Vertex's embedContent :predict is not AI Studio's).
    for (const [model, method] of [['oc/o4-mini', 'GET'], ['oc/o4-mini', 'POST'], ['mock/embed', 'POST'], ['mock/image', 'GET']]) {
      const answer = await fetch(`${gw.url}/v1beta/models/${model}:predict`, { method, headers: { 'x-goog-api-key': gw.key!, 'content-type': 'application/json' }, ...(method === 'POST' ? { body: '{"instances":[{"content":"hi"}]}' } : {}) });
      const body = (await answer.json()) as { error: { message: string } };
      expect([model, method, answer.status]).toEqual([model, method, 404]);
      expect(body.error.message).toBe(`No route for ${method} /v1beta/models/${model}:predict. GET /v1beta/models lists the models served.`);
    }
    // A model that is not there is still a 404, and one whose id holds a colon (Bedrock's …-v1:0) is not taken for a method.
    expect((await fetch(`${gw.url}/v1beta/models/nobody/nothing`, { headers: { 'x-goog-api-key': gw.key! } })).status).toBe(404);
    expect((await fetch(`${gw.url}/v1beta/models/nobody/nothing-v1:0`, { headers: { 'x-goog-api-key': gw.key! } })).status).toBe(404);
  });

  it('an invalid argument is 400 INVALID_ARGUMENT, as Google answers (never 422), the field in a BadRequest violation', async () => {
    const invalid = await ai.models.generateContent({ model: 'oc/o4-mini', contents: 'hi', config: { temperature: 'hot' as unknown as number } }).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(ApiError);
    expect((invalid as ApiError).status).toBe(400);
    const body = JSON.parse((invalid as ApiError).message);
    expect(body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(body.error.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'validation_error', domain: 'gateway' }),
        { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'generationConfig.temperature', description: expect.any(String) }] },
      ]),
    );
    expect(fakes.chat.requests).toHaveLength(0);
  });

  it("apiVersion 'v1' (Google's stable path, /v1/models/…): generateContent, a stream, countTokens, models.list and get, errors, all in Gemini's shape", async () => {
    const v1 = new GoogleGenAI({ apiKey: gw.key, apiVersion: 'v1', httpOptions: { baseUrl: gw.url, timeout: 15_000 } });
    const response = await v1.models.generateContent({ model: 'oc/o4-mini', contents: 'Say hi' });
    expect(response.text).toBe('It is 18°C in Paris.');
    let text = '';
    for await (const chunk of await v1.models.generateContentStream({ model: 'ant/claude-up', contents: 'Say hi' })) text += chunk.text ?? '';
    expect(text).toBe('It is 18°C in Paris.');
    expect((await v1.models.countTokens({ model: 'oc/o4-mini', contents: 'How many tokens is this sentence?' })).totalTokens).toBeGreaterThan(3);
    const names: string[] = [];
    for await (const model of await v1.models.list()) names.push(model.name ?? '');
    expect(names).toEqual(expect.arrayContaining(['models/oc/o4-mini', 'models/ant/claude-up']));
    expect(await v1.models.get({ model: 'ant/claude-up' })).toMatchObject({ name: 'models/ant/claude-up', inputTokenLimit: 200000, outputTokenLimit: 64000 });
    const unknown = await v1.models.generateContent({ model: 'nobody/nothing', contents: 'hi' }).catch((error: unknown) => error);
    expect((unknown as ApiError).status).toBe(404);
    expect(JSON.parse((unknown as ApiError).message).error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    expect(fakes.chat.rejections).toEqual([]);
  });

  it("a base URL with /v1 once too often (host/v1 + /v1beta/…): a 404 in Google's shape that says the base URL to use", async () => {
    const doubled = new GoogleGenAI({ apiKey: gw.key, httpOptions: { baseUrl: `${gw.url}/v1`, timeout: 15_000 } });
    const error = await doubled.models.generateContent({ model: 'oc/o4-mini', contents: 'hi' }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(404);
    const body = JSON.parse((error as ApiError).message);
    expect(body.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    expect(body.error.message).toContain(`take the base URL ${gw.url}`);
  });

  // The AI SDK's Google provider takes host/v1beta; @google/genai given the same adds /v1beta again. Before, the bare-id
  // route read 'v1beta/models/oc/o4-mini' as a model id: "The model … does not exist", nothing about the base URL.
  it("a base URL with /v1beta once too often (host/v1beta + /v1beta/…): generateContent, countTokens and embedContent say the base URL to use", async () => {
    const doubled = new GoogleGenAI({ apiKey: gw.key, httpOptions: { baseUrl: `${gw.url}/v1beta`, timeout: 15_000 } });
    const calls = [
      ['generateContent', () => doubled.models.generateContent({ model: 'oc/o4-mini', contents: 'hi' }), '/v1beta/models/oc/o4-mini:generateContent'],
      ['countTokens', () => doubled.models.countTokens({ model: 'oc/o4-mini', contents: 'hi' }), '/v1beta/models/oc/o4-mini:countTokens'],
      ['embedContent', () => doubled.models.embedContent({ model: 'mock/embed', contents: ['hi'] }), '/v1beta/models/mock/embed:batchEmbedContents'],
    ] as const;
    for (const [name, call, meant] of calls) {
      const error = await call().catch((thrown: unknown) => thrown);
      expect([name, (error as ApiError).status]).toEqual([name, 404]);
      const body = JSON.parse((error as ApiError).message);
      expect(body.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
      expect(body.error.message).toBe(
        `No route for POST /v1beta${meant}. Did you mean ${meant}? The base URL has /v1beta once too often: the Google SDKs add their API version themselves (/v1beta, or /v1 from @google/genai 3) and take the base URL ${gw.url} (@ai-sdk/google takes ${gw.url}/v1beta).`,
      );
    }
  });

  // Before: "No route for POST /v1alpha/models/…" (and for models.list, a GET, the dashboard's HTML page with a 200).
  it("apiVersion 'v1alpha' (not served): generateContent and models.list are Google's 404 naming the versions served", async () => {
    const alpha = new GoogleGenAI({ apiKey: gw.key, httpOptions: { baseUrl: gw.url, apiVersion: 'v1alpha', timeout: 15_000 } });
    const calls = [
      ['generateContent', () => alpha.models.generateContent({ model: 'oc/o4-mini', contents: 'hi' }), '/v1beta/models/oc/o4-mini:generateContent'],
      ['models.list', () => alpha.models.list(), '/v1beta/models'],
    ] as const;
    for (const [name, call, meant] of calls) {
      const error = await call().then(() => undefined, (thrown: unknown) => thrown);
      expect([name, (error as ApiError)?.status]).toEqual([name, 404]);
      const body = JSON.parse((error as ApiError).message);
      expect(body.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
      expect(body.error.message).toContain(`Did you mean ${meant}? This gateway serves Gemini's v1beta and v1, not v1alpha`);
    }
  });

  it('embedContent (the SDK asks :batchEmbedContents) and :embedContent by hand: vectors from an embedding model, in order', async () => {
    const answer = await ai.models.embedContent({ model: 'mock/embed', contents: ['first text', 'second text'], config: { outputDimensionality: 8, taskType: 'RETRIEVAL_DOCUMENT' } });
    const vectors = (answer.embeddings ?? []).map((embedding) => embedding.values ?? []);
    expect(vectors.map((values) => values.length)).toEqual([8, 8]);
    expect(vectors[0]).not.toEqual(vectors[1]);
    const one = await fetch(`${gw.url}/v1beta/models/mock/embed:embedContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': gw.key! },
      body: JSON.stringify({ content: { parts: [{ text: 'first text' }] }, outputDimensionality: 8 }),
    });
    expect(one.status).toBe(200);
    expect(((await one.json()) as { embedding: { values: number[] } }).embedding.values).toEqual(vectors[0]);
    const listed = await ai.models.get({ model: 'mock/embed' });
    expect(listed.supportedActions).toEqual(expect.arrayContaining(['embedContent', 'batchEmbedContents']));
    const wrong = await ai.models.embedContent({ model: 'oc/o4-mini', contents: 'x' }).catch((error: unknown) => error);
    expect((wrong as ApiError).status).toBeGreaterThanOrEqual(400);
    expect(JSON.parse((wrong as ApiError).message).error.status).toBeDefined();
  });

  it("a Google route the gateway does not serve (cachedContents) or a file it does not have is a 404 in Google's shape, never the dashboard's page", async () => {
    for (const call of [() => ai.caches.list(), () => ai.files.get({ name: 'files/abc' })]) {
      const error = await call().catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(404);
      expect(JSON.parse((error as ApiError).message).error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    }
    // Files are served (docs/batches.md): an upload without Google's resumable protocol is a 400 in its shape.
    const upload = await fetch(`${gw.url}/upload/v1beta/files`, { method: 'POST', headers: { 'x-goog-api-key': gw.key! }, body: 'x' });
    expect(upload.status).toBe(400);
    expect(((await upload.json()) as { error: { status: string } }).error.status).toBe('INVALID_ARGUMENT');
  });

  // Last in the file: the uploads it leaves open hold this account's upload slots for an hour.
  it("an account may have storage.openUploadsPerAccount uploads open at once (3 here); the next start is a 429 in Google's shape", async () => {
    const start = () =>
      fetch(`${gw.url}/upload/v1beta/files`, {
        method: 'POST',
        headers: { 'x-goog-api-key': gw.key!, 'x-goog-upload-protocol': 'resumable', 'x-goog-upload-command': 'start', 'x-goog-upload-header-content-length': '0', 'content-type': 'application/json' },
        body: JSON.stringify({ file: { displayName: 'empty' } }),
      });
    const opened: number[] = [];
    for (let i = 0; i < 3; i += 1) opened.push((await start()).status);
    expect(opened).toEqual([200, 200, 200]);
    const refused = await start();
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { status: string; message: string } }).error).toMatchObject({ status: 'RESOURCE_EXHAUSTED', message: expect.stringContaining('At most 3 uploads may be open') });
  });
});
