/**
 * A Responses answer with `status: "failed"` that reports what it used (tokens, a web search)
 * is charged for it whether the client reads it converted (a Chat client: the answer becomes an
 * error), passed through (a Responses client: the upstream's body) or streamed
 * (`response.failed`, 25e4c24). Before, the converted JSON answer's usage was dropped with it.
 */
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readLedger } from '../../src/store/index.ts';
import { makeGateway, post, type TestGateway } from '../accounts/make-gateway.ts';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';

/** gpt-4.1 (catalog: $2 / $8 per million tokens, $10 per 1,000 searches): 40 × 0.002 + 7 × 0.008 + one search at 10 credits. */
const COST = 10.136;
const FAILED = {
  id: 'resp_failed',
  object: 'response',
  model: 'gpt-4.1',
  status: 'failed',
  output: [{ type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'node 24' } }],
  error: { code: 'server_error', message: 'The model failed.' },
  usage: { input_tokens: 40, input_tokens_details: { cached_tokens: 0 }, output_tokens: 7, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 47 },
};

describe('a failed Responses answer is charged what it reports it used', () => {
  let upstream: FakeUpstream;
  let gw: TestGateway | undefined;
  beforeAll(async () => {
    upstream = await startFakeUpstream(() => ({ json: FAILED }));
  });
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
  });
  afterAll(async () => {
    await upstream.close();
  });

  const setUp = async () => {
    gw = await makeGateway({
      providers: { or: { plugin: 'openai', baseURL: `${upstream.url}/v1`, apiKey: 'x', formats: ['responses'], models: ['gpt-4.1'] } },
      routing: { retry: { attempts: 1 } },
    });
    return gw.account({ credits: 1000 });
  };
  /** The ledger line of the one charged request, once written. */
  const line = async (t: TestGateway) => {
    let lines: ReturnType<typeof readLedger> = [];
    await expect.poll(() => (lines = readLedger(path.join(t.dataDir, 'usage.jsonl'))).length).toBe(1);
    return lines[0]!;
  };

  it('converted (a Chat client): the client gets the error, and the tokens and the search are charged', async () => {
    const { key, accountId } = await setUp();
    const res = await gw!.fetch('/v1/chat/completions', post({ model: 'or/gpt-4.1', messages: [{ role: 'user', content: 'When was Node 24 released?' }] }, key));
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe('The model failed.');
    expect(await line(gw!)).toMatchObject({ input_tokens: 40, output_tokens: 7, web_search_requests: 1, cost_credits: COST, charged_credits: COST, estimated: false });
    expect(gw!.gateway.deps.store.cache.account(accountId)!.credits).toBeCloseTo(1000 - COST, 6);
  });

  it('passed through (a Responses client): the same charge', async () => {
    const { key } = await setUp();
    const res = await gw!.fetch('/v1/responses', post({ model: 'or/gpt-4.1', input: 'When was Node 24 released?', store: false }, key));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { status: string }).status).toBe('failed');
    expect(await line(gw!)).toMatchObject({ input_tokens: 40, output_tokens: 7, web_search_requests: 1, cost_credits: COST });
  });
});
