import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const running: SpawnedGateway[] = [];
afterAll(async () => {
  for (const g of running) await g.kill();
});

/** 1 credit per input and per output token; streams slowly enough to be cut. */
const CONFIG = { providers: { mock: { plugin: 'mock', chunkDelayMs: 5, models: [{ id: 'echo', pricing: { input: 1000, output: 1000 } }] } } };

async function credits(g: SpawnedGateway, key: string): Promise<{ balance: number; total_used: number }> {
  const res = await fetch(`${g.url}/v1/credits`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { credits: { balance: number; total_used: number } } }).data.credits;
}

async function chat(g: SpawnedGateway, key: string, content: string, stream = false): Promise<void> {
  const res = await fetch(`${g.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock/echo', messages: [{ role: 'user', content }], max_tokens: 64, stream }),
  });
  expect(res.status).toBe(200);
  await res.text();
}

describe('usage ledger durability', () => {
  it('a kill -9 loses no settled charge: balance, usage and activity come back from the ledger', async () => {
    const dir = tempDir();
    const dataDir = path.join(dir, 'data');
    const configFile = writeConfig(dir, CONFIG);
    const cli = (args: string[]) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
    expect((await cli(['accounts', 'create', '--email', 'crash@example.com', '--credits', '100000', '--tier', 'enterprise'])).exitCode).toBe(0);
    const created = await cli(['keys', 'create', '--account', 'crash@example.com', '--json']);
    const key = (JSON.parse(String(created.stdout)) as { key: string }).key;

    const first = await spawnGateway({ configFile, dataDir });
    running.push(first);
    const requests = 24;
    await Promise.all(Array.from({ length: requests }, (_, i) => chat(first, key, `message number ${i} `.repeat(1 + (i % 4)), i % 3 === 0)));
    const before = await credits(first, key);
    expect(before.total_used).toBeGreaterThan(0);
    expect(before.balance).toBe(100000 - before.total_used);
    // Charges go to the store in batches; kill before the batch is written.
    await chat(first, key, 'the very last one');
    const expected = await credits(first, key);
    await first.kill();

    const snapshot = JSON.parse(fs.readFileSync(path.join(dataDir, 'db.json'), 'utf8')) as { accounts: Array<{ email: string; credits: number }> };
    const stale = snapshot.accounts.find((a) => a.email === 'crash@example.com')!.credits !== expected.balance;

    const second = await spawnGateway({ configFile, dataDir });
    running.push(second);
    expect(second.key).toBeUndefined();
    expect(await credits(second, key)).toEqual(expected);
    if (stale) expect(second.stderr()).toContain('usage ledger replayed');

    const activity = await fetch(`${second.url}/v1/activity`, { headers: { authorization: `Bearer ${key}` } });
    const rows = ((await activity.json()) as { data: Array<{ requests: number; usage_credits: number }> }).data;
    expect(rows.reduce((n, r) => n + r.requests, 0)).toBe(requests + 1);
    expect(rows.reduce((n, r) => n + r.usage_credits, 0)).toBeCloseTo(expected.total_used, 6);

    // New charges continue the ledger; a second crash and restart still agree.
    await chat(second, key, 'after the restart');
    const later = await credits(second, key);
    expect(later.balance).toBeLessThan(expected.balance);
    await second.kill();
    const third = await spawnGateway({ configFile, dataDir });
    running.push(third);
    expect(await credits(third, key)).toEqual(later);
    const seqs = fs.readFileSync(path.join(dataDir, 'usage.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { seq: number }).seq);
    expect(seqs).toEqual(Array.from({ length: requests + 2 }, (_, i) => i + 1));

    // The CLI reads the same numbers through the running server.
    const usage = await cli(['usage', '--account', 'crash@example.com', '--json']);
    expect(usage.exitCode).toBe(0);
    const report = JSON.parse(String(usage.stdout)) as { accounts: Array<{ balance: number; requests: number }> };
    expect(report.accounts[0]).toMatchObject({ balance: later.balance, requests: requests + 2 });
    await third.stop();
  }, 60_000);
});
