/**
 * A multi-turn image edit ("now make it blue"): the client sends the image the model made back in
 * its history. A Chat client holds it as OpenRouter answers it (`message.images` on the assistant
 * message), a Responses client as OpenAI's `image_generation_call` item. Before, a conversion left
 * both out, so the image model was asked to edit an image it never saw. Now it reaches a Gemini
 * upstream as the model turn's `inlineData` and a Responses upstream as an `image_generation_call`
 * item; a Messages upstream gets the turn's text only (Anthropic refuses images in assistant turns).
 */
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_PNG_BASE64, startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

type Json = Record<string, any>;

describe('an image the model made, sent back for an edit', () => {
  const IMAGE = 'gemini-2.5-flash-image';
  const url = `data:image/png;base64,${FAKE_PNG_BASE64}`;
  let gemini: GeminiFake;
  let responses: StrictFake;
  let messages: StrictFake;
  let gw: SpawnedGateway;
  let openai: OpenAI;

  beforeAll(async () => {
    gemini = await startGeminiFake({ models: { [IMAGE]: { thinking: false, gemini3: false, image: true } }, apiKey: 'goog-upstream-key', finalText: 'Here it is, blue.' });
    responses = await startStrictFake({ format: 'responses', models: { 'gpt-5': { maxOutput: 128000, reasoning: true } }, finalText: 'ok' });
    messages = await startStrictFake({ format: 'messages', models: { 'claude-sonnet-4-5': { maxOutput: 64000, reasoning: true } }, finalText: 'ok' });
    gw = await spawnGateway({
      config: {
        providers: {
          google: { plugin: 'google', apiKey: 'goog-upstream-key', baseURL: gemini.url, models: [IMAGE] },
          oai: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5'] },
          ant: { plugin: 'anthropic', baseURL: messages.url, apiKey: 'x', models: ['claude-sonnet-4-5'] },
        },
      },
    });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0, timeout: 15_000 });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await gemini?.close();
    await responses?.close();
    await messages?.close();
  });
  beforeEach(() => {
    gemini.requests.length = 0;
    responses.requests.length = 0;
    messages.requests.length = 0;
  });

  // The history an OpenRouter-style Chat client keeps: the assistant's text, and its image in `images`.
  const chatHistory = (): OpenAI.ChatCompletionMessageParam[] => [
    { role: 'user', content: 'Draw a cat' },
    { role: 'assistant', content: 'A cat.', images: [{ type: 'image_url', image_url: { url }, index: 0 }] } as unknown as OpenAI.ChatCompletionMessageParam,
    { role: 'user', content: 'Now make it blue' },
  ];

  it('Chat client → Gemini image model: the image is the model turn\'s inlineData, after its text', async () => {
    const done = await openai.chat.completions.create({ model: `google/${IMAGE}`, messages: chatHistory(), modalities: ['image', 'text'] } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(done.choices[0]!.message.content).toBe('Here it is, blue.');
    const sent = gemini.requests.at(-1)!.json as Json;
    expect(sent.contents[1]).toEqual({ role: 'model', parts: [{ text: 'A cat.' }, { inlineData: { mimeType: 'image/png', data: FAKE_PNG_BASE64 } }] });
  });

  it('Responses client → Gemini image model: the image_generation_call it got back is the model turn\'s inlineData', async () => {
    const first = await openai.responses.create({ model: `google/${IMAGE}`, input: 'Draw a cat' });
    const image = first.output.find((item) => item.type === 'image_generation_call') as Json;
    expect(image.result).toBe(FAKE_PNG_BASE64);
    await openai.responses.create({ model: `google/${IMAGE}`, input: [{ role: 'user', content: 'Draw a cat' }, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { role: 'user', content: 'Now make it blue' }] });
    const sent = gemini.requests.at(-1)!.json as Json;
    expect(sent.contents[1].role).toBe('model');
    expect(sent.contents[1].parts).toContainEqual({ inlineData: { mimeType: 'image/png', data: FAKE_PNG_BASE64 } });
  });

  it.each([false, true])('Chat client → Responses upstream: the image goes as an image_generation_call item after the text (stream: %s)', async (stream) => {
    if (stream) {
      for await (const chunk of await openai.chat.completions.create({ model: 'oai/gpt-5', messages: chatHistory(), stream: true })) void chunk;
    } else {
      await openai.chat.completions.create({ model: 'oai/gpt-5', messages: chatHistory() });
    }
    expect(responses.rejections).toEqual([]);
    const input = (responses.requests.at(-1)!.json as Json).input as Json[];
    expect(input.map((item) => item.type ?? item.role)).toEqual(['message', 'message', 'image_generation_call', 'message']);
    expect(input[2]).toMatchObject({ type: 'image_generation_call', status: 'completed', result: FAKE_PNG_BASE64, output_format: 'png' });
    expect(input[2].id).toMatch(/^ig_/);
  });

  it('Chat client → Messages upstream: the assistant turn keeps its text; the image stays out (Anthropic refuses it there)', async () => {
    const done = await openai.chat.completions.create({ model: 'ant/claude-sonnet-4-5', messages: chatHistory() });
    expect(messages.rejections).toEqual([]);
    expect(done.choices[0]!.message.content).toBe('ok');
    const sent = messages.requests.at(-1)!.json as Json;
    expect(sent.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'A cat.' }] });
  });

  it('Gemini client → Messages upstream: a model turn\'s inlineData stays out of the assistant turn', async () => {
    const ai = new GoogleGenAI({ apiKey: gw.key!, httpOptions: { baseUrl: gw.url, timeout: 15_000 } });
    const done = await ai.models.generateContent({
      model: 'ant/claude-sonnet-4-5',
      contents: [
        { role: 'user', parts: [{ text: 'Draw a cat' }] },
        { role: 'model', parts: [{ text: 'A cat.' }, { inlineData: { mimeType: 'image/png', data: FAKE_PNG_BASE64 } }] },
        { role: 'user', parts: [{ text: 'Now make it blue' }] },
      ],
    });
    expect(messages.rejections).toEqual([]);
    expect(done.text).toBe('ok');
    expect((messages.requests.at(-1)!.json as Json).messages[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'A cat.' }] });
  });
});
