import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { get, makeGateway, post, type TestGateway } from './make-gateway.ts';

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

const PRICED = { providers: { mock: { plugin: 'mock', models: [{ id: 'echo', pricing: { input: 1000, output: 2000 } }] } } };

const chat = (key: string, content = 'hello there') => post({ model: 'mock/echo', messages: [{ role: 'user', content }], max_tokens: 20 }, key);

async function body<T>(res: Response): Promise<T> {
  expect(res.headers.get('content-type')).toContain('application/json');
  return (await res.json()) as T;
}

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
}

describe('usage endpoints', () => {
  it('GET /v1/credits reports granted, used and balance in USD and credits', async () => {
    gw = await makeGateway(PRICED);
    const { key } = await gw.account({ credits: 1000 });
    const usage = (await body<{ usage: Usage }>(await gw.fetch('/v1/chat/completions', chat(key)))).usage;
    await new Promise((r) => setTimeout(r, 20));
    const spent = usage.prompt_tokens + 2 * usage.completion_tokens;
    const res = await gw.fetch('/v1/credits', get(key));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('600');
    expect(await body(res)).toEqual({
      data: {
        total_credits: 1,
        total_usage: spent / 1000,
        balance: (1000 - spent) / 1000,
        credits: { balance: 1000 - spent, reserved: 0, available: 1000 - spent, total_granted: 1000, total_used: spent },
        currency: 'USD',
        usd_per_credit: 0.001,
      },
    });
  });

  it('GET /v1/key describes the calling key in OpenRouter\'s shape', async () => {
    gw = await makeGateway(PRICED);
    const { key, keyId, accountId } = await gw.account({ credits: 1000, tier: 'free', rpm: 7 });
    const other = await gw.account({ credits: 1000 });
    await gw.fetch('/v1/chat/completions', chat(key));
    await gw.fetch('/v1/chat/completions', chat(other.key));
    await new Promise((r) => setTimeout(r, 20));
    const { data } = await body<{ data: Record<string, unknown> }>(await gw.fetch('/v1/key', get(key)));
    const credits = data.usage_credits as { total: number; daily: number; weekly: number; monthly: number };
    expect(credits.total).toBeGreaterThan(0);
    expect(credits).toEqual({ total: credits.total, daily: credits.total, weekly: credits.total, monthly: credits.total });
    expect(data).toMatchObject({
      id: keyId,
      limit: null,
      limit_remaining: null,
      limit_reset: null,
      include_byok_in_limit: false,
      usage: credits.total / 1000,
      usage_daily: credits.total / 1000,
      usage_weekly: credits.total / 1000,
      usage_monthly: credits.total / 1000,
      byok_usage: 0,
      is_free_tier: true,
      is_management_key: false,
      is_provisioning_key: false,
      creator_user_id: accountId,
      expires_at: null,
      rate_limit: { requests: 7, interval: '60s' },
      tier: 'free',
      monthly_token_quota: null,
      monthly_tokens_remaining: null,
      currency: 'USD',
    });
    expect(data.label).toMatch(/^sk-gw-.+…/);
    expect(data.monthly_tokens_used).toBeGreaterThan(0);
  });

  it('GET /v1/activity has one row per day and model with requests, tokens and cost; filters by date and key', async () => {
    gw = await makeGateway(PRICED);
    const { key } = await gw.account({ credits: 10_000 });
    const { key: key2 } = await gw.account({ credits: 10_000 });
    void key2;
    const usages: Usage[] = [];
    for (const content of ['one', 'two two', 'three three three']) usages.push((await body<{ usage: Usage }>(await gw.fetch('/v1/chat/completions', chat(key, content)))).usage);
    await new Promise((r) => setTimeout(r, 20));
    const { data } = await body<{ data: Array<Record<string, unknown>> }>(await gw.fetch('/v1/activity', get(key)));
    const prompt = usages.reduce((n, u) => n + u.prompt_tokens, 0);
    const completion = usages.reduce((n, u) => n + u.completion_tokens, 0);
    const today = new Date().toISOString().slice(0, 10);
    expect(data).toEqual([
      {
        date: today,
        model: 'mock/echo',
        model_permaslug: 'mock/echo',
        endpoint_id: 'mock:mock/echo',
        provider_name: 'mock',
        usage: (prompt + 2 * completion) / 1000,
        usage_credits: prompt + 2 * completion,
        byok_usage_inference: 0,
        requests: 3,
        prompt_tokens: prompt,
        completion_tokens: completion,
        reasoning_tokens: 0,
        web_search_requests: 0,
      },
    ]);
    expect((await body<{ data: unknown[] }>(await gw.fetch(`/v1/activity?date=${today}`, get(key)))).data).toHaveLength(1);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect((await body<{ data: unknown[] }>(await gw.fetch(`/v1/activity?date=${yesterday}`, get(key)))).data).toEqual([]);
    const hash = createHash('sha256').update(key).digest('hex');
    expect((await body<{ data: unknown[] }>(await gw.fetch(`/v1/activity?api_key_hash=${hash}`, get(key)))).data).toHaveLength(1);
  });

  it('GET /v1/activity refuses a bad date and a foreign key hash', async () => {
    gw = await makeGateway();
    const { key } = await gw.account();
    const other = await gw.account();
    for (const date of ['2020-01-01', 'yesterday', '2026-13-45']) {
      const res = await gw.fetch(`/v1/activity?date=${date}`, get(key));
      expect(res.status, date).toBe(400);
    }
    const foreign = createHash('sha256').update(other.key).digest('hex');
    expect((await gw.fetch(`/v1/activity?api_key_hash=${foreign}`, get(key))).status).toBe(404);
  });

  it('needs an API key: none is 401, a session token is 401', async () => {
    gw = await makeGateway();
    await gw.account({ email: 'eve@example.test', password: 'correct horse' });
    const { token } = await body<{ token: string }>(await gw.fetch('/api/auth/login', post({ email: 'eve@example.test', password: 'correct horse' })));
    for (const p of ['/v1/credits', '/v1/key', '/v1/activity']) {
      expect((await gw.fetch(p)).status, p).toBe(401);
      const withSession = await gw.fetch(p, get(token));
      expect(withSession.status, p).toBe(401);
      expect((await body<{ error: { code: string } }>(withSession)).error.code).toBe('invalid_api_key');
    }
  });

  it('accepts X-API-Key as well as Authorization', async () => {
    gw = await makeGateway();
    const { key } = await gw.account();
    expect((await gw.fetch('/v1/credits', { headers: { 'x-api-key': key } })).status).toBe(200);
  });
});
