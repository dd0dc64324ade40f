/**
 * Structured output through the official SDKs' own helpers, against upstreams of every format
 * (test/helpers/structured-fake.ts: it answers a JSON value built from the schema it received in
 * its format's own field, refuses schemas the real API refuses, and refuses a prompt holding
 * REFUSE the way its API does): openai `chat.completions.parse` / `.stream` with
 * `zodResponseFormat` and `responses.parse` / `.stream` with `zodTextFormat`, `@anthropic-ai/sdk`
 * `messages.parse` with `zodOutputFormat` and a forced tool, `@google/genai` with `responseSchema`
 * and `responseJsonSchema`. The parsed object must come back, whole and streamed; a refusal must
 * read as the client's own refusal.
 */
import Anthropic from '@anthropic-ai/sdk';
import { zodOutputFormat } from '@anthropic-ai/sdk/helpers/zod';
import { GoogleGenAI, Type } from '@google/genai';
import OpenAI from 'openai';
import { ContentFilterFinishReasonError } from 'openai/core/error';
import { zodFunction, zodResponseFormat, zodTextFormat } from 'openai/helpers/zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { REFUSAL, startStructuredFake, type StructuredFake } from '../helpers/structured-fake.ts';

const Weather = z.object({
  city: z.string(),
  temperature: z.number(),
  conditions: z.enum(['sunny', 'rainy']),
  wind: z.object({ speed: z.number(), unit: z.string() }),
  note: z.string().nullable(),
});
/** What the fake builds from the schema: first enum value, 1 for numbers, 'text' for strings. */
const EXPECTED = { city: 'text', temperature: 1, conditions: 'sunny', wind: { speed: 1, unit: 'text' }, note: 'text' };
const GEMINI_SCHEMA = {
  type: Type.OBJECT,
  properties: {
    city: { type: Type.STRING },
    temperature: { type: Type.NUMBER },
    conditions: { type: Type.STRING, enum: ['sunny', 'rainy'] },
    wind: { type: Type.OBJECT, properties: { speed: { type: Type.NUMBER }, unit: { type: Type.STRING } }, required: ['speed', 'unit'] },
    note: { type: Type.STRING, nullable: true },
  },
  required: ['city', 'temperature', 'conditions', 'wind', 'note'],
  propertyOrdering: ['city', 'temperature', 'conditions', 'wind', 'note'],
};
const MODELS = ['oc/gpt-4.1', 'or/gpt-4.1', 'ant/claude-up', 'google/gemini-2.5-flash'];
/** Upstreams with a refusal of their own (Gemini has none). */
const REFUSING = ['oc/gpt-4.1', 'or/gpt-4.1', 'ant/claude-up'];

