/**
 * OpenRouter's `provider` routing preferences (`only`, `ignore`, `order`, `allow_fallbacks`), sent
 * by an app written for OpenRouter through the openai SDK, choose among the gateway's own
 * providers by their ids. Before, the field was taken out and not applied: `ignore: ['up']` was
 * still served by `up` (found by a newcomer trial). Names the gateway has no provider for are
 * OpenRouter's slugs: left for an OpenRouter upstream, not applied here. The field never reaches a
 * plain OpenAI upstream (the strict fakes refuse unknown parameters, as OpenAI does).
 * Real CLI, official openai SDK, fake upstreams.
 */
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { startStrictFake, type StrictFake } from '../helpers/strict-fakes.ts';

describe("OpenRouter's provider preferences, over the gateway's providers", () => {
  let one: StrictFake;
  let two: StrictFake;
  let gw: SpawnedGateway;
  let client: OpenAI;

  beforeAll(async () => {
    one = await startStrictFake({ format: 'chat', models: { 'gpt-4.1': { maxOutput: 32000, reasoning: false } } });
    two = await startStrictFake({ format: 'chat', models: { 'gpt-4.1': { maxOutput: 32000, reasoning: false } } });
    const dir = tempDir();
    const configFile = writeConfig(dir, {
      providers: {
        up: { plugin: 'openai', baseURL: `${one.url}/v1`, apiKey: 'x', formats: ['chat'], priority: 1, models: ['gpt-4.1'] },
        Up2: { plugin: 'openai', baseURL: `${two.url}/v1`, apiKey: 'x', formats: ['chat'], priority: 2, models: ['gpt-4.1'] },
      },
      routing: { retry: { attempts: 1 } },
    });
    gw = await spawnGateway({ configFile, dataDir: path.join(dir, 'data') });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await Promise.all([one?.close(), two?.close()]);
  });

  const servedBy = async (provider: unknown, model = 'gpt-4.1'): Promise<string | null> => {
    const { response } = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }], provider } as never).withResponse();
    return response.headers.get('x-routing-resolved-model');
  };

  it('ignore, only, order and allow_fallbacks choose the serving provider; a name the gateway does not have is left alone', async () => {
    expect(await servedBy(undefined as never)).toBe('up/gpt-4.1');
    expect(await servedBy({ ignore: ['up'] })).toBe('Up2/gpt-4.1');
    expect(await servedBy({ only: ['up2'] })).toBe('Up2/gpt-4.1');
    expect(await servedBy({ order: ['Up2', 'up'] })).toBe('Up2/gpt-4.1');
    expect(await servedBy({ order: ['up2'], allow_fallbacks: false })).toBe('Up2/gpt-4.1');
    // OpenRouter's slugs (no such provider here): not applied, the gateway's own order stands.
    expect(await servedBy({ only: ['deepinfra'], ignore: ['together'], data_collection: 'deny' })).toBe('up/gpt-4.1');
    // Neither fake saw the field (each refuses a parameter OpenAI does not know).
    expect([...one.rejections, ...two.rejections]).toEqual([]);
    const { response } = await client.chat.completions.create({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }], provider: { ignore: ['up'] } } as never).withResponse();
    expect(response.headers.get('x-gateway-adapted')).toContain('provider=removed');
  });

  it('a pinned model its preferences rule out, or every provider ignored: 404 naming the preferences, no upstream called', async () => {
    const before = one.requests.length + two.requests.length;
    for (const [provider, model] of [[{ ignore: ['up', 'up2'] }, 'gpt-4.1'], [{ ignore: ['up'] }, 'up/gpt-4.1'], [{ only: ['up2'] }, 'up/gpt-4.1']] as const) {
      const error = await servedBy(provider, model).catch((e: unknown) => e);
      expect(error, JSON.stringify(provider)).toBeInstanceOf(OpenAI.NotFoundError);
      const body = (error as InstanceType<typeof OpenAI.NotFoundError>).error as { code: string; message: string; param?: string };
      expect(body.code).toBe('model_not_found');
      expect(body.message).toContain("provider preferences");
    }
    expect(one.requests.length + two.requests.length).toBe(before);
  });

  it('Responses takes the same preferences (here converted to the Chat upstreams)', async () => {
    const { response } = await client.responses.create({ model: 'gpt-4.1', input: 'hi', store: false, provider: { ignore: ['up'] } } as never).withResponse();
    expect(response.headers.get('x-routing-resolved-model')).toBe('Up2/gpt-4.1');
  });
});
