/**
 * Spec §7's retry rules: only rate_limit_exceeded and the provider errors are retried; a quota
 * used up (429 quota_exceeded) or a state conflict (409 conflict) is not, before the request is
 * fixed. The openai and Anthropic SDKs retry every 409 and 429 by status unless the answer says
 * `x-should-retry: false`, so the gateway says it on those two codes.
 */
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { makeGateway, post, type TestGateway } from '../accounts/make-gateway.ts';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

/** An openai client that calls the in-process app and counts the calls it made. */
function countingClient(t: TestGateway, key: string) {
  const calls: string[] = [];
  const client = new OpenAI({
    apiKey: key,
    baseURL: 'http://gateway.test/v1',
    maxRetries: 2,
    fetch: (async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      calls.push(`${init?.method ?? 'GET'} ${url.pathname}`);
      return t.fetch(url.pathname + url.search, init);
    }) as typeof fetch,
  });
  return { client, calls };
}

describe('answers the spec says not to retry carry x-should-retry: false', () => {
  it('429 quota_exceeded: the monthly token quota is used up, and the openai SDK asks once', async () => {
    gw = await makeGateway();
    const { key, accountId } = await gw.account();
    await gw.gateway.deps.store.accounts.update(accountId, { monthlyTokenQuota: 1 });
    const res = await gw.fetch('/v1/chat/completions', post({ model: 'mock/echo', messages: [{ role: 'user', content: 'hello' }] }, key));
    expect(res.status).toBe(429);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('quota_exceeded');
    expect(res.headers.get('x-should-retry')).toBe('false');
    const { client, calls } = countingClient(gw, key);
    await expect(client.chat.completions.create({ model: 'mock/echo', messages: [{ role: 'user', content: 'hello' }] })).rejects.toMatchObject({ status: 429, code: 'quota_exceeded' });
    expect(calls).toEqual(['POST /v1/chat/completions']);
  });

  it('409 conflict: cancelling a batch that has ended, and the openai SDK asks once', async () => {
    gw = await makeGateway();
    const { key } = await gw.account();
    const { client, calls } = countingClient(gw, key);
    const file = await client.files.create({ file: new File([''], 'empty.jsonl'), purpose: 'batch' });
    let batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    for (let i = 0; i < 200 && batch.status !== 'failed'; i++) {
      await new Promise((r) => setImmediate(r));
      batch = await client.batches.retrieve(batch.id);
    }
    expect(batch.status).toBe('failed');
    const res = await gw.fetch(`/v1/batches/${batch.id}/cancel`, post({}, key));
    expect(res.status).toBe(409);
    expect(res.headers.get('x-should-retry')).toBe('false');
    calls.length = 0;
    await expect(client.batches.cancel(batch.id)).rejects.toMatchObject({ status: 409, code: 'conflict' });
    expect(calls).toEqual([`POST /v1/batches/${batch.id}/cancel`]);
  });

  it('a 429 of the rate limit is still retryable (no x-should-retry)', async () => {
    gw = await makeGateway();
    const { key } = await gw.account({ rpm: 1 });
    const chat = () => gw!.fetch('/v1/chat/completions', post({ model: 'mock/echo', messages: [{ role: 'user', content: 'hello' }] }, key));
    expect((await chat()).status).toBe(200);
    const throttled = await chat();
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('x-should-retry')).toBeNull();
  });
});
