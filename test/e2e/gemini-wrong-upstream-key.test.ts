/**
 * An operator's Google API key that Google refuses: Google answers 400 INVALID_ARGUMENT with an
 * ErrorInfo whose reason is API_KEY_INVALID ("API key not valid"). That is the gateway's own
 * credential failing, not the client's request: a 502 provider_error that never echoes what Google
 * said about the key, and (a retryable code) the next candidate of a fallback chain serves. Before,
 * it was read by its status name as the client's 400 bad_request: the client was told its API key
 * was not valid, and no fallback ran. Real CLI, strict Gemini fake.
 */
import { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const MODEL = 'gemini-2.5-flash';

describe("Google refusing the gateway's API key (API_KEY_INVALID) is the provider's failure (bin/gateway, Gemini fake)", () => {
  let gemini: GeminiFake;
  let gw: SpawnedGateway;

  beforeAll(async () => {
    gemini = await startGeminiFake({ models: { [MODEL]: { thinking: false, gemini3: false } }, apiKey: 'goog-right-key', finalText: 'from google' });
    gw = await spawnGateway({
      config: {
        providers: {
          google: { plugin: 'google', apiKey: 'goog-wrong-key', baseURL: gemini.url, models: [MODEL] },
          backup: { plugin: 'mock', models: [{ id: 'echo' }] },
        },
        routing: { retry: { attempts: 1 }, models: { [`google/${MODEL}`]: { fallbacks: ['backup/echo'] } } },
        billing: { enforce: false },
      },
    });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await gemini?.close();
  });

  const chat = (model: string) =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    });

  it('answers 502 provider_error naming the gateway\'s credentials, never "API key not valid"', async () => {
    const res = await chat(MODEL);
    const text = await res.text();
    expect(res.status, text).toBe(502);
    const body = JSON.parse(text) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('provider_error');
    expect(body.error.message).toContain("rejected the gateway's credentials");
    expect(text).not.toContain('API key not valid');
    expect(text).not.toContain('API_KEY_INVALID');
    expect(gemini.requests.length).toBeGreaterThan(0);
  });

  it('a Gemini client is not told its own key is invalid', async () => {
    const ai = new GoogleGenAI({ apiKey: gw.key, httpOptions: { baseUrl: gw.url } });
    const error = await ai.models.generateContent({ model: MODEL, contents: 'hi' }).then(
      () => undefined,
      (e: unknown) => e as Error & { status?: number },
    );
    expect(error).toBeDefined();
    expect(error!.message).not.toContain('API key not valid');
    expect(error!.message).toContain('502');
  });

  it('the fallback chain goes on to the next candidate', async () => {
    const res = await chat(`google/${MODEL}`);
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(res.headers.get('x-routing-resolved-model')).toBe('backup/echo');
  });
});
