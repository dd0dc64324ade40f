/**
 * Hosted web searches are charged through the real CLI: claude-sonnet-4-5 on the `anthropic`
 * plugin against a fake Anthropic that answers with a recorded web-search turn (6,039 input
 * tokens, 93 output, `server_tool_use.web_search_requests: 1`), through the Messages
 * passthrough (JSON and streamed) and converted for Chat and Responses clients; each is billed its tokens
 * plus one search at the catalog's $10 per 1,000, the ledger line and the request log say
 * `web_search_requests: 1`, and `/v1/models` shows the per-search and 1-hour cache-write prices.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFixture, readJsonFixture } from '../formats/stream-helpers.ts';
import { startFakeUpstream, type FakeUpstream } from '../helpers/fake-upstream.ts';
import { createFundedKey, creditsUsed } from '../helpers/funded-key.ts';
import { spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const MODEL = 'claude-sonnet-4-5';
// 6,039 × $3 + 93 × $15 per million = 19.512 credits of tokens; one search at $0.01 = 10 credits.
const TOKENS = 19.512;
const SEARCH = 10;

interface Logged {
  route: string;
  status: number;
  web_search_requests: number | null;
  cost_credits: number | null;
}

describe('web searches are charged per search (bin/gateway, fake Anthropic)', () => {
  let upstream: FakeUpstream;
  let gw: SpawnedGateway;
  let dir: string;
  let dataDir: string;
  let apiKey: string;

  const post = (route: string, body: Record<string, unknown>) =>
    fetch(`${gw.url}${route}`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }, body: JSON.stringify(body) });
  const usedCredits = () => creditsUsed(gw.url, apiKey);
  /** One request, its answer read to the end; the credits it was charged once settled. */
  const charge = async (route: string, body: Record<string, unknown>): Promise<number> => {
    const before = await usedCredits();
    const res = await post(route, body);
    const text = await res.text();
    expect(res.status, text).toBe(200);
    let spent = 0;
    await expect.poll(async () => (spent = (await usedCredits()) - before), { timeout: 5000 }).toBeGreaterThan(0);
    return spent;
  };
  const ask = [{ role: 'user', content: 'When was Node 24 released?' }];

  beforeAll(async () => {
    const answer = readJsonFixture('messages/response-web-search.json');
    const streamed = readFixture('messages/stream-web-search.sse.txt');
    upstream = await startFakeUpstream((req) => ((req.json as { stream?: boolean } | undefined)?.stream === true ? { headers: { 'content-type': 'text/event-stream' }, sse: [streamed] } : { json: answer }));
    dir = tempDir('gw-web-search-');
    dataDir = path.join(dir, 'data');
    const configFile = writeConfig(dir, {
      providers: { anthropic: { plugin: 'anthropic', apiKey: 'ant-upstream-key', baseURL: upstream.url, models: [MODEL] } },
      routing: { retry: { attempts: 1 } },
      logging: { requests: 'requests.jsonl' },
    });
    apiKey = await createFundedKey(configFile, dataDir, 'search@example.com');
    gw = await spawnGateway({ configFile, dataDir });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });

  it('charges the tokens plus one search on every route: Messages passthrough JSON and streamed, converted for Chat and Responses', async () => {
    expect(await charge('/v1/messages', { model: MODEL, max_tokens: 1024, messages: ask })).toBeCloseTo(TOKENS + SEARCH, 6);
    expect(await charge('/v1/messages', { model: MODEL, max_tokens: 1024, messages: ask, stream: true })).toBeCloseTo(TOKENS + SEARCH, 6);
    expect(await charge('/v1/chat/completions', { model: MODEL, max_tokens: 1024, messages: ask })).toBeCloseTo(TOKENS + SEARCH, 6);
    expect(await charge('/v1/chat/completions', { model: MODEL, max_tokens: 1024, messages: ask, stream: true })).toBeCloseTo(TOKENS + SEARCH, 6);
    expect(await charge('/v1/responses', { model: MODEL, input: 'When was Node 24 released?', stream: true })).toBeCloseTo(TOKENS + SEARCH, 6);
  });

  it('the ledger lines and the request log lines say web_search_requests: 1', async () => {
    const ledger = fs.readFileSync(path.join(dataDir, 'usage.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { web_search_requests?: number; cost_credits: number });
    expect(ledger).toHaveLength(5);
    for (const line of ledger) expect(line).toMatchObject({ web_search_requests: 1, cost_credits: TOKENS + SEARCH });
    let logged: Logged[] = [];
    await expect
      .poll(() => {
        const file = path.join(dir, 'requests.jsonl');
        logged = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Logged) : [];
        return logged.filter((l) => l.status === 200 && l.route !== '/v1/key').length;
      }, { timeout: 5000 })
      .toBe(5);
    for (const line of logged.filter((l) => l.status === 200 && l.route !== '/v1/key')) expect(line).toMatchObject({ web_search_requests: 1, cost_credits: TOKENS + SEARCH });
  });

  it('/v1/models shows the per-search price and the 1-hour cache-write price', async () => {
    const res = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${apiKey}` } });
    const list = ((await res.json()) as { data: Array<{ id: string; pricing: Record<string, unknown> }> }).data;
    expect(list.find((m) => m.id.endsWith(MODEL))?.pricing).toMatchObject({ prompt: '0.000003', completion: '0.000015', input_cache_write: '0.00000375', input_cache_write_1h: '0.000006', web_search: '0.01' });
  });
});
