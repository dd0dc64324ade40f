/**
 * `images.generate` / `images.edit` without a model: spec §4.2 makes `model` required, so the
 * gateway answers 400 bad_request naming it, unless the operator named `defaults.imageModel` in the
 * config (the OpenAI SDK lets a user leave `model` out, and OpenAI then uses its default image model).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { encodePng } from '../../plugins/mock/png.ts';
import { makeGateway, type TestGateway } from '../accounts/make-gateway.ts';

const gateways: TestGateway[] = [];
afterAll(() => Promise.all(gateways.map((gw) => gw.close())));

async function gateway(config: Record<string, unknown>): Promise<TestGateway> {
  const gw = await makeGateway(config);
  gateways.push(gw);
  return gw;
}

const few = { plugin: 'mock', models: [{ id: 'pic', type: 'image_generation' }, { id: 'echo' }] };

async function generate(gw: TestGateway, key: string, body: Record<string, unknown>): Promise<{ status: number; model: string | null; body: Record<string, unknown> }> {
  const res = await gw.fetch('/v1/images/generations', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, model: res.headers.get('x-routing-resolved-model'), body: (await res.json()) as Record<string, unknown> };
}

describe('an image request without a model', () => {
  it('is refused 400 bad_request naming model, absent or null (spec §4.2: model is required)', async () => {
    const gw = await gateway({ providers: { mock: { plugin: 'mock' }, few } });
    const { key } = await gw.account();
    for (const body of [{ prompt: 'a kite', size: '8x8' }, { prompt: 'a kite', size: '8x8', model: null }]) {
      const refused = await generate(gw, key, body);
      expect(refused.status).toBe(400);
      expect((refused.body.error as { code: string }).code).toBe('bad_request');
      expect((refused.body.error as { message: string }).message).toMatch(/model/);
    }
    // A model named is the one used; an empty one is refused.
    expect((await generate(gw, key, { prompt: 'a kite', size: '8x8', model: 'few/pic' })).model).toBe('few/pic');
    expect((await generate(gw, key, { prompt: 'a kite', model: '' })).status).toBe(422);
  });

  it('uses defaults.imageModel when the config names one (absent or null model)', async () => {
    const gw = await gateway({ providers: { mock: { plugin: 'mock' }, few }, defaults: { imageModel: 'few/pic' } });
    const { key } = await gw.account();
    const made = await generate(gw, key, { prompt: 'a kite', size: '8x8' });
    expect(made.status).toBe(200);
    expect(made.model).toBe('few/pic');
    expect((made.body.data as unknown[]).length).toBe(1);
    expect((await generate(gw, key, { prompt: 'a kite', size: '8x8', model: null })).model).toBe('few/pic');
  });

  it('an edit without a model is refused 400 too, and uses defaults.imageModel when set', async () => {
    const edit = async (gw: TestGateway, key: string) => {
      const form = new FormData();
      form.set('image', new File([new Uint8Array(encodePng({ width: 8, height: 8, rgba: new Uint8Array(256).fill(200) }))], 'in.png', { type: 'image/png' }));
      form.set('prompt', 'make it blue');
      form.set('size', '8x8');
      return gw.fetch('/v1/images/edits', { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    };
    const plain = await gateway({ providers: { mock: { plugin: 'mock' } } });
    const refused = await edit(plain, (await plain.account()).key);
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('bad_request');
    const defaulted = await gateway({ providers: { mock: { plugin: 'mock' } }, defaults: { imageModel: 'mock/image' } });
    const res = await edit(defaulted, (await defaulted.account()).key);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-routing-resolved-model')).toBe('mock/image');
  });
});
