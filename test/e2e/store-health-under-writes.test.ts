/**
 * Issue 14, part 2: no store write may stall the server. The store holds twelve Media Libraries
 * at their 8 MiB budget (~100 MB) and a db.json of 5,000 accounts; a client writes the largest
 * records the API accepts into one of them as fast as it can (create, PATCH to the most URLs,
 * delete the oldest to make room), from its own process; meanwhile GET /health is timed back
 * to back. The old store rewrote one db.json of everything on the event loop (100 MB: over a
 * second per write; the issue saw p99 go from 28 ms to 1,540 ms). Here p99 must stay within 50 ms
 * of the idle p99 measured just before in the same run (on an idle machine: under ~55 ms; on a
 * machine loaded by other work the idle p99 alone can pass 100 ms, so a fixed bound measured
 * the machine, not the store).
 */
import { execa } from 'execa';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/util/secrets.ts';
import { fillDataDir } from '../helpers/fill-data-dir.ts';
import { REPO_ROOT, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const running: SpawnedGateway[] = [];
afterAll(async () => {
  for (const g of running) await g.kill();
});

/** Accounts whose Media Library is at its budget; the first one is written to. */
const FULL_ACCOUNTS = 12;
const WRITING_ACCOUNTS = 1;
const SECONDS = 8;

async function healthLatencies(url: string, until: () => boolean): Promise<number[]> {
  const out: number[] = [];
  while (!until()) {
    const start = performance.now();
    const res = await fetch(`${url}/health`);
    await res.arrayBuffer();
    out.push(performance.now() - start);
    await new Promise((r) => setTimeout(r, 2));
  }
  return out;
}

function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length * 0.99)];
}

describe('the store under the largest writes the API accepts', () => {
  it('GET /health p99 stays within 50 ms of its idle p99 while an account at its Media Library budget keeps writing max-size records (12 libraries full)', async () => {
    const dir = tempDir();
    const dataDir = path.join(dir, 'data');
    fillDataDir(dataDir, { accounts: 5_000, keysPerAccount: 2, sessionsPerAccount: 1, mediaAccounts: FULL_ACCOUNTS, mediaPerAccount: 76, passwordHash: await hashPassword('writer password') });
    const configFile = writeConfig(dir, { providers: { mock: { plugin: 'mock' } } });
    const g = await spawnGateway({ configFile, dataDir, env: process.env.STORE_DIAG_PRELOAD ? { NODE_OPTIONS: `--require ${process.env.STORE_DIAG_PRELOAD}` } : {} });
    running.push(g);
    const tokens: string[] = [];
    for (let i = 0; i < WRITING_ACCOUNTS; i++) {
      const res = await fetch(`${g.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: `fill${i}@example.test`, password: 'writer password' }) });
      expect(res.status).toBe(200);
      tokens.push(((await res.json()) as { token: string }).token);
    }
    const idle = await healthLatencies(g.url, ((end) => () => performance.now() > end)(performance.now() + 2_000));

    // The writers get their own process: their work must not delay the timing done here.
    const writer = execa(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'test/helpers/media-writer.ts'), g.url, String(SECONDS), ...tokens], { cwd: REPO_ROOT, reject: false });
    let writing = true;
    void writer.finally(() => (writing = false));
    await new Promise((r) => setTimeout(r, 500)); // the writers list their accounts' records first
    const loaded = await healthLatencies(g.url, () => !writing);
    const result = await writer;
    const written = JSON.parse(String(result.stdout)) as { rounds: number; bytes: number; full: number; failures: Record<string, number> };

    const summary = `idle p99 ${p99(idle).toFixed(1)} ms; under writes p99 ${p99(loaded).toFixed(1)} ms over ${loaded.length} requests; ${written.rounds} max-size records written (${(written.bytes / 2 ** 20).toFixed(0)} MB)`;
    console.log(`store under max-size writes: ${summary}`);
    expect(written.failures, summary).toEqual({});
    expect(written.full, summary).toBeGreaterThan(0); // the accounts were at their budget
    expect(written.rounds, summary).toBeGreaterThan(20);
    expect(loaded.length, summary).toBeGreaterThan(500);
    expect(p99(loaded), summary).toBeLessThan(p99(idle) + 50);
    expect(await g.stop()).toBe(0);
  }, 90_000);
});
