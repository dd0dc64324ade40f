/**
 * The credit hold covers hosted web searches, through the real CLI: claude-sonnet-4-5 on the
 * `anthropic` plugin (catalog: $10 per 1,000 searches, 10 credits a search) against a fake
 * Anthropic answering a recorded web-search turn (6,039 input tokens, 93 output, one search:
 * 29.512 credits). A Messages tool's `max_uses` and a Chat `web_search_options` (no bound:
 * `billing.reserveWebSearches`, 5) are held before the call, and concurrent search requests
 * are each paid in full: before, each held its tokens only (≈ 20 credits), so five were let in
 * on 100 credits and the last ones were served for less than they cost.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJsonFixture } from '../formats/stream-helpers.ts';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const MODEL = 'claude-sonnet-4-5';
/** One recorded turn: 6,039 × $3 + 93 × $15 per million = 19.512 credits, + one search at 10. */
const TURN = 29.512;
const SEARCH = 10;

interface Answer {
  status: number;
  error?: { code: string; details?: { required?: number } };
}

describe('the credit hold covers web searches (bin/gateway, fake Anthropic)', () => {
  let upstream: FakeUpstream;
  let gw: SpawnedGateway;
  let dataDir: string;
  let cli: (args: string[]) => ReturnType<typeof runCli>;
  /** Opens the fake's gate: until then it holds every request it receives. */
  let open: () => void = () => undefined;
  let gate: Promise<void> = Promise.resolve();

  const keyFor = async (email: string, credits: number): Promise<string> => {
    expect((await cli(['accounts', 'create', '--email', email, '--tier', 'enterprise', '--credits', String(credits)])).exitCode).toBe(0);
    const created = await cli(['keys', 'create', '--account', email, '--json']);
    return (JSON.parse(String(created.stdout)) as { key: string }).key;
  };
  const post = async (key: string, route: string, body: Record<string, unknown>): Promise<Answer> => {
    const res = await fetch(`${gw.url}${route}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }, body: JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, ...(res.status === 200 ? {} : (JSON.parse(text) as Pick<Answer, 'error'>)) };
  };
  const required = (answer: Answer): number => {
    expect(answer.status).toBe(402);
    expect(answer.error?.code).toBe('insufficient_balance');
    return answer.error!.details!.required!;
  };
  /** A Messages body with Anthropic's web search (`max_uses` given); 6,100 bytes of prompt so the input bound covers the 6,039 tokens the fake reports. */
  const messages = (maxUses: number) => ({
    model: MODEL,
    max_tokens: 93,
    messages: [{ role: 'user', content: 'x'.repeat(6100) }],
    tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: maxUses }],
  });

  beforeAll(async () => {
    const answer = readJsonFixture('messages/response-web-search.json');
    upstream = await startFakeUpstream(async () => {
      await gate;
      return { json: answer };
    });
    const dir = tempDir('gw-web-search-hold-');
    dataDir = path.join(dir, 'data');
    const configFile = writeConfig(dir, {
      providers: { anthropic: { plugin: 'anthropic', apiKey: 'ant-upstream-key', baseURL: upstream.url, models: [MODEL] } },
      routing: { retry: { attempts: 1 } },
    });
    cli = (args) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
    gw = await spawnGateway({ configFile, dataDir });
  }, 60_000);
  afterAll(async () => {
    open();
    await gw?.stop();
    await upstream?.close();
  });

  it("holds a Messages tool's max_uses searches and a Chat web search's default 5, at 10 credits a search", async () => {
    const key = await keyFor('probe@example.com', 1);
    // Same bytes but one digit: the holds differ by the searches alone.
    expect(required(await post(key, '/v1/messages', messages(9))) - required(await post(key, '/v1/messages', messages(1)))).toBeCloseTo(8 * SEARCH, 6);
    // web_search_options is not part of the input bound: with and without it the tokens are the same.
    const chat = { model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'When was Node 24 released?' }] };
    expect(required(await post(key, '/v1/chat/completions', { ...chat, web_search_options: {} })) - required(await post(key, '/v1/chat/completions', chat))).toBeCloseTo(5 * SEARCH, 6);
    expect(upstream.requests).toHaveLength(0);
  });

  it('six concurrent search requests on 100 credits: only those the balance can hold in full run, and each is charged in full', async () => {
    const key = await keyFor('buyer@example.com', 100);
    gate = new Promise<void>((resolve) => (open = resolve));
    let refused = 0;
    const answers = Array.from({ length: 6 }, () =>
      post(key, '/v1/messages', messages(1)).then((answer) => {
        if (answer.status !== 200) refused += 1;
        return answer;
      }),
    );
    // Every request is either held at the fake (admitted) or refused: then let the admitted ones finish.
    await expect.poll(() => upstream.requests.length + refused, { timeout: 10_000 }).toBe(6);
    open();
    const done = await Promise.all(answers);
    const served = done.filter((a) => a.status === 200).length;
    expect(done.filter((a) => a.status !== 200).map((a) => `${a.status} ${a.error?.code}`)).toEqual(Array(6 - served).fill('402 insufficient_balance'));
    // Each holds ≈ 20.2 credits of tokens + 10 of its search: three fit in 100.
    expect(served).toBe(3);
    let ledger: Array<{ cost_credits: number; charged_credits: number }> = [];
    await expect
      .poll(() => {
        const file = path.join(dataDir, 'usage.jsonl');
        ledger = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { cost_credits: number; charged_credits: number }) : [];
        return ledger.length;
      }, { timeout: 5000 })
      .toBe(served);
    for (const line of ledger) expect(line).toMatchObject({ cost_credits: TURN, charged_credits: TURN });
  });
});
