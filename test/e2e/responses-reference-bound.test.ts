import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const LIMIT = 1_000_000;
const LONG = 'x'.repeat(300_000);

/** A Chat upstream: "long" answers 300 KB of text, anything else a short one. */
function answer(body: Record<string, unknown> | undefined) {
  const prompt = JSON.stringify(body?.messages ?? []);
  const content = prompt.includes('long please') ? LONG : 'short answer';
  return { json: { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm1', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 } } };
}

// An item_reference to an item the gateway stored is replaced by the item itself before the request
// goes on. A reference is a few dozen bytes and one item may be named any number of times: 20
// references to a 300 KB answer made a 6 MB request out of a 2 KB body, sent upstream and billed
// (and, named a few thousand times, gigabytes built in memory). The body they make is bounded as
// a body sent whole is.
describe('item_references to stored items are bounded like the body they make', () => {
  let up: FakeUpstream;
  let gw: SpawnedGateway;

  beforeAll(async () => {
    up = await startFakeUpstream((request) => answer(request.json));
    gw = await spawnGateway({
      config: {
        server: { bodyLimits: { inference: LIMIT } },
        providers: { up: { plugin: 'openai', baseURL: `${up.url}/v1`, apiKey: 'x', models: ['m1'] } },
      },
    });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await up?.close();
  });

  const post = (body: unknown) =>
    fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('a stored 300 KB answer named 20 times is a 413, and nothing goes upstream', { timeout: 60_000 }, async () => {
    const first = await post({ model: 'up/m1', input: 'long please' });
    expect(first.status).toBe(200);
    const stored = (await first.json()) as { output: Array<{ id: string; type: string }> };
    const message = stored.output.find((item) => item.type === 'message')!;
    const sent = up.requests.length;

    const many = await post({ model: 'up/m1', input: [...Array.from({ length: 20 }, () => ({ type: 'item_reference', id: message.id })), { role: 'user', content: 'and now?' }] });
    const text = await many.text();
    expect(many.status, text.slice(0, 300)).toBe(413);
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'request_too_large' } });
    expect(text).toContain('server.bodyLimits.inference');
    expect(up.requests.length).toBe(sent);

    // Named twice (600 KB with the rest), the references are resolved and answered as before.
    const two = await post({ model: 'up/m1', input: [{ type: 'item_reference', id: message.id }, { type: 'item_reference', id: message.id }, { role: 'user', content: 'and now?' }], store: false });
    expect(two.status).toBe(200);
    expect(JSON.stringify(up.requests.at(-1)!.json)).toContain(LONG);
  });
});
