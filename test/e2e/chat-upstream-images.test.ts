import path from 'node:path';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_PNG_BASE64 } from '../helpers/fake-gemini.ts';
import { chatSse, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { createFundedKey } from '../helpers/funded-key.ts';
import { spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

type Json = Record<string, any>;

/**
 * An OpenRouter-style Chat upstream whose image model answers with `message.images` (`delta.images`
 * in a stream): the images reach Responses and Gemini clients too.
 */
describe('images from a Chat upstream (OpenRouter shape), converted for Responses and Gemini clients', () => {
  const url = `data:image/png;base64,${FAKE_PNG_BASE64}`;
  const head = { id: 'gen-1', object: 'chat.completion.chunk', created: 1_800_000_000, model: 'google/gemini-2.5-flash-image' };
  let upstream: FakeUpstream;
  let gw: SpawnedGateway;
  let apiKey: string;

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) => {
      const body = request.json as Json;
      if (!body.stream) {
        return {
          json: {
            ...head,
            object: 'chat.completion',
            choices: [{ index: 0, message: { role: 'assistant', content: 'A cat.', images: [{ type: 'image_url', image_url: { url }, index: 0 }] }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 5, completion_tokens: 1300, total_tokens: 1305 },
          },
        };
      }
      return {
        sse: chatSse([
          { ...head, choices: [{ index: 0, delta: { role: 'assistant', content: 'A cat.' }, finish_reason: null }] },
          { ...head, choices: [{ index: 0, delta: { images: [{ type: 'image_url', image_url: { url }, index: 0 }] }, finish_reason: null }] },
          { ...head, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
          { ...head, choices: [], usage: { prompt_tokens: 5, completion_tokens: 1300, total_tokens: 1305 } },
        ]),
      };
    });
    const dir = tempDir();
    const configFile = writeConfig(dir, {
      providers: { or: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'sk-or', models: [
          // The catalog's facts for OpenRouter's google/gemini-2.5-flash-image: it answers in text and images.
          { id: 'gemini-image', pricing: { input: 0.3, output: 2.5 }, modalities: { input: ['text', 'image'], output: ['text', 'image'] } },
          { id: 'text-model', pricing: { input: 0.3, output: 2.5 } },
        ] } },
    });
    const dataDir = path.join(dir, 'data');
    apiKey = await createFundedKey(configFile, dataDir, 'or-images@example.com', 100_000);
    gw = await spawnGateway({ configFile, dataDir });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });

  it('a Responses client gets an image_generation_call item, whole and streamed', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey, maxRetries: 0 });
    const done = await client.responses.create({ model: 'or/gemini-image', input: 'Draw a cat' });
    expect(done.output.map((i) => i.type)).toEqual(['message', 'image_generation_call']);
    expect((done.output[1] as Json).result).toBe(FAKE_PNG_BASE64);
    const stream = await client.responses.create({ model: 'or/gemini-image', input: 'Draw a cat', stream: true });
    let image: Json | undefined;
    for await (const event of stream) if (event.type === 'response.output_item.done' && event.item.type === 'image_generation_call') image = event.item as Json;
    expect(image?.result).toBe(FAKE_PNG_BASE64);
  });

  it('a Gemini client (@google/genai) gets the image as an inlineData part, whole and streamed', async () => {
    const ai = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: gw.url, timeout: 15_000 } });
    const done = await ai.models.generateContent({ model: 'or/gemini-image', contents: 'Draw a cat' });
    const parts = done.candidates?.[0].content?.parts ?? [];
    expect(parts).toEqual([{ text: 'A cat.' }, { inlineData: { mimeType: 'image/png', data: FAKE_PNG_BASE64 } }]);
    const images: Json[] = [];
    for await (const chunk of await ai.models.generateContentStream({ model: 'or/gemini-image', contents: 'Draw a cat' })) {
      for (const part of chunk.candidates?.[0].content?.parts ?? []) if (part.inlineData) images.push(part.inlineData as Json);
    }
    expect(images).toEqual([{ mimeType: 'image/png', data: FAKE_PNG_BASE64 }]);
  });

  it("a Gemini client's responseModalities IMAGE asks the Chat upstream with modalities (OpenRouter's way) for a model that makes images; a text model is Google's 400", async () => {
    const ai = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: gw.url, timeout: 15_000 } });
    const config = { responseModalities: ['TEXT', 'IMAGE'] };
    const done = await ai.models.generateContent({ model: 'or/gemini-image', contents: 'Draw a cat', config });
    // Before: the upstream was not asked for images (no `modalities`), so OpenRouter's model would answer in text.
    expect((upstream.requests.at(-1)!.json as Json).modalities).toEqual(['text', 'image']);
    expect(done.candidates?.[0].content?.parts).toEqual([{ text: 'A cat.' }, { inlineData: { mimeType: 'image/png', data: FAKE_PNG_BASE64 } }]);
    for await (const chunk of await ai.models.generateContentStream({ model: 'or/gemini-image', contents: 'Draw a cat', config: { responseModalities: ['IMAGE'] } })) void chunk;
    expect((upstream.requests.at(-1)!.json as Json).modalities).toEqual(['image']);
    const before = upstream.requests.length;
    const error = await ai.models.generateContent({ model: 'or/text-model', contents: 'Draw a cat', config }).catch((thrown: unknown) => thrown);
    expect([(error as { status?: number }).status, JSON.parse((error as Error).message).error.status]).toEqual([400, 'INVALID_ARGUMENT']);
    expect(upstream.requests.length).toBe(before);
  });

  it('a Chat client on the same route gets message.images as the upstream wrote them (passthrough)', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey, maxRetries: 0 });
    const done = await client.chat.completions.create({ model: 'or/gemini-image', messages: [{ role: 'user', content: 'Draw a cat' }] });
    expect((done.choices[0].message as unknown as Json).images).toEqual([{ type: 'image_url', image_url: { url }, index: 0 }]);
  });
});
