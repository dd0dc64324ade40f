import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBlackhole, type Blackhole } from '../helpers/blackhole.ts';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { chatStream, chatText, readSse } from '../helpers/routing-wire.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

// timeouts.connect end to end: an upstream whose TCP connect never completes.
describe('routing: connect timeout', () => {
  let hole: Blackhole;
  let backup: FakeUpstream;
  let gw: SpawnedGateway;

  beforeAll(async () => {
    hole = await startBlackhole();
    backup = await startFakeUpstream(() => ({ sse: chatStream(['Hel', 'lo']) }));
    gw = await spawnGateway({
      config: {
        providers: {
          p1: { plugin: 'openai', baseURL: `${hole.url}/v1`, apiKey: 'x', models: ['m1'], priority: 1, timeouts: { connect: 300 } },
          p2: { plugin: 'openai', baseURL: `${backup.url}/v1`, apiKey: 'x', models: ['m1'], priority: 2 },
        },
        routing: { retry: { attempts: 1 } },
      },
    });
  });
  afterAll(async () => {
    await gw?.stop();
    await backup?.close();
    await hole?.close();
  });

  const post = (model: string) =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      signal: AbortSignal.timeout(8000),
    });

  it('a pinned model answers 504 provider_timeout', async () => {
    const started = Date.now();
    const res = await post('p1/m1');
    expect(res.status).toBe(504);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('provider_timeout');
    // undici checks its connect timer on a ~0.5 s tick: 300 ms fires between 300 and ~1100 ms
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('an auto-routed model falls back with reason provider_timeout', async () => {
    const res = await post('m1');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-fallback-reason')).toBe('provider_timeout');
    expect(chatText(await readSse(res))).toBe('Hello');
  });
});
