import { afterEach, describe, expect, it } from 'vitest';
import { inProcessGateway, type InProcessGateway } from '../media/in-process-app.ts';
import { parsePrometheus, valueOf } from '../helpers/prometheus.ts';

/** Resolves when `condition` holds, looking again on each turn of the event loop (no fixed sleep). */
async function until(condition: () => boolean, turns = 100_000): Promise<void> {
  for (let i = 0; i < turns; i += 1) {
    if (condition()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error('the condition never held');
}

/**
 * The in-process app (app.fetch, a web ReadableStream body) gets the answer's end from the same
 * stream target as a Node response: the end waits for the answer's records.
 */
describe('one stream target, in process', () => {
  let gateway: InProcessGateway | undefined;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  const post = (g: InProcessGateway, path: string, body: unknown, signal?: AbortSignal) =>
    g.request(path, { method: 'POST', headers: { authorization: `Bearer ${g.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body), signal });

  it("ends a streamed Responses answer only once its stored copy is written", async () => {
    gateway = await inProcessGateway();
    const g = gateway;
    const events: string[] = [];
    const responses = g.deps.store.responses;
    const save = responses.save.bind(responses);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    responses.save = async (record) => {
      events.push('save asked');
      await gate;
      await save(record);
      events.push('saved');
    };
    const res = await post(g, '/v1/responses', { model: 'mock/echo', input: 'hello there', stream: true });
    expect(res.status).toBe(200);
    const reading = res.text().then((text) => {
      events.push('end');
      return text;
    });
    await until(() => events.includes('save asked'));
    // Many turns of the event loop with the save held: an end that did not wait would be seen by now.
    for (let i = 0; i < 50; i += 1) await new Promise((resolve) => setImmediate(resolve));
    events.push('released');
    release();
    const text = await reading;
    expect(events).toEqual(['save asked', 'released', 'saved', 'end']);
    const id = /"id":"(resp_[0-9a-f]+)"/.exec(text)?.[1];
    expect(id).toMatch(/^resp_[0-9a-f]+$/);
    const stored = await g.request(`/v1/responses/${id}`, { headers: { authorization: `Bearer ${g.apiKey}` } });
    expect(stored.status).toBe(200);
  });

  it('records a client that goes away mid-stream as client_closed (499), not bad_request', async () => {
    gateway = await inProcessGateway({ providers: { mock: { plugin: 'mock', chunkDelayMs: 20 } } });
    const g = gateway;
    const controller = new AbortController();
    const res = await post(g, '/v1/chat/completions', { model: 'mock/echo', stream: true, messages: [{ role: 'user', content: 'a long enough answer to take several chunks to stream' }] }, controller.signal);
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read(); // the first record is out
    await reader.cancel();
    let metrics = await (await g.request('/metrics')).text();
    const closed = () => valueOf(parsePrometheus(metrics), 'gateway_requests_total', { route: '/v1/chat/completions', status: '499', api_format: 'chat' });
    for (let i = 0; i < 1000 && closed() === 0; i += 1) {
      await new Promise((resolve) => setImmediate(resolve));
      metrics = await (await g.request('/metrics')).text();
    }
    expect(closed()).toBe(1);
    expect(valueOf(parsePrometheus(metrics), 'gateway_requests_total', { route: '/v1/chat/completions', status: '400', api_format: 'chat' })).toBe(0);
  });
});
