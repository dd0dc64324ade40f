import { describe, expect, it } from 'vitest';
import { callMedia as callRoutedMedia, supportsTask } from '../../src/media/call-media.ts';
import type { ProviderRegistry } from '../../src/providers/registry.ts';
import { routingConfigSchema, Router, type RoutePlan } from '../../src/routing/index.ts';
import { FastAbortController, type AbortWatch } from '../../src/util/abort.ts';
import type { ModelSpec, ProviderInstance } from '../../src/plugin-kit/types.ts';
import { UpstreamHttpError } from '../../src/upstream/index.ts';
import type { CatalogModel } from '../../src/providers/types.ts';
import { GatewayError } from '../../src/errors/index.ts';

function model(id: string, spec: Partial<ModelSpec>, instance: ProviderInstance, total = 5000): CatalogModel {
  const provider = { id, plugin: {} as never, instance, formats: ['chat' as const], timeouts: { connect: 1, firstByte: 1, idle: 1, total }, priority: 0, weight: 1, acceptsAnyModel: false };
  return { id: `${id}/m`, provider, upstreamId: 'm', spec: { id: 'm', ...spec }, formats: ['chat'] };
}

const audio: ProviderInstance = { audio: { speech: async () => ({ data: new Uint8Array(), contentType: '' }), transcribe: async () => ({ text: '' }) } };
const images: ProviderInstance = { images: { generate: async () => ({ images: [] }) } };

describe('media model selection', () => {
  it('needs the type and the implemented call', () => {
    expect(supportsTask(model('p', { type: 'image_generation' }, images), 'image_generation')).toBe(true);
    expect(supportsTask(model('p', { type: 'image_generation' }, images), 'image_edit')).toBe(false); // no edit call
    expect(supportsTask(model('p', { type: 'chat' }, images), 'image_generation')).toBe(false);
    expect(supportsTask(model('p', { type: 'audio' }, {}), 'speech')).toBe(false);
  });

  it('checks listed media capabilities, and trusts the type when none is listed', () => {
    const tts = model('p', { type: 'audio', capabilities: ['speech'] }, audio);
    expect(supportsTask(tts, 'speech')).toBe(true);
    expect(supportsTask(tts, 'transcription')).toBe(false);
    const bare = model('p', { type: 'audio', capabilities: ['streaming', 'function_calling'] }, audio);
    expect(['speech', 'transcription', 'translation'].every((t) => supportsTask(bare, t as 'speech'))).toBe(true);
  });
});

/** The candidate loop of chat (tryCandidates) over these models, in order, with the default routing policy. */
function route(...models: CatalogModel[]): { router: Router; plan: RoutePlan } {
  const router = new Router({} as ProviderRegistry, routingConfigSchema.parse({}), { random: () => 0 });
  return { router, plan: { mode: 'auto', requested: 'm', primary: models, chain: [] } };
}

function callMedia<T>(models: CatalogModel[], client: AbortWatch, run: (model: CatalogModel, signal: AbortSignal) => Promise<T>): Promise<{ model: CatalogModel; result: T }> {
  const { router, plan } = route(...models);
  return callRoutedMedia(router, plan, client, run).then((served) => ({ model: served.model, result: served.value }));
}

describe('callMedia', () => {
  const signal = () => new FastAbortController();

  it('falls back to the next provider on a retryable upstream failure', async () => {
    const a = model('a', { type: 'audio' }, audio);
    const b = model('b', { type: 'audio' }, audio);
    const tried: string[] = [];
    const out = await callMedia([a, b], signal(), async (m) => {
      tried.push(m.provider.id);
      if (m.provider.id === 'a') throw new UpstreamHttpError(503, { error: { message: 'overloaded' } });
      return 'ok';
    });
    expect(out).toEqual({ model: b, result: 'ok' });
    expect(tried).toEqual(['a', 'b']);
  });

  it('maps and throws a non-retryable failure at once', async () => {
    const a = model('a', { type: 'audio' }, audio);
    const b = model('b', { type: 'audio' }, audio);
    const tried: string[] = [];
    const error = await callMedia([a, b], signal(), async (m) => {
      tried.push(m.provider.id);
      throw new UpstreamHttpError(400, { error: { message: 'Invalid file format.' } });
    }).catch((e: unknown) => e);
    expect(tried).toEqual(['a']);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: 'bad_request', details: { provider: 'a', upstream_status: 400 } });
    expect((error as Error).message).toContain('Invalid file format.');
  });

  it('aborts the call at the provider total timeout', async () => {
    const slow = model('slow', { type: 'audio' }, audio, 50);
    const error = await callMedia([slow], signal(), (_m, s) => new Promise((_, reject) => s.addEventListener('abort', () => reject(new Error('aborted'))))).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'provider_timeout' });
  });

  it('shares the circuit breakers with chat: a provider that keeps failing is skipped', async () => {
    const a = model('a', { type: 'audio' }, audio);
    const b = model('b', { type: 'audio' }, audio);
    const router = new Router({} as ProviderRegistry, routingConfigSchema.parse({ breaker: { failureThreshold: 2 } }), { random: () => 0 });
    const plan: RoutePlan = { mode: 'auto', requested: 'm', primary: [a, b], chain: [] };
    const tried: string[] = [];
    const run = async (m: CatalogModel) => {
      tried.push(m.provider.id);
      if (m.provider.id === 'a') throw new UpstreamHttpError(503, { error: { message: 'overloaded' } });
      return 'ok';
    };
    for (let i = 0; i < 2; i += 1) {
      const served = await callRoutedMedia(router, plan, signal(), run);
      expect(served).toMatchObject({ value: 'ok', model: b, fallback: { from: a.id, reason: 'provider_unavailable' } });
    }
    const skipped = await callRoutedMedia(router, plan, signal(), run);
    expect(skipped).toMatchObject({ value: 'ok', model: b, routing: { attempts: 1 } });
    expect(skipped.fallback).toBeUndefined();
    expect(tried).toEqual(['a', 'b', 'a', 'b', 'b']);
    expect(router.breaker.state(a.id)).toBe('open');
  });

  it('gives up with the routing headers when every candidate fails', async () => {
    const a = model('a', { type: 'audio' }, audio);
    const { router, plan } = route(a);
    router.config.retry.baseMs = 0;
    const error = await callRoutedMedia(router, plan, signal(), async () => {
      throw new UpstreamHttpError(502, { error: { message: 'bad gateway' } });
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'provider_error', headers: { 'x-routing-mode': 'auto', 'x-routing-attempts': '3' } });
  });
});
