/**
 * A Google upstream's stream that fails part-way: Google writes the error element bare, without
 * `data: ` and over several lines (what @google/genai's stream reader and the Python SDK's
 * line-by-line reading are written for). The gateway read it as no record at all: a converted
 * client got "The upstream stream ended before it finished." instead of Google's words (an
 * overloaded model, 503), and a Gemini client passed through lost Google's element for the
 * gateway's own.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const OVERLOADED = 'The model is overloaded. Please try again later.';

describe("a Google upstream's stream that fails part-way", () => {
  let google: FakeUpstream;
  let gw: SpawnedGateway;

  beforeAll(async () => {
    google = await startFakeUpstream(() => ({
      headers: { 'content-type': 'text/event-stream' },
      sse: [
        'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Partial "}]},"index":0}],"modelVersion":"gemini-2.5-flash"}\r\n\r\n',
        `{\n  "error": {\n    "code": 503,\n    "message": "${OVERLOADED}",\n    "status": "UNAVAILABLE"\n  }\n}\n`,
      ],
    }));
    gw = await spawnGateway({ config: { providers: { gg: { plugin: 'google', baseURL: google.url, apiKey: 'k', models: ['gemini-2.5-flash'] } } } });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    await google?.close();
  });

  it("an OpenAI SDK's converted stream fails with Google's words", async () => {
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
    let text = '';
    const error = await (async () => {
      for await (const chunk of await openai.chat.completions.create({ model: 'gg/gemini-2.5-flash', stream: true, messages: [{ role: 'user', content: 'hi' }] })) text += chunk.choices[0]?.delta?.content ?? '';
    })().catch((e: unknown) => e);
    expect(text).toBe('Partial ');
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toContain(OVERLOADED);
  });

  it("a Gemini client passed through gets Google's error element", async () => {
    const res = await fetch(`${gw.url}/v1beta/models/gg/gemini-2.5-flash:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'x-goog-api-key': gw.key!, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    const body = await res.text();
    expect(body).toContain('Partial ');
    expect(body).toContain(OVERLOADED);
    expect(body).not.toContain('before it finished');
  });
});
