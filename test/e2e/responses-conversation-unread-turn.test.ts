/**
 * A conversation turn whose answer the gateway cannot read back. Before, such a turn was silently
 * not added to its conversation while the client got the answer as if all were well (200): the
 * next turn's model never saw it. Now the whole answer is a 502 `provider_error` naming the
 * conversation (the turn is not kept, the conversation unchanged, the call not charged), and the
 * conversation takes further turns. A Responses upstream answering a body whose `output` is no
 * array (the Responses decoder cannot read it) on the passthrough. Real CLI, official openai SDK.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { spawnGateway, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

type Json = Record<string, any>;

/** The account's balance (credits), from GET /v1/credits. */
async function balance(gw: SpawnedGateway): Promise<number> {
  const res = await fetch(`${gw.url}/v1/credits`, { headers: { authorization: `Bearer ${gw.key}` } });
  return ((await res.json()) as { data: { credits: { balance: number } } }).data.credits.balance;
}

describe('a conversation turn whose answer cannot be read back', () => {
  let upstream: FakeUpstream;
  let gw: SpawnedGateway;
  let client: OpenAI;

  beforeAll(async () => {
    upstream = await startFakeUpstream((request) => {
      const body = request.json as Json;
      const unreadable = JSON.stringify(body.input).includes('unreadable');
      const usage = { input_tokens: 10, output_tokens: 2, total_tokens: 12 };
      const output = unreadable
        ? { message: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'odd' }] } }
        : [{ type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'fine', annotations: [] }] }];
      return { json: { id: 'resp_up', object: 'response', created_at: 1_700_000_000, status: 'completed', model: body.model, output, usage } };
    });
    gw = await spawnGateway({
      config: {
        providers: { oa: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-4.1'] } },
        routing: { retry: { attempts: 1 } },
      },
    });
    client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });

  it('a whole answer: a 502 naming the conversation, which is unchanged and goes on', async () => {
    const conversation = await client.conversations.create({ items: [{ type: 'message', role: 'user', content: 'hello' }] });
    const before = await balance(gw);
    // Before: 200, the SDK reading `output` as the list it always is (TypeError), and the turn lost.
    const error = await client.responses.create({ model: 'oa/gpt-4.1', input: 'an unreadable answer please', conversation: conversation.id }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe('provider_error');
    expect((error as Error).message).toContain(`add it to conversation '${conversation.id}'`);
    const items = (await client.conversations.items.list(conversation.id, { order: 'asc' })).data as Json[];
    expect(items.map((item) => item.role)).toEqual(['user']);
    const next = await client.responses.create({ model: 'oa/gpt-4.1', input: 'and now?', conversation: conversation.id });
    expect(next.output_text).toBe('fine');
    expect(((await client.conversations.items.list(conversation.id, { order: 'asc' })).data as Json[]).map((item) => item.role)).toEqual(['user', 'user', 'assistant']);
    // The client got no answer: nothing is charged. The served turn is (its usage is fixed: the next one costs as much).
    await expect.poll(() => balance(gw)).toBeLessThan(before);
    const afterOne = await balance(gw);
    await client.responses.create({ model: 'oa/gpt-4.1', input: 'once more', conversation: conversation.id });
    await expect.poll(() => balance(gw)).toBeLessThan(afterOne);
    expect(before - afterOne).toBeCloseTo(afterOne - (await balance(gw)), 6);
  });

  it('without a conversation the same answer is still served (unstored), as before', async () => {
    const response = await client.responses.create({ model: 'oa/gpt-4.1', input: 'an unreadable answer please' }).asResponse();
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gateway-response-stored')).toBe('false');
  });
});
