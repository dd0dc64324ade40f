/**
 * Grounding with Google Search is charged through the real CLI: the `google` plugin (AI Studio)
 * against the strict Gemini fake, whose text answers to a request with the Google Search tool
 * are grounded by two queries. Google bills Gemini 2.x per grounded prompt ($35 per 1,000) and
 * Gemini 3 per search query ($14 per 1,000), so gemini-2.5-flash is charged one search (35
 * credits) and gemini-3-flash-preview two (2 × 14 credits) on top of the same request's tokens:
 * through the Gemini passthrough (JSON, SSE and JSON-array streams) and converted for Chat (JSON
 * and streamed) and Responses (streamed). The ledger lines and the request log say how many;
 * `/v1/models` shows the per-search price.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGeminiFake, type GeminiFake } from '../helpers/fake-gemini.ts';
import { createFundedKey, creditsUsed } from '../helpers/funded-key.ts';
import { spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const PER_PROMPT = 'gemini-2.5-flash';
const PER_QUERY = 'gemini-3-flash-preview';
const QUERIES = ['UEFA Euro 2024 winner', 'who won euro 2024'];
/** Credits of the searches one grounded answer is charged: one prompt at $0.035; two queries at $0.014. */
const SEARCHES: Record<string, { count: number; credits: number }> = { [PER_PROMPT]: { count: 1, credits: 35 }, [PER_QUERY]: { count: 2, credits: 28 } };

interface Line {
  model?: string;
  route?: string;
  status?: number;
  web_search_requests?: number | null;
  cost_credits: number | null;
}

describe('Gemini grounding is charged as Google bills it (bin/gateway, Gemini fake)', () => {
  let gemini: GeminiFake;
  let gw: SpawnedGateway;
  let dir: string;
  let dataDir: string;
  let apiKey: string;

  const usedCredits = () => creditsUsed(gw.url, apiKey);
  /** One request, its answer read to the end; the credits it was charged once settled. */
  const charge = async (route: string, body: Record<string, unknown>): Promise<number> => {
    const before = await usedCredits();
    const res = await fetch(`${gw.url}${route}`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'x-goog-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    let spent = 0;
    await expect.poll(async () => (spent = (await usedCredits()) - before), { timeout: 5000 }).toBeGreaterThan(0);
    return spent;
  };
  const ask = 'Who won Euro 2024?';
  const geminiBody = { contents: [{ role: 'user', parts: [{ text: ask }] }], tools: [{ google_search: {} }] };
  const chatBody = (model: string, stream: boolean) => ({ model, messages: [{ role: 'user', content: ask }], web_search_options: {}, stream });

  beforeAll(async () => {
    gemini = await startGeminiFake({
      models: { [PER_PROMPT]: { thinking: true, gemini3: false }, [PER_QUERY]: { thinking: true, gemini3: true } },
      apiKey: 'goog-upstream-key',
      finalText: 'Spain won Euro 2024, defeating England 2-1 in the final.',
      searchQueries: QUERIES,
    });
    dir = tempDir('gw-grounding-');
    dataDir = path.join(dir, 'data');
    const configFile = writeConfig(dir, {
      providers: { google: { plugin: 'google', apiKey: 'goog-upstream-key', baseURL: gemini.url, models: [PER_PROMPT, PER_QUERY] } },
      routing: { retry: { attempts: 1 } },
      logging: { requests: 'requests.jsonl' },
    });
    apiKey = await createFundedKey(configFile, dataDir, 'grounding@example.com');
    gw = await spawnGateway({ configFile, dataDir });
  }, 60_000);
  afterAll(async () => {
    await gw?.stop();
    await gemini?.close();
  });

  for (const model of [PER_PROMPT, PER_QUERY]) {
    it(`${model}: the tokens plus ${SEARCHES[model].count} search(es) on every route, passthrough and converted`, async () => {
      const tokens = await charge('/v1/chat/completions', { model, messages: [{ role: 'user', content: ask }] });
      const expected = tokens + SEARCHES[model].credits;
      const upstream = `/v1beta/models/${model}`;
      expect(await charge(`${upstream}:generateContent`, geminiBody)).toBeCloseTo(expected, 6);
      expect(await charge(`${upstream}:streamGenerateContent?alt=sse`, geminiBody)).toBeCloseTo(expected, 6);
      expect(await charge(`${upstream}:streamGenerateContent`, geminiBody)).toBeCloseTo(expected, 6);
      expect(await charge('/v1/chat/completions', chatBody(model, false))).toBeCloseTo(expected, 6);
      expect(await charge('/v1/chat/completions', chatBody(model, true))).toBeCloseTo(expected, 6);
      expect(await charge('/v1/responses', { model, input: ask, tools: [{ type: 'web_search' }], stream: true })).toBeCloseTo(expected, 6);
      const grounded = gemini.requests.filter((r) => JSON.stringify(r.json?.tools ?? []).match(/google_?[sS]earch/) && r.path.startsWith(upstream));
      expect(grounded).toHaveLength(6);
      expect(gemini.rejections).toEqual([]);
    });
  }

  it('the ledger lines and the request log say how many searches each grounded answer was charged', async () => {
    const ledger = fs.readFileSync(path.join(dataDir, 'usage.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Line);
    expect(ledger).toHaveLength(14);
    expect(ledger.filter((l) => l.web_search_requests === 1)).toHaveLength(6);
    expect(ledger.filter((l) => l.web_search_requests === 2)).toHaveLength(6);
    expect(ledger.filter((l) => l.web_search_requests === undefined)).toHaveLength(2);
    let logged: Line[] = [];
    await expect
      .poll(() => {
        const file = path.join(dir, 'requests.jsonl');
        logged = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line) : [];
        return logged.filter((l) => l.status === 200 && l.route !== '/v1/key').length;
      }, { timeout: 5000 })
      .toBe(14);
    const searches = logged.filter((l) => l.status === 200 && l.route !== '/v1/key').map((l) => l.web_search_requests);
    expect(searches.filter((n) => n === 1)).toHaveLength(6);
    expect(searches.filter((n) => n === 2)).toHaveLength(6);
    expect(searches.filter((n) => n === null)).toHaveLength(2);
  });

  it('/v1/models shows the per-search prices', async () => {
    const res = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${apiKey}` } });
    const list = ((await res.json()) as { data: Array<{ id: string; pricing: Record<string, unknown> }> }).data;
    expect(list.find((m) => m.id.endsWith(PER_PROMPT))?.pricing).toMatchObject({ web_search: '0.035' });
    expect(list.find((m) => m.id.endsWith(PER_QUERY))?.pricing).toMatchObject({ web_search: '0.014' });
  });
});
