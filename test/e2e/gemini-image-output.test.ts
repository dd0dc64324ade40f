import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_PNG_BASE64, startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { createFundedKey } from '../helpers/funded-key.ts';
import { spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

type Json = Record<string, any>;

/** Gemini's image models ("Nano Banana") answering OpenAI and Anthropic clients: the images they make reach the client. */
describe('images a Gemini image model makes, converted for other clients', () => {
  const FLASH = 'gemini-2.5-flash-image';
  const PRO = 'gemini-3-pro-image-preview';
  const TEXT_ONLY = 'gemini-2.5-flash';
  let gemini: GeminiFake;
  let gw: SpawnedGateway;
  let apiKey: string;
  const openai = () => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey, maxRetries: 0, timeout: 15_000 });
  const png = `data:image/png;base64,${FAKE_PNG_BASE64}`;
  const sent = () => gemini.requests.at(-1)!.json as Json;

  beforeAll(async () => {
    const dir = tempDir();
    gemini = await startGeminiFake({
      models: { [FLASH]: { thinking: false, gemini3: false, image: true }, [PRO]: { thinking: true, gemini3: true, image: true }, [TEXT_ONLY]: { thinking: true, gemini3: false } },
      apiKey: 'goog-upstream-key',
      finalText: 'Here is your picture.',
    });
    const pricing = { input: 0.3, output: 30 };
    const configFile = writeConfig(dir, {
      providers: {
        google: { plugin: 'google', apiKey: 'goog-upstream-key', baseURL: gemini.url, models: [{ id: FLASH, pricing }, { id: PRO, pricing }, { id: TEXT_ONLY, pricing }] },
      },
      routing: { retry: { attempts: 1 } },
    });
    const dataDir = path.join(dir, 'data');
    apiKey = await createFundedKey(configFile, dataDir, 'images@example.com', 1_000_000);
    gw = await spawnGateway({ configFile, dataDir });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await gemini?.close();
  });
  beforeEach(() => {
    gemini.requests.length = 0;
  });

  it("Chat: modalities ['image', 'text'] asks Google for images; they come back in message.images (OpenRouter's shape), the text in content", async () => {
    const done = await openai().chat.completions.create({ model: `google/${FLASH}`, messages: [{ role: 'user', content: 'Draw a cat' }], modalities: ['image', 'text'] } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(sent().generationConfig.responseModalities).toEqual(['IMAGE', 'TEXT']);
    const message = done.choices[0].message as unknown as Json;
    expect(message.content).toBe('Here is your picture.');
    expect(message.images).toEqual([{ type: 'image_url', image_url: { url: png }, index: 0 }]);
  });

  it('Chat stream: the image arrives as one delta.images chunk between the text, a draft image of a thinking model is left out', async () => {
    const stream = await openai().chat.completions.create({
      model: `google/${PRO}`,
      messages: [{ role: 'user', content: 'Draw a cat' }],
      modalities: ['image', 'text'],
      reasoning_effort: 'low',
      stream: true,
    } as unknown as OpenAI.ChatCompletionCreateParamsStreaming);
    let text = '';
    const images: Json[] = [];
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as Json | undefined;
      if (typeof delta?.content === 'string') text += delta.content;
      for (const image of delta?.images ?? []) images.push(image);
    }
    expect(text).toBe('Here is your picture.');
    // Gemini 3's image model signs its image: the signature rides on the entry, carried (gwpm:…).
    expect(images).toEqual([{ type: 'image_url', image_url: { url: png }, index: 0, signature: expect.stringMatching(/^gwpm:/) }]);
  });

  it('Chat: without modalities the image model still answers with its image (Google\'s default for it); a text model asked for images gets Google\'s 400', async () => {
    const done = await openai().chat.completions.create({ model: `google/${FLASH}`, messages: [{ role: 'user', content: 'Draw a dog' }] });
    expect(sent().generationConfig?.responseModalities).toBeUndefined();
    expect((done.choices[0].message as unknown as Json).images).toHaveLength(1);
    const error = await openai()
      .chat.completions.create({ model: `google/${TEXT_ONLY}`, messages: [{ role: 'user', content: 'Draw' }], modalities: ['image', 'text'] } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming)
      .then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('response modalities');
  });

  it('Responses: the image is an image_generation_call item, whole and streamed', async () => {
    const done = await openai().responses.create({ model: `google/${FLASH}`, input: 'Draw a cat' });
    const call = done.output.find((item) => item.type === 'image_generation_call') as Json | undefined;
    expect(call).toMatchObject({ type: 'image_generation_call', status: 'completed', result: FAKE_PNG_BASE64 });
    expect(call!.id).toMatch(/^ig_/);
    expect(done.output_text).toBe('Here is your picture.');

    const stream = await openai().responses.create({ model: `google/${FLASH}`, input: 'Draw a cat', stream: true });
    const events: Json[] = [];
    for await (const event of stream) events.push(event as unknown as Json);
    const types = events.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['response.image_generation_call.in_progress', 'response.image_generation_call.completed']));
    const itemDone = events.find((e) => e.type === 'response.output_item.done' && e.item.type === 'image_generation_call');
    expect(itemDone?.item.result).toBe(FAKE_PNG_BASE64);
    const completed = events.at(-1)!;
    expect(completed.type).toBe('response.completed');
    expect(completed.response.output.map((i: Json) => i.type)).toEqual(['message', 'image_generation_call', 'message']);
  });

  /** The thought signature the model turn's image carried up on the second turn (one the fake issued, or undefined). */
  const imageSignature = (): unknown => {
    const turn = (sent().contents as Json[]).find((c) => c.role === 'model');
    const image = (turn?.parts as Json[] | undefined)?.find((p) => p.inlineData !== undefined);
    expect(image?.inlineData).toEqual({ mimeType: 'image/png', data: FAKE_PNG_BASE64 });
    return image?.thoughtSignature;
  };

  it.each([false, true])("a Gemini 3 image model's signature on its image goes back with it on the next turn: Chat (stream: %s)", async (stream) => {
    const ask = { model: `google/${PRO}`, messages: [{ role: 'user', content: 'Draw a cat' }], modalities: ['image', 'text'] };
    let message: Json;
    if (stream) {
      message = { role: 'assistant', content: '', images: [] };
      for await (const chunk of await openai().chat.completions.create({ ...ask, stream: true } as unknown as OpenAI.ChatCompletionCreateParamsStreaming)) {
        const delta = chunk.choices[0]?.delta as Json | undefined;
        if (typeof delta?.content === 'string') message.content += delta.content;
        message.images.push(...(delta?.images ?? []));
      }
    } else {
      message = (await openai().chat.completions.create(ask as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming)).choices[0].message as unknown as Json;
    }
    const issued = gemini.issued.size;
    const next = await openai().chat.completions.create({ ...ask, messages: [...ask.messages, message, { role: 'user', content: 'Now make it blue' }] } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(next.choices[0].message.content).toBe('Here is your picture.');
    // Before: the image went back unsigned, and Gemini 3 Pro Image lost the context of its own picture.
    const signature = imageSignature();
    expect(typeof signature).toBe('string');
    expect(gemini.issued.has(signature as string)).toBe(true);
    expect(gemini.issued.size).toBeGreaterThan(issued);
  });

  it.each([false, true])("a Gemini 3 image model's signature on its image goes back with it on the next turn: Responses (stream: %s)", async (stream) => {
    let output: Json[];
    if (stream) {
      const events: Json[] = [];
      for await (const event of await openai().responses.create({ model: `google/${PRO}`, input: 'Draw a cat', stream: true })) events.push(event as unknown as Json);
      output = events.at(-1)!.response.output;
    } else {
      output = (await openai().responses.create({ model: `google/${PRO}`, input: 'Draw a cat' })).output as unknown as Json[];
    }
    const image = output.find((item) => item.type === 'image_generation_call')!;
    expect(image.id).toMatch(/^ig_/);
    await openai().responses.create({ model: `google/${PRO}`, input: [{ role: 'user', content: 'Draw a cat' }, ...(output as OpenAI.Responses.ResponseInputItem[]), { role: 'user', content: 'Now make it blue' }] });
    const signature = imageSignature();
    expect(typeof signature).toBe('string');
    expect(gemini.issued.has(signature as string)).toBe(true);
  });

  it('Messages: Anthropic has no image output; the text comes through whole', async () => {
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey, maxRetries: 0, timeout: 15_000 });
    const done = await anthropic.messages.create({ model: `google/${FLASH}`, max_tokens: 256, messages: [{ role: 'user', content: 'Draw a cat' }] });
    expect(new Set(done.content.map((b) => b.type))).toEqual(new Set(['text']));
    expect(done.content.map((b) => (b.type === 'text' ? b.text : '')).join('')).toBe('Here is your picture.');
  });
});
