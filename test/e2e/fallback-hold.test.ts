/**
 * The hold rule (docs/billing.md) is the worst case of every model a request may be served by,
 * its configured fallback chain included, as the key's model scope and the tier cover it: an
 * account whose balance covers the first model but not a dearer fallback is refused up front
 * (402), never served by the fallback and charged only what its balance had left; and with
 * `billing.unpriced: 'reject'` an unpriced fallback refuses the request rather than serving it free.
 * Before, the hold was priced by the requested id's providers only. Real CLI, mock providers
 * (the first fails every call).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLedger } from '../../src/store/index.ts';
import { PER_TOKEN } from '../helpers/credit-holds.ts';
import { startFakeMediaUpstream, type FakeMediaUpstream } from '../media/fake-media-upstream.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

describe('holds cover the fallback chain (bin/gateway, mock providers)', () => {
  let gw: SpawnedGateway;
  let failing: FakeMediaUpstream;
  const keys: Record<string, string> = {};
  let dataDir: string;

  beforeAll(async () => {
    // An image upstream that fails every call, and a dearer image model as its fallback.
    failing = await startFakeMediaUpstream();
    failing.override = () => ({ status: 500, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ error: { message: 'down', type: 'server_error' } }) });
    const dir = tempDir();
    dataDir = path.join(dir, 'data');
    const configFile = writeConfig(dir, {
      providers: {
        cheap: { plugin: 'mock', failFirst: 1000, models: [{ id: 'echo', pricing: { input: 1, output: 1 } }, { id: 'other', pricing: { input: 1, output: 1 } }] },
        premium: { plugin: 'mock', models: [{ id: 'gold', pricing: PER_TOKEN }] },
        free: { plugin: 'mock', models: [{ id: 'loose' }] },
        down: { plugin: 'openai', baseURL: `${failing.url}/v1`, apiKey: 'x', models: [{ id: 'dall-e-2', type: 'image_generation', sizes: ['2x2'], pricing: { image: 0.001 } }] },
        artist: { plugin: 'mock', models: [{ id: 'image', pricing: { image: 1 } }] },
      },
      routing: {
        retry: { attempts: 1 },
        models: { 'cheap/echo': { fallbacks: ['premium/gold'] }, 'cheap/other': { fallbacks: ['free/loose'] }, 'down/dall-e-2': { fallbacks: ['artist/image'] } },
      },
      billing: { unpriced: 'reject' },
    });
    const cli = (args: string[]) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
    for (const [name, credits] of [['low', 5], ['rich', 100_000]] as const) {
      expect((await cli(['accounts', 'create', '--email', `${name}@example.test`, '--tier', 'enterprise', '--credits', String(credits)])).exitCode).toBe(0);
      keys[name] = (JSON.parse(String((await cli(['keys', 'create', '--account', `${name}@example.test`, '--json'])).stdout)) as { key: string }).key;
    }
    gw = await spawnGateway({ configFile, dataDir });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await failing?.close();
  });

  const ask = (model: string, key = keys.low) =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, max_tokens: 16, messages: [{ role: 'user', content: 'hello there, my dear friend, how are you today?' }] }),
    });

  it('a balance that covers the first model but not its dearer fallback is a 402 up front; nothing is charged', async () => {
    const res = await ask('cheap/echo');
    const text = await res.text();
    expect(res.status, text).toBe(402);
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'insufficient_balance' } });
    await gw.stop();
    expect(readLedger(path.join(dataDir, 'usage.jsonl')).filter((line) => line.charged_credits > 0)).toEqual([]);
    gw = await spawnGateway({ configFile: gw.configFile, dataDir });
  });

  it("an unpriced fallback under billing.unpriced: 'reject' refuses the request (403 model_unpriced)", async () => {
    const res = await ask('cheap/other', keys.rich);
    const text = await res.text();
    expect(res.status, text).toBe(403);
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'model_unpriced' } });
  });

  it('an image route holds its fallback\'s price too: 1 credit held for a 1,000-credit image is a 402 up front', async () => {
    const res = await fetch(`${gw.url}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.low}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'down/dall-e-2', prompt: 'a white square', size: '2x2', n: 1 }),
    });
    const text = await res.text();
    expect(res.status, text).toBe(402);
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'insufficient_balance' } });
    expect(failing.requests).toHaveLength(0);
  });
});
