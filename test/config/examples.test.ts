import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, type GatewayConfig } from '../../src/config/index.ts';
import { ProviderRegistry } from '../../src/providers/index.ts';
import { createLogger } from '../../src/util/logger.ts';
import { REPO_ROOT } from '../helpers/spawn-gateway.ts';

const DIR = path.join(REPO_ROOT, 'config');
const FILES = fs.readdirSync(DIR).filter((name) => name.endsWith('.config.ts'));

/** Loads an example as `gateway serve --config config/<name>` would (no keys in the environment). */
async function load(name: string): Promise<GatewayConfig> {
  const { config, filepath } = await loadConfig({ explicitPath: path.join(DIR, name), cwd: REPO_ROOT });
  expect(filepath).toBe(path.join(DIR, name));
  return config;
}

describe('config/ examples', () => {
  it('has the kinds the README promises, each listed there', () => {
    expect(FILES.sort()).toEqual(['azure.config.ts', 'bedrock.config.ts', 'google-ai-studio.config.ts', 'google-vertex.config.ts', 'openai-anthropic.config.ts', 'openrouter.config.ts', 'redis-limits.config.ts', 'several-instances.config.ts']);
    const readme = fs.readFileSync(path.join(DIR, 'README.md'), 'utf8');
    for (const name of FILES) expect(readme).toContain(`\`${name}\``);
  });

  it.each(FILES)('%s loads, validates and sets up every provider it names', async (name) => {
    const config = await load(name);
    expect(Object.keys(config.providers).length).toBeGreaterThan(0);
    const registry = await ProviderRegistry.create(config, { configDir: DIR, log: createLogger('silent') });
    try {
      expect([...registry.providers.keys()].sort()).toEqual(Object.keys(config.providers).sort());
      expect(registry.models.length).toBeGreaterThan(0);
      // Every fallback a chain names resolves to a served model.
      for (const [requested, rule] of Object.entries(config.routing.models)) {
        expect(() => registry.resolve(requested), requested).not.toThrow();
        for (const fallback of rule.fallbacks ?? []) expect(() => registry.resolve(fallback), fallback).not.toThrow();
      }
    } finally {
      await registry.close();
    }
  });

  it('OpenAI + Anthropic: both providers, Claude falls back to GPT', async () => {
    const config = await load('openai-anthropic.config.ts');
    expect(config.providers.openai).toMatchObject({ plugin: 'openai', baseURL: 'https://api.openai.com/v1' });
    expect(config.providers.anthropic).toMatchObject({ plugin: 'anthropic' });
    expect(config.routing.models['claude-sonnet-4-5'].fallbacks).toEqual(['openai/gpt-4.1']);
  });

  it('Azure: model ids served under their deployments, an API key on v1 and Entra on the dated path', async () => {
    const config = await load('azure.config.ts');
    const registry = await ProviderRegistry.create(config, { configDir: DIR, log: createLogger('silent') });
    try {
      expect(registry.get('azure/gpt-4.1')).toMatchObject({ upstreamId: 'gpt-41-prod', spec: { pricing: { input: 2, output: 8 } } });
      expect(registry.get('azure-entra/gpt-4.1')?.upstreamId).toBe('gpt-41-prod');
      expect(config.providers['azure-entra']).toMatchObject({ apiPath: 'deployments', apiVersion: '2025-04-01-preview' });
    } finally {
      await registry.close();
    }
  });

  it('the aggregator accepts any pinned model and sends its attribution headers', async () => {
    const config = await load('openrouter.config.ts');
    const registry = await ProviderRegistry.create(config, { configDir: DIR, log: createLogger('silent') });
    try {
      expect(registry.resolve('openrouter/mistralai/mistral-large')).toMatchObject({ pinned: true, candidates: [{ upstreamId: 'mistralai/mistral-large' }] });
      // Plain ids get OpenRouter's prices and context from the bundled catalog (chosen by the base URL).
      expect(registry.get('openrouter/openai/gpt-4.1-mini')?.spec).toMatchObject({ contextWindow: 1_047_576, pricing: { input: 0.4, output: 1.6 } });
      expect(config.providers.openrouter.headers).toHaveProperty('X-Title');
      expect(config.routing.strategy).toBe('price');
    } finally {
      await registry.close();
    }
  });

  it('Vertex AI and AI Studio: Claude by its Vertex id in the Messages format, Gemini in the gemini format, priced from the catalog', async () => {
    const config = await load('google-vertex.config.ts');
    expect(config.providers.vertex).toMatchObject({ plugin: 'google', api: 'vertex', location: 'us-east5' });
    const registry = await ProviderRegistry.create(config, { configDir: DIR, log: createLogger('silent') });
    try {
      expect(registry.get('vertex/claude-sonnet-4-5@20250929')).toMatchObject({ formats: ['messages'], spec: { pricing: { input: 3, output: 15, cacheRead: 0.3 } } });
      expect(registry.get('vertex/gemini-2.5-pro')).toMatchObject({ formats: ['gemini'], spec: { pricing: { input: 1.25, output: 10, cacheRead: 0.125 } } });
    } finally {
      await registry.close();
    }
    const studio = await load('google-ai-studio.config.ts');
    expect(studio.providers.google).toMatchObject({ plugin: 'google', api: 'gemini' });
    const studioRegistry = await ProviderRegistry.create(studio, { configDir: DIR, log: createLogger('silent') });
    try {
      expect(studioRegistry.get('google/gemini-2.5-flash')).toMatchObject({ formats: ['gemini'], spec: { pricing: { input: 0.3, output: 2.5, cacheRead: 0.03 } } });
    } finally {
      await registry.close();
    }
  });

  it('Redis limits and several instances keep their limits in Redis', async () => {
    const limits = await load('redis-limits.config.ts');
    expect(limits.limits.store).toMatchObject({ redis: expect.stringMatching(/^redis:\/\//), onError: 'open' });
    expect(limits.limits.endpoints['POST /v1/images/*']).toEqual({ rpm: 10, per: 'caller' });
    const instances = await load('several-instances.config.ts');
    expect(instances.limits.store).toMatchObject({ redis: expect.stringMatching(/^redis:\/\//), onError: 'closed' });
    expect(instances.server).toMatchObject({ host: '0.0.0.0', trustProxy: true });
    expect(instances.store?.postgres).toMatch(/^postgres:\/\//);
  });

  it("the README's \"Running several instances\" config loads and sets up its providers as printed", async () => {
    const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Running several instances'));
    const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block).toContain('store: { postgres: process.env.DATABASE_URL! }');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-readme-config-'));
    const saved = { DATABASE_URL: process.env.DATABASE_URL, REDIS_URL: process.env.REDIS_URL };
    try {
      fs.writeFileSync(path.join(dir, 'gateway.config.ts'), block!);
      process.env.DATABASE_URL = 'postgres://gw:secret@db:5432/gateway';
      process.env.REDIS_URL = 'redis://cache:6379';
      const { config } = await loadConfig({ cwd: dir });
      expect(config.store?.postgres).toBe('postgres://gw:secret@db:5432/gateway');
      expect(config.limits.store).toMatchObject({ redis: 'redis://cache:6379' });
      const registry = await ProviderRegistry.create(config, { configDir: dir, log: createLogger('silent') });
      try {
        expect([...registry.providers.keys()].sort()).toEqual(Object.keys(config.providers).sort());
      } finally {
        await registry.close();
      }
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('several instances: each process gets its own port and data dir from the environment', async () => {
    const saved = { GATEWAY_INSTANCE: process.env.GATEWAY_INSTANCE, PORT: process.env.PORT };
    try {
      process.env.GATEWAY_INSTANCE = 'b';
      process.env.PORT = '8788';
      const config = await load('several-instances.config.ts');
      expect(config.dataDir).toBe('.gateway-b');
      expect(config.server.port).toBe(8788);
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });
});