describe('structured output through the official SDK helpers', () => {
  let fake: StructuredFake;
  let gw: SpawnedGateway;
  let openai: OpenAI;
  let anthropic: Anthropic;
  let google: GoogleGenAI;

  beforeAll(async () => {
    fake = await startStructuredFake();
    gw = await spawnGateway({
      config: {
        providers: {
          oc: { plugin: 'openai', baseURL: `${fake.url}/v1`, apiKey: 'x', formats: ['chat'], models: ['gpt-4.1'] },
          or: { plugin: 'openai', baseURL: `${fake.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-4.1'] },
          ant: { plugin: 'anthropic', baseURL: fake.url, apiKey: 'x', models: [{ id: 'claude-up', maxOutputTokens: 64000, capabilities: ['streaming', 'function_calling'] }] },
          google: { plugin: 'google', apiKey: 'goog', baseURL: fake.url, models: ['gemini-2.5-flash'] },
        },
      },
    });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0 });
    google = new GoogleGenAI({ apiKey: gw.key, httpOptions: { baseUrl: gw.url, timeout: 15_000 } });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    await fake?.close();
  });
  beforeEach(() => {
    fake.rejections.length = 0;
    fake.unschematic.length = 0;
    fake.requests.length = 0;
  });
  const clean = () => {
    expect(fake.rejections).toEqual([]);
    expect(fake.unschematic).toEqual([]);
  };

  describe.each(MODELS)('%s', (model) => {
    it('openai chat.completions.parse and .stream with zodResponseFormat', async () => {
      const response_format = zodResponseFormat(Weather, 'weather');
      const messages = [{ role: 'user' as const, content: 'Weather in Paris?' }];
      const parsed = await openai.chat.completions.parse({ model, messages, response_format });
      clean();
      expect(parsed.choices[0]!.message.parsed).toEqual(EXPECTED);
      expect(parsed.choices[0]!.message.refusal).toBeNull();
      const streamed = await openai.chat.completions.stream({ model, messages, response_format }).finalChatCompletion();
      clean();
      expect(streamed.choices[0]!.message.parsed).toEqual(EXPECTED);
    });

    it('openai responses.parse and .stream with zodTextFormat', async () => {
      const text = { format: zodTextFormat(Weather, 'weather') };
      const parsed = await openai.responses.parse({ model, input: 'Weather in Paris?', text });
      clean();
      expect(parsed.output_parsed).toEqual(EXPECTED);
      const streamed = await openai.responses.stream({ model, input: 'Weather in Paris?', text }).finalResponse();
      clean();
      expect(streamed.output_parsed).toEqual(EXPECTED);
    });

    it('anthropic messages.parse and .stream with zodOutputFormat', async () => {
      const params = { model, max_tokens: 1024, messages: [{ role: 'user' as const, content: 'Weather in Paris?' }], output_config: { format: zodOutputFormat(Weather) } };
      const parsed = await anthropic.messages.parse(params);
      clean();
      expect(parsed.parsed_output).toEqual(EXPECTED);
      expect(parsed.stop_reason).toBe('end_turn');
      // Anthropic constrains the answer to the schema; an OpenAI upstream is asked for the same (the schema fits strict mode).
      const sent = fake.requests[0]!.json as Record<string, any>;
      if (model === 'oc/gpt-4.1') expect(sent.response_format.json_schema.strict).toBe(true);
      if (model === 'or/gpt-4.1') expect(sent.text.format.strict).toBe(true);
      const streamed = await anthropic.messages.stream(params).finalMessage();
      clean();
      expect(streamed.parsed_output).toEqual(EXPECTED);
    });

    it('anthropic tool forcing: the forced tool is called with an input of its schema', async () => {
      const tools = [{ name: 'record_weather', description: 'Record the weather', input_schema: z.toJSONSchema(Weather) as Anthropic.Tool.InputSchema }];
      const message = await anthropic.messages.create({ model, max_tokens: 1024, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools, tool_choice: { type: 'tool', name: 'record_weather' } });
      clean();
      expect(message.stop_reason).toBe('tool_use');
      expect(message.content).toMatchObject([{ type: 'tool_use', name: 'record_weather', input: EXPECTED }]);
    });

    it('anthropic strict tool with an optional property', async () => {
      // Valid for Anthropic's strict tool use (objects closed; optional properties allowed), not for OpenAI's strict mode.
      const input_schema = { type: 'object' as const, properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['C', 'F'] } }, required: ['city'], additionalProperties: false };
      const message = await anthropic.messages.create({ model, max_tokens: 1024, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [{ name: 'lookup', description: 'Weather of a city', input_schema, strict: true }], tool_choice: { type: 'tool', name: 'lookup' } });
      clean();
      expect(message.content).toMatchObject([{ type: 'tool_use', name: 'lookup', input: { city: 'text', unit: 'C' } }]);
    });

    it('openai chat.completions.parse with a zodFunction tool', async () => {
      const tools = [zodFunction({ name: 'record_weather', parameters: Weather })];
      const completion = await openai.chat.completions.parse({ model, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools, tool_choice: { type: 'function', function: { name: 'record_weather' } } });
      clean();
      expect(completion.choices[0]!.message.tool_calls).toMatchObject([{ type: 'function', function: { name: 'record_weather', parsed_arguments: EXPECTED } }]);
    });

    it('@google/genai responseSchema and responseJsonSchema, whole and streamed', async () => {
      const contents = 'Weather in Paris?';
      const withSchema = await google.models.generateContent({ model, contents, config: { responseMimeType: 'application/json', responseSchema: GEMINI_SCHEMA } });
      clean();
      expect(JSON.parse(withSchema.text!)).toEqual(EXPECTED);
      const config = { responseMimeType: 'application/json', responseJsonSchema: z.toJSONSchema(Weather) };
      const withJsonSchema = await google.models.generateContent({ model, contents, config });
      clean();
      expect(JSON.parse(withJsonSchema.text!)).toEqual(EXPECTED);
      let streamed = '';
      for await (const chunk of await google.models.generateContentStream({ model, contents, config })) streamed += chunk.text ?? '';
      clean();
      expect(JSON.parse(streamed)).toEqual(EXPECTED);
    });
  });

  describe.each(['oc/gpt-4.1', 'or/gpt-4.1'])('a refusal of %s', (model) => {
    const ask = 'REFUSE: weather in Paris?';

    it('reads as message.refusal to chat.completions.parse, whole and streamed', async () => {
      const params = { model, messages: [{ role: 'user' as const, content: ask }], response_format: zodResponseFormat(Weather, 'weather') };
      const parsed = await openai.chat.completions.parse(params);
      clean();
      expect(parsed.choices[0]!.message).toMatchObject({ refusal: REFUSAL, parsed: null });
      const streamed = await openai.chat.completions.stream(params).finalChatCompletion();
      expect(streamed.choices[0]!.message).toMatchObject({ refusal: REFUSAL, parsed: null });
    });

    it('reads as a refusal part to responses.parse, whole and streamed', async () => {
      const params = { model, input: ask, text: { format: zodTextFormat(Weather, 'weather') } };
      const parsed = await openai.responses.parse(params);
      clean();
      expect(parsed.output_parsed).toBeNull();
      expect(parsed.output.flatMap((item) => (item.type === 'message' ? item.content : []))).toEqual([{ type: 'refusal', refusal: REFUSAL }]);
      const streamed = await openai.responses.stream(params).finalResponse();
      expect(streamed.output.flatMap((item) => (item.type === 'message' ? item.content : []))).toEqual([{ type: 'refusal', refusal: REFUSAL }]);
    });
  });

  it("a refusal of Claude reads as a content filter to the OpenAI and Gemini clients", async () => {
    const ask = 'REFUSE: weather in Paris?';
    // Claude's refusal may come after part of an answer (its classifiers stop a stream): the text stays text.
    await expect(openai.chat.completions.parse({ model: 'ant/claude-up', messages: [{ role: 'user', content: ask }], response_format: zodResponseFormat(Weather, 'weather') })).rejects.toThrow(ContentFilterFinishReasonError);
    const chat = await openai.chat.completions.create({ model: 'ant/claude-up', messages: [{ role: 'user', content: ask }], response_format: zodResponseFormat(Weather, 'weather') });
    expect(chat.choices[0]).toMatchObject({ finish_reason: 'content_filter', message: { content: REFUSAL } });
    const response = await openai.responses.create({ model: 'ant/claude-up', input: ask, text: { format: zodTextFormat(Weather, 'weather') } });
    expect(response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'content_filter' }, output_text: REFUSAL });
    const gemini = await google.models.generateContent({ model: 'ant/claude-up', contents: ask, config: { responseMimeType: 'application/json', responseJsonSchema: z.toJSONSchema(Weather) } });
    expect(gemini.candidates?.[0]).toMatchObject({ finishReason: 'SAFETY', content: { parts: [{ text: REFUSAL }] } });
    clean();
  });

  // The Anthropic SDK's own parse (and create, given zodOutputFormat) throws on a refusal's text, as it does against Anthropic: a plain schema here.
  describe.each(REFUSING)('a refusal of %s to the Anthropic SDK', (model) => {
    it('reads as stop_reason refusal with stop_details, whole and streamed', async () => {
      const params = { model, max_tokens: 1024, messages: [{ role: 'user' as const, content: 'REFUSE: weather in Paris?' }], output_config: { format: { type: 'json_schema' as const, schema: z.toJSONSchema(Weather) } } };
      const message = await anthropic.messages.create(params);
      clean();
      expect(message.stop_reason).toBe('refusal');
      expect(message.stop_details).toMatchObject({ type: 'refusal' });
      expect(message.content).toMatchObject([{ type: 'text', text: REFUSAL }]);
      const streamed = await anthropic.messages.stream(params).finalMessage();
      expect(streamed.stop_reason).toBe('refusal');
      expect(streamed.stop_details).toMatchObject({ type: 'refusal' });
      expect(streamed.content).toMatchObject([{ type: 'text', text: REFUSAL }]);
    });
  });
});
