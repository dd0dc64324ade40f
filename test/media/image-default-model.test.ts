/**
 * `images.generate` / `images.edit` without a model: the OpenAI SDK lets a user leave `model` out
 * (OpenAI then uses its default image model), so the gateway uses `defaults.imageModel` when the
 * config names one, else the first image model the key may use; a 400 only when there is none.
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
  it("uses the first image model (as OpenAI uses its default); null is left out, as the SDK's type allows", async () => {
    const gw = await gateway({ providers: { mock: { plugin: 'mock' }, few } });
    const { key } = await gw.account();
    const made = await generate(gw, key, { prompt: 'a kite', size: '8x8' });
    expect(made.status).toBe(200);
    expect(made.model).toBe('mock/image');
    expect((made.body.data as unknown[]).length).toBe(1);
    expect((await generate(gw, key, { prompt: 'a kite', size: '8x8', model: null })).model).toBe('mock/image');
    // A model named is still the one used; an empty one is still refused.
    expect((await generate(gw, key, { prompt: 'a kite', size: '8x8', model: 'few/pic' })).model).toBe('few/pic');
    expect((await generate(gw, key, { prompt: 'a kite', model: '' })).status).toBe(422);
  });

  it('uses defaults.imageModel when the config names one', async () => {
    const gw = await gateway({ providers: { mock: { plugin: 'mock' }, few }, defaults: { imageModel: 'few/pic' } });
    const { key } = await gw.account();
    expect((await generate(gw, key, { prompt: 'a kite', size: '8x8' })).model).toBe('few/pic');
  });

  it('takes the first image model a scoped key may use', async () => {
    const gw = await gateway({ providers: { mock: { plugin: 'mock' }, few } });
    const { key } = await gw.account({ key: { models: ['few/*'] } });
    expect((await generate(gw, key, { prompt: 'a kite', size: '8x8' })).model).toBe('few/pic');
  });

  it('an edit without a model uses the first model that edits', async () => {
    const gw = await gateway({ providers: { mock: { plugin: 'mock' } } });
    const { key } = await gw.account();
    const form = new FormData();
    form.set('image', new File([new Uint8Array(encodePng({ width: 8, height: 8, rgba: new Uint8Array(256).fill(200) }))], 'in.png', { type: 'image/png' }));
    form.set('prompt', 'make it blue');
    form.set('size', '8x8');
    const res = await gw.fetch('/v1/images/edits', { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-routing-resolved-model')).toBe('mock/image');
  });

  it('with no image model to use, a 400 says to name one', async () => {
    const gw = await gateway({ providers: { few: { plugin: 'mock', models: [{ id: 'echo' }] } } });
    const { key } = await gw.account();
    const refused = await generate(gw, key, { prompt: 'a kite' });
    expect(refused.status).toBe(400);
    expect((refused.body.error as { message: string }).message).toMatch(/model/);
  });
});
