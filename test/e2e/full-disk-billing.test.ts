/**
 * No answer without its record (issue 27 §2), from outside: the data dir on a small tmpfs
 * (mounted here; CI runs as root), filled up while the gateway serves. No billed request answers
 * 200 without its usage ledger line, /v1/responses never names an id it did not store, billed
 * routes answer 503 service_unavailable naming storage and /health says so; once space returns
 * the gateway serves again by itself, and after a restart the balance drop equals the ledger sum.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readLedger } from '../../src/store/index.ts';
import { creditsOf, PER_TOKEN } from '../helpers/credit-holds.ts';
import { connectTestDatabase, type TestDatabaseWithClient } from '../helpers/pg-database.ts';
import { fillUntilFull } from '../helpers/fill-until-full.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const mountPoint = tempDir('gw-fulldisk-mnt-');
let mounted = false;
let gw: SpawnedGateway | undefined;
let db: TestDatabaseWithClient | undefined;

afterAll(async () => {
  await gw?.kill();
  if (mounted) execFileSync('umount', ['-l', mountPoint]);
  await db?.drop();
});

/** The database's ledger, as the file's lines. */
async function ledgerRows(database: TestDatabaseWithClient): Promise<Array<{ request_id: string; charged_credits: number }>> {
  const { rows } = await database.sql.query<{ request_id: string; charged_credits: string }>('select request_id, charged_credits from gw_ledger');
  return rows.map((r) => ({ request_id: r.request_id, charged_credits: Number(r.charged_credits) }));
}

interface Outcome {
  status: number;
  requestId: string | null;
  code?: string;
  message?: string;
  id?: string;
}

async function call(url: string, key: string, route: 'chat' | 'responses', stream = false): Promise<Outcome> {
  const body = route === 'chat' ? { model: 'mock/echo', messages: [{ role: 'user', content: 'hello there' }], max_tokens: 8 } : { model: 'mock/echo', input: 'hello there', max_output_tokens: 8 };
  const res = await fetch(`${url}/v1/${route === 'chat' ? 'chat/completions' : 'responses'}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, ...(stream ? { stream: true } : {}) }),
  });
  const text = await res.text().catch(() => '(cut)');
  if (stream && res.status === 200) return { status: res.status, requestId: res.headers.get('x-request-id'), code: text.includes('[DONE]') || text.includes('response.completed') ? undefined : 'cut' };
  const parsed = JSON.parse(text) as { id?: string; error?: { code: string; message: string } };
  return { status: res.status, requestId: res.headers.get('x-request-id'), code: parsed.error?.code, message: parsed.error?.message, id: parsed.id };
}

describe.each(['file', 'postgres'] as const)('billing on a full disk, %s store (real CLI, data dir on a small tmpfs)', (store) => {
  it('no 200 without its ledger line; 503 naming storage while full; recovers by itself; balance drop = ledger sum after restart', async () => {
    if (!mounted) execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mountPoint]);
    mounted = true;
    const dir = tempDir('gw-fulldisk-');
    const dataDir = path.join(mountPoint, store);
    if (store === 'postgres') db = await connectTestDatabase();
    const configFile = writeConfig(dir, { ...(db && store === 'postgres' ? { store: { postgres: db.url } } : {}), providers: { mock: { plugin: 'mock', models: [{ id: 'echo', pricing: PER_TOKEN }] } } });
    const credit = 100_000;
    const cli = (args: string[]) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
    expect((await cli(['accounts', 'create', '--email', 'disk@example.test', '--credits', String(credit), '--tier', 'enterprise'])).exitCode).toBe(0);
    const { key } = JSON.parse(String((await cli(['keys', 'create', '--account', 'disk@example.test', '--json'])).stdout)) as { key: string };
    gw = await spawnGateway({ configFile, dataDir });
    const url = gw.url;
    const outcomes: Outcome[] = [];
    for (let i = 0; i < 5; i++) outcomes.push(await call(url, key, 'chat'));
    expect(outcomes.map((o) => o.status)).toEqual([200, 200, 200, 200, 200]);

    fillUntilFull(path.join(mountPoint, 'filler'));
    // While full: every billed request either has its line (200) or fails; never a 200 without its record.
    const full = await Promise.all([
      ...Array.from({ length: 20 }, () => call(url, key, 'chat')),
      ...Array.from({ length: 10 }, () => call(url, key, 'chat', true)),
      ...Array.from({ length: 10 }, () => call(url, key, 'responses')),
    ]);
    outcomes.push(...full);
    for (let i = 0; i < 10; i++) outcomes.push(await call(url, key, i % 2 ? 'responses' : 'chat'));
    const refused = outcomes.filter((o) => o.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    for (const o of refused) {
      expect(o.code).toBe('service_unavailable');
      expect(o.message).toMatch(/storage/i);
    }
    expect(new Set(outcomes.map((o) => o.status))).toEqual(new Set([200, 503]));
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(503);
    expect(((await health.json()) as { storage: { writable: boolean; error: string } }).storage).toMatchObject({ writable: false, error: expect.stringContaining('ENOSPC') });
    // A stored Response named in an answer is stored.
    for (const o of outcomes.filter((x) => x.status === 200 && x.id?.startsWith('resp_'))) {
      expect((await fetch(`${url}/v1/responses/${o.id}`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    }

    // Space returns: the gateway serves again by itself.
    fs.rmSync(path.join(mountPoint, 'filler'));
    await expect.poll(async () => (await fetch(`${url}/health`)).status, { timeout: 10_000, interval: 100 }).toBe(200);
    const after = await call(url, key, 'chat');
    expect(after.status).toBe(200);
    outcomes.push(after);
    await gw.stop();

    const lines = store === 'file' ? readLedger(path.join(dataDir, 'usage.jsonl')) : await ledgerRows(db!);
    const billed = new Set(lines.map((l) => l.request_id));
    for (const o of outcomes.filter((x) => x.status === 200 && x.code !== 'cut')) expect(billed.has(o.requestId!), `200 ${o.requestId} has its ledger line`).toBe(true);
    gw = await spawnGateway({ configFile, dataDir });
    const balance = await creditsOf(gw.url, key);
    expect(credit - balance).toBeCloseTo(lines.reduce((n, l) => n + l.charged_credits, 0), 6);
    await gw.stop();
    gw = undefined;
  }, 120_000);
});
