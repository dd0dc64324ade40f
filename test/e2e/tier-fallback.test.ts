/**
 * A model's `minTier` holds through a fallback chain, as a key's model scope does
 * (docs/accounts-and-limits.md): a free account asking for a model whose configured fallback
 * needs the pro tier is refused up front (403 model_tier_restricted naming the fallback), never
 * served by the pro model when the first one fails. Before, the tier was read of the requested
 * id's providers only: the failing first model handed the free account the pro one. Real CLI,
 * mock providers (the first fails every call).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

describe("a model's minTier through a fallback chain (bin/gateway, mock providers)", () => {
  let gw: SpawnedGateway;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    const dir = tempDir();
    const dataDir = path.join(dir, 'data');
    const configFile = writeConfig(dir, {
      providers: {
        cheap: { plugin: 'mock', failFirst: 1000, models: [{ id: 'echo' }] },
        premium: { plugin: 'mock', models: [{ id: 'gold', minTier: 'pro' }] },
      },
      routing: { retry: { attempts: 1 }, models: { 'cheap/echo': { fallbacks: ['premium/gold'] } } },
      billing: { enforce: false },
    });
    const cli = (args: string[]) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
    for (const tier of ['free', 'pro']) {
      expect((await cli(['accounts', 'create', '--email', `${tier}@example.test`, '--tier', tier])).exitCode).toBe(0);
      keys[tier] = (JSON.parse(String((await cli(['keys', 'create', '--account', `${tier}@example.test`, '--json'])).stdout)) as { key: string }).key;
    }
    gw = await spawnGateway({ configFile, dataDir });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
  });

  const ask = (key: string, model: string) =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    });

  it('refuses a free account the model whose fallback needs pro, naming the fallback; the pro model itself too', async () => {
    const direct = await ask(keys.free, 'premium/gold');
    expect(direct.status).toBe(403);
    expect(((await direct.json()) as { error: { message: string } }).error.message).toBe("The model 'premium/gold' needs the pro tier or higher; this account is on free.");
    const res = await ask(keys.free, 'cheap/echo');
    const body = (await res.json()) as { error: { code: string; message: string; details: Record<string, unknown> } };
    expect(res.status, JSON.stringify(body)).toBe(403);
    expect(res.headers.get('x-routing-resolved-model')).toBeNull();
    expect(body.error.code).toBe('model_tier_restricted');
    expect(body.error.message).toContain('premium/gold');
    expect(body.error.details).toMatchObject({ model: 'cheap/echo', required_tier: 'pro', tier: 'free' });
  });

  it('a pro account is served by the fallback', async () => {
    const res = await ask(keys.pro, 'cheap/echo');
    expect(res.status, await res.clone().text()).toBe(200);
    expect(res.headers.get('x-routing-resolved-model')).toBe('premium/gold');
  });
});
