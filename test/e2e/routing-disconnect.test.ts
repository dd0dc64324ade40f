import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { chatStream } from '../helpers/routing-wire.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

async function waitFor(check: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 2));
  }
}

const SAMPLES = 3;

// A client that goes away must free the upstream at once: no leaked sockets, no tokens
// generated for nobody. Each case is measured SAMPLES times and the best must be under
// 100 ms (typically 2–20 ms): two processes share two cores with the rest of the suite, so
// one sample can be late by scheduling alone, while a missing abort is late every time (the
// upstream would only close at the end of its 4-second stream, or never when it hangs).
describe('routing: client disconnect aborts the upstream', () => {
  let upstream: FakeUpstream;
  let gw: SpawnedGateway;
  const slowStream = () => ({ sse: chatStream(Array.from({ length: 200 }, (_, i) => `w${i} `)), delayMs: 20 });

  beforeAll(async () => {
    upstream = await startFakeUpstream(slowStream);
    gw = await spawnGateway({
      config: { providers: { p1: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'x', models: ['m1'] } } },
    });
  });
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });

  const start = (controller: AbortController) =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm1', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      signal: controller.signal,
    });

  /** Ms from the client's abort to the upstream seeing its socket close. */
  async function measure(untilAbort: (controller: AbortController) => Promise<void>): Promise<number> {
    upstream.closedAt.length = 0;
    upstream.requests.length = 0;
    const controller = new AbortController();
    await untilAbort(controller);
    const abortedAt = Date.now();
    controller.abort();
    await waitFor(() => upstream.closedAt.length > 0, 3000);
    return upstream.closedAt[0] - abortedAt;
  }

  it('mid-stream: the upstream sees its socket closed within 100 ms', async () => {
    upstream.setHandler(slowStream);
    const samples: number[] = [];
    for (let i = 0; i < SAMPLES; i += 1) {
      samples.push(
        await measure(async (controller) => {
          const reader = (await start(controller)).body!.getReader();
          let seen = '';
          while (!seen.includes('w3 ')) seen += new TextDecoder().decode((await reader.read()).value);
        }),
      );
    }
    expect(Math.min(...samples)).toBeLessThan(100);
    expect(Math.max(...samples)).toBeLessThan(1000);
  });

  it('before the first byte: a hanging upstream is released within 100 ms, and not retried', async () => {
    upstream.setHandler(() => ({ fault: 'hang' }));
    const samples: number[] = [];
    for (let i = 0; i < SAMPLES; i += 1) {
      samples.push(
        await measure(async (controller) => {
          void start(controller).catch(() => undefined);
          await waitFor(() => upstream.requests.length > 0, 2000);
          await new Promise((r) => setTimeout(r, 30));
        }),
      );
      await new Promise((r) => setTimeout(r, 100));
      expect(upstream.requests).toHaveLength(1); // no retry for a client that left
    }
    expect(Math.min(...samples)).toBeLessThan(100);
    expect(Math.max(...samples)).toBeLessThan(1000);
  });
});
