/**
 * OpenAI's hosted image tool (`image_generation`) on a Responses upstream, for clients of the
 * other formats. The image comes back as an `image_generation_call` item (base64 `result`); a
 * Chat client gets it as `message.images` / `delta.images` (OpenRouter's shape, as from a Gemini
 * image model), a Gemini client as an `inlineData` part. A Chat client's `modalities:
 * ['image', 'text']` (a Gemini client's `responseModalities`) is what puts the tool on the
 * request. Before, the upstream never got the tool, and an image it made was dropped.
 */
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_PNG_BASE64 } from '../helpers/fake-gemini.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

type Json = Record<string, any>;

describe("OpenAI's image tool on a Responses upstream, for Chat and Gemini clients", () => {
  let responses: StrictFake;
  let gw: SpawnedGateway;
  let openai: OpenAI;
  const png = `data:image/png;base64,${FAKE_PNG_BASE64}`;
  const ask = { model: 'or/gpt-5', messages: [{ role: 'user', content: 'Draw a cat' }], modalities: ['image', 'text'] };

  beforeAll(async () => {
    responses = await startStrictFake({ format: 'responses', models: { 'gpt-5': { maxOutput: 128000, reasoning: true } }, finalText: 'Here is your cat.' });
    gw = await spawnGateway({ config: { providers: { or: { plugin: 'openai', baseURL: `${responses.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-5'] } } } });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  });
  afterAll(async () => {
    await gw?.stop();
    await responses?.close();
  });

  const sentTools = () => (responses.requests.at(-1)!.json as Json).tools;

  it("Chat: modalities ['image', 'text'] asks for the image tool; the image comes back in message.images", async () => {
    const done = await openai.chat.completions.create(ask as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(responses.rejections).toEqual([]);
    expect(sentTools()).toEqual([{ type: 'image_generation' }]);
    const message = done.choices[0]!.message as unknown as Json;
    expect(message.content).toBe('Here is your cat.');
    expect(message.images).toEqual([{ type: 'image_url', image_url: { url: png }, index: 0 }]);
  });

  it('Chat stream: the image arrives as one delta.images chunk', async () => {
    let text = '';
    const images: Json[] = [];
    for await (const chunk of await openai.chat.completions.create({ ...ask, stream: true } as unknown as OpenAI.ChatCompletionCreateParamsStreaming)) {
      const delta = chunk.choices[0]?.delta as Json | undefined;
      text += delta?.content ?? '';
      images.push(...(delta?.images ?? []));
    }
    expect(responses.rejections).toEqual([]);
    expect(text).toBe('Here is your cat.');
    expect(images).toEqual([{ type: 'image_url', image_url: { url: png }, index: 0 }]);
  });

  it.each([false, true])("Gemini: responseModalities ['TEXT', 'IMAGE'] asks for the image tool; the image comes back as inlineData (stream: %s)", async (stream) => {
    const ai = new GoogleGenAI({ apiKey: gw.key, httpOptions: { baseUrl: gw.url } });
    const params = { model: 'or/gpt-5', contents: 'Draw a cat', config: { responseModalities: ['TEXT', 'IMAGE'] } };
    const parts: Json[] = [];
    if (stream) {
      for await (const chunk of await ai.models.generateContentStream(params)) parts.push(...((chunk.candidates?.[0]?.content?.parts ?? []) as Json[]));
    } else {
      parts.push(...(((await ai.models.generateContent(params)).candidates?.[0]?.content?.parts ?? []) as Json[]));
    }
    expect(responses.rejections).toEqual([]);
    expect(sentTools()).toEqual([{ type: 'image_generation' }]);
    expect(parts.filter((part) => part.inlineData).map((part) => part.inlineData)).toEqual([{ mimeType: 'image/png', data: FAKE_PNG_BASE64 }]);
    expect(parts.map((part) => part.text ?? '').join('')).toBe('Here is your cat.');
  });
});
