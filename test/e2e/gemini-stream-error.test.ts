/**
 * A Google upstream's stream that fails part-way: Google writes the error element bare, without
 * `data: ` and over several lines (what @google/genai's stream reader and the Python SDK's
 * line-by-line reading are written for). The gateway read it as no record at all: a converted
 * client got "The upstream stream ended before it finished." instead of Google's words (an
 * overloaded model, 503), and a Gemini client passed through lost Google's element for the
 * gateway's own.
 */
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const OVERLOADED = 'The model is overloaded. Please try again later.';

describe("a Google upstream's stream that fails part-way", () => {
  let google: FakeUpstream;
  let spaced: FakeUpstream;
  let gw: SpawnedGateway;

  beforeAll(async () => {
    google = await startFakeUpstream(() => ({
      headers: { 'content-type': 'text/event-stream' },
      sse: [
        'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Partial "}]},"index":0}],"modelVersion":"gemini-2.5-flash"}\r\n\r\n',
        `{\n  "error": {\n    "code": 503,\n    "message": "${OVERLOADED}",\n    "status": "UNAVAILABLE"\n  }\n}\n`,
      ],
    }));
    // The same element with a blank line after it (an SSE reader takes it for a record without data).
    spaced = await startFakeUpstream(() => ({
      headers: { 'content-type': 'text/event-stream' },
      sse: [
        'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Partial "}]},"index":0}],"modelVersion":"gemini-2.5-flash"}\r\n\r\n',
        `{\r\n  "error": {\r\n    "code": 503,\r\n    "message": "${OVERLOADED}",\r\n    "status": "UNAVAILABLE"\r\n  }\r\n}\r\n\r\n`,
      ],
    }));
    gw = await spawnGateway({
      config: {
        providers: {
          gg: { plugin: 'google', baseURL: google.url, apiKey: 'k', models: ['gemini-2.5-flash'] },
          spaced: { plugin: 'google', baseURL: spaced.url, apiKey: 'k', models: ['gemini-2.5-flash'] },
        },
      },
    });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    await google?.close();
    await spaced?.close();
  });

  it.each(['gg', 'spaced'])("an OpenAI SDK's converted stream fails with Google's words (%s)", async (provider) => {
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
    let text = '';
    const error = await (async () => {
      for await (const chunk of await openai.chat.completions.create({ model: `${provider}/gemini-2.5-flash`, stream: true, messages: [{ role: 'user', content: 'hi' }] })) text += chunk.choices[0]?.delta?.content ?? '';
    })().catch((e: unknown) => e);
    expect(text).toBe('Partial ');
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toContain(OVERLOADED);
  });

  it.each(['gg', 'spaced'])("a Gemini client passed through gets Google's error element (%s)", async (provider) => {
    const res = await fetch(`${gw.url}/v1beta/models/${provider}/gemini-2.5-flash:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'x-goog-api-key': gw.key!, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    const chunks: string[] = [];
    const decoder = new TextDecoder();
    for await (const chunk of res.body!) chunks.push(decoder.decode(chunk, { stream: true }));
    const body = chunks.join('');
    expect(body).toContain('Partial ');
    expect(body).toContain(`data: {"error":{"code":503,"message":"${OVERLOADED}"`);
    expect(body).not.toContain('before it finished');
    // The bare element in a network chunk of its own, whole JSON by itself (what gemini-cli's @google/genai reads).
    expect(JSON.parse(chunks.at(-1)!)).toMatchObject({ error: { code: 503, message: OVERLOADED, status: 'UNAVAILABLE' } });
  });

  // @google/genai tells a stream's error only from a network chunk that is the bare element alone; read
  // joined to what came before, it failed 'Incomplete JSON segment at the end' without Google's words.
  it.each(['gg', 'spaced'])("@google/genai passed through fails with Google's words and status (%s)", async (provider) => {
    const ai = new GoogleGenAI({ apiKey: gw.key!, httpOptions: { baseUrl: gw.url, timeout: 15_000 } });
    let text = '';
    const error = await (async () => {
      for await (const chunk of await ai.models.generateContentStream({ model: `${provider}/gemini-2.5-flash`, contents: 'hi' })) text += chunk.text ?? '';
    })().catch((e: unknown) => e);
    expect(text).toBe('Partial ');
    expect(String(error)).toContain(OVERLOADED);
    expect((error as { status?: number }).status).toBe(503);
  });
});
