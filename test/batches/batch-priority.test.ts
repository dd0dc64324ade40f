import { afterEach, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream, type ReceivedRequest } from '../helpers/fake-upstream.ts';
import { get, makeGateway, post, type TestGateway } from '../accounts/make-gateway.ts';

let gw: TestGateway | undefined;
let upstream: FakeUpstream | undefined;
afterEach(async () => {
  await gw?.close();
  await upstream?.close();
  gw = undefined;
  upstream = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const textOf = (r: ReceivedRequest) => String((r.json?.messages as Array<{ content: string }> | undefined)?.at(-1)?.content ?? '');
const completion = (text: string) => ({
  json: { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } },
});

describe('batch lines run below live traffic (priority 1)', () => {
  it('take no concurrency slot or RPM of the caller, and give way to live requests in flight', async () => {
    const inFlight = { live: 0, batch: 0 };
    upstream = await startFakeUpstream(async (request) => {
      const live = textOf(request).startsWith('live');
      const tag = live ? 'live' : 'batch';
      inFlight[tag] += 1;
      await sleep(live ? 1500 : 100);
      inFlight[tag] -= 1;
      return completion(tag);
    });
    gw = await makeGateway({ providers: { up: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'x', models: ['m'] } }, batches: { concurrency: 4 } });
    // Free tier: 2 concurrent generation requests and 10 a minute; the batch has 60 lines.
    const { key } = await gw.account({ tier: 'free' });
    const samples: Array<{ t: number; live: number; batch: number }> = [];
    const sampler = setInterval(() => samples.push({ t: Date.now(), ...inFlight }), 5);
    try {
      const lines = Array.from({ length: 60 }, (_, i) => JSON.stringify({ custom_id: `b${i}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'up/m', messages: [{ role: 'user', content: `batch ${i}` }] } }));
      const form = new FormData();
      form.append('purpose', 'batch');
      form.append('file', new Blob([lines.join('\n')]), 'in.jsonl');
      const file = (await (await gw.fetch('/v1/files', { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form })).json()) as { id: string };
      const created = (await (await gw.fetch('/v1/batches', post({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }, key))).json()) as { id: string };
      for (let i = 0; i < 400 && inFlight.batch < 4; i++) await sleep(5);
      expect(inFlight.batch).toBe(4);

      // Two live requests while the batch runs at full width: both admitted (the lines hold none of the two slots).
      const liveAt = Date.now();
      const live = await Promise.all([0, 1].map((i) => gw!.fetch('/v1/chat/completions', post({ model: 'up/m', messages: [{ role: 'user', content: `live ${i}` }] }, key))));
      const liveEnd = Date.now();
      expect(live.map((r) => r.status)).toEqual([200, 200]);
      // While both were in flight, the batch ran in the two slots left of its four.
      const during = samples.filter((s) => s.t > liveAt + 300 && s.t < liveEnd - 100 && s.live === 2);
      expect(during.length).toBeGreaterThan(50);
      expect(Math.max(...during.map((s) => s.batch))).toBeLessThanOrEqual(2);
      expect(Math.max(...during.map((s) => s.batch))).toBeGreaterThanOrEqual(1);

      let batch = { status: '', request_counts: { completed: 0, failed: 0, total: 0 } };
      for (let i = 0; i < 400 && batch.status !== 'completed'; i++) {
        await sleep(25);
        batch = (await (await gw.fetch(`/v1/batches/${created.id}`, get(key))).json()) as typeof batch;
      }
      // 60 lines for a caller allowed 10 requests a minute: lines do not count against its RPM.
      expect(batch).toMatchObject({ status: 'completed', request_counts: { total: 60, completed: 60, failed: 0 } });
      // Back to full width once live traffic is gone.
      expect(Math.max(...samples.filter((s) => s.t > liveEnd + 200).map((s) => s.batch))).toBe(4);
    } finally {
      clearInterval(sampler);
    }
  }, 60_000);

  it('`batches.concurrency` bounds the lines of every batch of the instance together', async () => {
    let inFlight = 0;
    let most = 0;
    upstream = await startFakeUpstream(async () => {
      most = Math.max(most, ++inFlight);
      await sleep(60);
      inFlight -= 1;
      return completion('ok');
    });
    gw = await makeGateway({ providers: { up: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'x', models: ['m'] } }, batches: { concurrency: 3 } });
    const { key } = await gw.account();
    const start = async (name: string) => {
      const lines = Array.from({ length: 15 }, (_, i) => JSON.stringify({ custom_id: `${name}${i}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'up/m', messages: [{ role: 'user', content: 'x' }] } }));
      const form = new FormData();
      form.append('purpose', 'batch');
      form.append('file', new Blob([lines.join('\n')]), 'in.jsonl');
      const file = (await (await gw!.fetch('/v1/files', { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form })).json()) as { id: string };
      return ((await (await gw!.fetch('/v1/batches', post({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }, key))).json()) as { id: string }).id;
    };
    const ids = [await start('a'), await start('b'), await start('c')];
    for (const id of ids) {
      let status = '';
      for (let i = 0; i < 400 && status !== 'completed'; i++) {
        await sleep(25);
        status = ((await (await gw.fetch(`/v1/batches/${id}`, get(key))).json()) as { status: string }).status;
      }
      expect(status).toBe('completed');
    }
    expect(most).toBe(3);
  }, 60_000);
});
