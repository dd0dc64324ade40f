import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatSse, startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { parsePrometheus, seriesOf, valueOf } from '../helpers/prometheus.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const LIMIT = 1_000_000;
const PIECE = 'x'.repeat(250_000);

/** A Chat upstream: "big" answers 3 MB (streamed in 250 KB deltas, or whole), "long" 250 KB, anything else a short text. */
function answer(body: Record<string, unknown> | undefined) {
  const prompt = String((body?.messages as Array<{ content: string }> | undefined)?.at(-1)?.content ?? '');
  const pieces = prompt.includes('big') ? Array.from({ length: 12 }, () => PIECE) : prompt.includes('long') ? [PIECE] : ['short answer'];
  const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm1' };
  const usage = { prompt_tokens: 5, completion_tokens: pieces.length, total_tokens: 5 + pieces.length };
  if (body?.stream) {
    return {
      sse: chatSse([
        ...pieces.map((content) => ({ ...base, choices: [{ index: 0, delta: { content }, finish_reason: null }] })),
        { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
        { ...base, choices: [], usage },
      ]),
    };
  }
  return { json: { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'm1', choices: [{ index: 0, message: { role: 'assistant', content: pieces.join('') }, finish_reason: 'stop' }], usage } };
}

// Issue 27 §7: /v1/responses kept a streamed answer whole in memory to store it, and a failure of
// that copy ended the answer as a provider failure (opening the upstream's circuit). Now an
// answer past the stored record's bound (server.bodyLimits.inference) is relayed whole and not
// stored, the headers say so, and the upstream's circuit never hears of it.
describe('Responses capture is bounded: relayed, not stored, never a provider failure', () => {
  let up: FakeUpstream;
  let gw: SpawnedGateway;
  let client: OpenAI;

  beforeAll(async () => {
    up = await startFakeUpstream((request) => answer(request.json));
    gw = await spawnGateway({
      config: {
        server: { bodyLimits: { inference: LIMIT } },
        providers: { up: { plugin: 'openai', baseURL: `${up.url}/v1`, apiKey: 'x', models: ['m1'] } },
        routing: { breaker: { failureThreshold: 1 } },
      },
    });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key!, maxRetries: 0, timeout: 60_000 });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await up?.close();
  });

  const stored = async (id: string) => (await fetch(`${gw.url}/v1/responses/${id}`, { headers: { authorization: `Bearer ${gw.key}` } })).status;

  it('a streamed answer past the bound is relayed whole and not stored', { timeout: 60_000 }, async () => {
    const { data: stream, response } = await client.responses.create({ model: 'up/m1', input: 'a big one', stream: true }).withResponse();
    expect(response.headers.get('x-gateway-store-limit-bytes')).toBe(String(LIMIT));
    let text = '';
    let completed: { id: string; status?: string } | undefined;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response;
      expect(event.type).not.toBe('error');
    }
    expect(text.length).toBe(12 * PIECE.length);
    expect(completed?.status).toBe('completed');
    expect(await stored(completed!.id)).toBe(404);
    expect(gw.stderr() + gw.stdout()).toContain('a streamed response is not stored');
  });

  it('a whole answer past the bound says x-gateway-response-stored: false', { timeout: 60_000 }, async () => {
    const { data, response } = await client.responses.create({ model: 'up/m1', input: 'a big one' }).withResponse();
    expect(data.output_text.length).toBe(12 * PIECE.length);
    expect(response.headers.get('x-gateway-response-stored')).toBe('false');
    expect(await stored(data.id)).toBe(404);
  });

  it('a short answer is still stored, and the upstream was never counted as failing', { timeout: 60_000 }, async () => {
    const streamed = await client.responses.create({ model: 'up/m1', input: 'hello', stream: true });
    let id = '';
    for await (const event of streamed) if (event.type === 'response.completed') id = event.response.id;
    expect(await stored(id)).toBe(200);
    const whole = await client.responses.create({ model: 'up/m1', input: 'hello' }).withResponse();
    expect(whole.response.headers.get('x-gateway-response-stored')).toBeNull();
    expect(await stored(whole.data.id)).toBe(200);

    const metrics = parsePrometheus(await (await fetch(`${gw.url}/metrics`)).text());
    expect(valueOf(metrics, 'gateway_upstream_attempts_total', { provider: 'up', outcome: 'ok' })).toBe(4);
    expect(seriesOf(metrics, 'gateway_upstream_attempts_total', { outcome: 'error' })).toHaveLength(0);
    expect(valueOf(metrics, 'gateway_circuit_open', { provider: 'up' })).toBe(0);
  });

  // An item_reference to an item the gateway stored is replaced by the item itself before the
  // request goes on; one item may be named any number of times. 20 references to a stored 250 KB
  // answer made a 5 MB request out of a 2 KB body, sent upstream and billed (named a few thousand
  // times: gigabytes built in memory). The body they make is bounded as a body sent whole is.
  it('item_references to a stored answer are bounded like the body they make: named 20 times, a 413 and nothing goes upstream', { timeout: 60_000 }, async () => {
    const post = (body: unknown) => fetch(`${gw.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const first = await post({ model: 'up/m1', input: 'a long one' });
    expect(first.status).toBe(200);
    const message = ((await first.json()) as { output: Array<{ id: string; type: string }> }).output.find((item) => item.type === 'message')!;
    const sent = up.requests.length;
    const reference = { type: 'item_reference', id: message.id };

    const many = await post({ model: 'up/m1', input: [...Array.from({ length: 20 }, () => reference), { role: 'user', content: 'and now?' }] });
    const text = await many.text();
    expect(many.status, text.slice(0, 300)).toBe(413);
    expect(JSON.parse(text)).toMatchObject({ error: { code: 'request_too_large' } });
    expect(text).toContain('server.bodyLimits.inference');
    expect(up.requests.length).toBe(sent);

    // Named twice (500 KB with the rest), they are resolved and answered as before.
    const two = await post({ model: 'up/m1', input: [reference, reference, { role: 'user', content: 'and now?' }], store: false });
    expect(two.status).toBe(200);
    expect(JSON.stringify(up.requests.at(-1)!.json)).toContain(PIECE);
  });
});
