/**
 * How long a throttled client waits. The openai and Anthropic SDKs read `retry-after-ms` first,
 * then `Retry-After` (seconds). The gateway answered only `Retry-After`, in whole seconds rounded
 * up, so an upstream's "retry in 250 ms" made every SDK client wait a full second; the gateway's
 * own rate limit did the same. Now the answer carries `retry-after-ms` beside it.
 */
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createFundedKey } from '../helpers/funded-key.ts';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { chatCompletion } from '../helpers/routing-wire.ts';
import { spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

describe('retry-after-ms: a throttled SDK client waits what the upstream said, to the millisecond', () => {
  let upstream: FakeUpstream;
  let gw: SpawnedGateway;
  let apiKey: string;
  /** The status and wait headers of every answer a client got from the gateway. */
  const seen: Array<{ status: number; ms: string | null; seconds: string | null }> = [];
  const recording: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    seen.push({ status: res.status, ms: res.headers.get('retry-after-ms'), seconds: res.headers.get('retry-after') });
    return res;
  };

  beforeAll(async () => {
    // First call of each pair: OpenAI's 429 naming a 250 ms wait; then the answer.
    upstream = await startFakeUpstream((_request, i) =>
      i % 2 === 0
        ? { status: 429, headers: { 'retry-after-ms': '250', 'retry-after': '1' }, json: { error: { message: 'Rate limit reached for requests', type: 'requests', param: null, code: 'rate_limit_exceeded' } } }
        : { json: chatCompletion('Hello') },
    );
    const dir = tempDir();
    const configFile = writeConfig(dir, {
      providers: { oa: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'sk-up', models: [{ id: 'gpt-4o-mini', pricing: { input: 0.15, output: 0.6 } }] } },
      // No retry inside the gateway: the client's SDK retries.
      routing: { retry: { attempts: 1 } },
    });
    const dataDir = path.join(dir, 'data');
    apiKey = await createFundedKey(configFile, dataDir, 'retry-ms@example.com', 100_000);
    gw = await spawnGateway({ configFile, dataDir });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });
  beforeEach(() => {
    seen.length = 0;
    upstream.requests.length = 0;
  });

  it('the openai SDK gets retry-after-ms: 250 beside Retry-After: 1, and its retry succeeds', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey, maxRetries: 1, fetch: recording });
    const done = await client.chat.completions.create({ model: 'oa/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(done.choices[0]!.message.content).toBe('Hello');
    expect(seen).toEqual([{ status: 429, ms: '250', seconds: '1' }, { status: 200, ms: null, seconds: null }]);
  });

  it('the Anthropic SDK (a converted answer) gets the same', async () => {
    const client = new Anthropic({ baseURL: gw.url, apiKey, maxRetries: 1, fetch: recording });
    const done = await client.messages.create({ model: 'oa/gpt-4o-mini', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    expect(done.content[0]).toMatchObject({ type: 'text', text: 'Hello' });
    expect(seen).toEqual([{ status: 429, ms: '250', seconds: '1' }, { status: 200, ms: null, seconds: null }]);
  });

  it("a Gemini client (@google/genai, gemini-cli's SDK) gets the wait in its RetryInfo, to the millisecond", async () => {
    const ai = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: gw.url, timeout: 15_000 } });
    const error = await ai.models.generateContent({ model: 'oa/gpt-4o-mini', contents: 'hi' }).then(() => undefined, (e: Error) => e);
    const body = JSON.parse(error!.message.slice(error!.message.indexOf('{'))) as { error: { code: number; details: Array<Record<string, unknown>> } };
    expect(body.error.code).toBe(429);
    expect(body.error.details).toContainEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '0.25s' });
  });
});
