/**
 * Web searches recorded on PostgreSQL through the real CLI: claude-sonnet-4-5 on the `anthropic`
 * plugin against a fake Anthropic answering with a recorded web-search turn
 * (`server_tool_use.web_search_requests: 1`), with `store: { postgres }`. Each settlement goes
 * through the instance's outbox (`settlements.jsonl`) to `gw_ledger`, whose row keeps the count;
 * `gateway usage` reads it back from the database.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFixture, readJsonFixture } from '../formats/stream-helpers.ts';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { connectTestDatabase, type TestDatabaseWithClient } from '../helpers/pg-database.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const MODEL = 'claude-sonnet-4-5';
// 6,039 × $3 + 93 × $15 per million = 19.512 credits of tokens; one search at $0.01 = 10 credits.
const COST = 19.512 + 10;

describe('web searches in gw_ledger (bin/gateway, store: { postgres }, fake Anthropic)', () => {
  let db: TestDatabaseWithClient;
  let upstream: FakeUpstream;
  let gw: SpawnedGateway;
  let cli: (args: string[]) => ReturnType<typeof runCli>;
  let apiKey: string;

  beforeAll(async () => {
    db = await connectTestDatabase();
    const answer = readJsonFixture('messages/response-web-search.json');
    const streamed = readFixture('messages/stream-web-search.sse.txt');
    upstream = await startFakeUpstream((req) => ((req.json as { stream?: boolean } | undefined)?.stream === true ? { headers: { 'content-type': 'text/event-stream' }, sse: [streamed] } : { json: answer }));
    const dir = tempDir('gw-web-search-pg-');
    const dataDir = path.join(dir, 'data');
    const configFile = writeConfig(dir, {
      store: { postgres: db.url },
      providers: { anthropic: { plugin: 'anthropic', apiKey: 'ant-upstream-key', baseURL: upstream.url, models: [MODEL] } },
      routing: { retry: { attempts: 1 } },
    });
    cli = (args: string[]) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
    const made = await cli(['accounts', 'create', '--email', 'search@example.com', '--tier', 'enterprise', '--credits', '100000']);
    expect(made.exitCode, String(made.stderr)).toBe(0);
    const created = await cli(['keys', 'create', '--account', 'search@example.com', '--json']);
    expect(created.exitCode, String(created.stderr)).toBe(0);
    apiKey = (JSON.parse(String(created.stdout)) as { key: string }).key;
    gw = await spawnGateway({ configFile, dataDir });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
    await db?.drop();
  });

  const post = async (route: string, body: Record<string, unknown>) => {
    const res = await fetch(`${gw.url}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return res.headers.get('x-request-id');
  };
  const ask = [{ role: 'user', content: 'When was Node 24 released?' }];

  it('a request with a search leaves a gw_ledger row with web_search_requests 1 (Messages JSON and Chat streamed), and gateway usage counts them', async () => {
    const ids = [await post('/v1/messages', { model: MODEL, max_tokens: 1024, messages: ask }), await post('/v1/chat/completions', { model: MODEL, max_tokens: 1024, messages: ask, stream: true })];
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    const rows = async () =>
      (await db.sql.query<{ request_id: string; web_search_requests: number | null; cost_credits: string }>('select request_id, web_search_requests, cost_credits from gw_ledger where request_id = any($1) order by seq', [ids])).rows;
    await expect.poll(async () => (await rows()).length, { timeout: 10_000, interval: 50 }).toBe(2);
    for (const row of await rows()) {
      expect(row.web_search_requests).toBe(1);
      expect(Number(row.cost_credits)).toBeCloseTo(COST, 6);
    }
    const usage = await cli(['usage', '--account', 'search@example.com', '--json']);
    expect(usage.exitCode, String(usage.stderr)).toBe(0);
    const report = JSON.parse(String(usage.stdout)) as { accounts: Array<{ month_web_search_requests: number }>; activity: Array<{ web_search_requests: number }> };
    expect(report.accounts[0].month_web_search_requests).toBe(2);
    expect(report.activity.reduce((sum, row) => sum + row.web_search_requests, 0)).toBe(2);
  });
});
