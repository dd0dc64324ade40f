/**
 * The usage ledger's group commit (`billing.ledgerGroupMs`, docs/billing.md): lines of
 * requests that settle together share one write(2); no client sees the end of its answer
 * before its line is in the kernel; the window is at most 2 ms.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../src/config/index.ts';
import { readLedger, UsageLedger } from '../../src/store/index.ts';
import { makeGateway, post, type TestGateway } from '../accounts/make-gateway.ts';
import { spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

let gw: TestGateway | undefined;
let spawned: SpawnedGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
  await spawned?.stop();
  spawned = undefined;
});

/** Mock answers after 30 ms: requests sent together settle together. */
const SLOW_MOCK = { providers: { mock: { plugin: 'mock', latencyMs: 30, models: [{ id: 'echo', pricing: { input: 1000, output: 1000 } }] } } };
const chat = (key: string, stream = false) => post({ model: 'mock/echo', messages: [{ role: 'user', content: 'hello' }], max_tokens: 8, ...(stream ? { stream: true } : {}) }, key);

/** The write(2) calls that carried ledger lines, each as its number of lines. */
function ledgerWrites(writes: { mock: { calls: unknown[][] } }): number[] {
  return writes.mock.calls
    .map((call) => call[1])
    .filter((bytes): bytes is Buffer => Buffer.isBuffer(bytes) && bytes.includes('"request_id"'))
    .map((bytes) => bytes.toString('utf8').split('\n').filter(Boolean).length);
}

/** Sends `n` chat requests at once (half of them streamed) and reads every answer to its end. */
async function burst(t: TestGateway, key: string, n: number): Promise<void> {
  const answers = await Promise.all(Array.from({ length: n }, (_, i) => t.fetch('/v1/chat/completions', chat(key, i % 2 === 1))));
  for (const res of answers) expect(res.status).toBe(200);
  await Promise.all(answers.map((res) => res.text()));
}

describe('ledger group commit: requests that settle together share one write', () => {
  it('writes the lines of concurrent requests in fewer write(2) calls than lines, every line once and in seq order', async () => {
    gw = await makeGateway({ ...SLOW_MOCK, billing: { ledgerGroupMs: 2 } });
    const { key } = await gw.account({ credits: 1_000_000 });
    const writes = vi.spyOn(fs, 'writeSync');
    try {
      await burst(gw, key, 12);
      const perWrite = ledgerWrites(writes);
      expect(perWrite.reduce((a, b) => a + b, 0)).toBe(12);
      expect(perWrite.length).toBeLessThan(12);
      expect(Math.max(...perWrite)).toBeGreaterThan(1);
    } finally {
      writes.mockRestore();
    }
    const lines = readLedger(path.join(gw.dataDir, 'usage.jsonl'));
    expect(lines.map((l) => l.seq)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(new Set(lines.map((l) => l.request_id)).size).toBe(12);
  });

  it('with ledgerGroupMs 0 every line is its own write (the same burst)', async () => {
    gw = await makeGateway({ ...SLOW_MOCK, billing: { ledgerGroupMs: 0 } });
    const { key } = await gw.account({ credits: 1_000_000 });
    const writes = vi.spyOn(fs, 'writeSync');
    try {
      await burst(gw, key, 12);
      expect(ledgerWrites(writes)).toEqual(Array.from({ length: 12 }, () => 1));
    } finally {
      writes.mockRestore();
    }
  });
});

describe('ledger group commit: durability', () => {
  it('over HTTP, no client gets the end of its answer (JSON or stream) before its ledger line is in the file', async () => {
    spawned = await spawnGateway({ config: { ...SLOW_MOCK, billing: { ledgerGroupMs: 2 }, logging: { level: 'error' } } });
    const ledgerFile = path.join(spawned.dataDir, 'usage.jsonl');
    const { url, key } = spawned;
    const missing: string[] = [];
    const oneRequest = async (stream: boolean): Promise<string> => {
      const init = chat(key!, stream);
      const res = await fetch(`${url}/v1/chat/completions`, init);
      expect(res.status).toBe(200);
      const requestId = res.headers.get('x-request-id')!;
      await res.arrayBuffer();
      // The answer has ended: its line must already be in the kernel (readable by anyone).
      const text = fs.readFileSync(ledgerFile, 'utf8');
      if (!text.includes(`"request_id":${JSON.stringify(requestId)}`)) missing.push(`${stream ? 'stream' : 'json'} ${requestId}`);
      return requestId;
    };
    // Three waves of 16 concurrent requests (half streamed), so lines really wait in groups.
    const ids: string[] = [];
    for (let wave = 0; wave < 3; wave += 1) ids.push(...(await Promise.all(Array.from({ length: 16 }, (_, i) => oneRequest(i % 2 === 0)))));
    expect(missing).toEqual([]);
    const lines = readLedger(ledgerFile);
    expect(lines).toHaveLength(48);
    expect(new Set(lines.map((l) => l.request_id))).toEqual(new Set(ids));
  });
});

describe('ledger group commit: the window is bounded', () => {
  it('billing.ledgerGroupMs accepts 0 to 2 ms and refuses more (or less)', () => {
    expect(parseConfig({ billing: { ledgerGroupMs: 2 } }).billing.ledgerGroupMs).toBe(2);
    expect(parseConfig({ billing: { ledgerGroupMs: 0 } }).billing.ledgerGroupMs).toBe(0);
    expect(parseConfig({ billing: { ledgerGroupMs: 0.5 } }).billing.ledgerGroupMs).toBe(0.5);
    expect(parseConfig({}).billing.ledgerGroupMs).toBe(2);
    for (const bad of [2.01, 3, 1000, -1, Number.POSITIVE_INFINITY]) expect(() => parseConfig({ billing: { ledgerGroupMs: bad } }), String(bad)).toThrow(/ledgerGroupMs/);
    expect(() => parseConfig({ billing: { ledgerGroupMs: '2' } })).toThrow(/ledgerGroupMs/);
  });

  it('the ledger itself never waits longer than 2 ms, whatever it is given', async () => {
    const ledger = UsageLedger.open(tempDir('gw-ledger-'), { groupCommitMs: 60_000 });
    try {
      expect(ledger.groupCommitMs).toBe(2);
      const entry = { ts: Date.now(), request_id: 'req_a', account_id: 'acc', key_id: 'key', model: 'mock/echo', provider: 'mock', endpoint: '/v1/chat/completions', input_tokens: 1, output_tokens: 1, reasoning_tokens: 0, cached_tokens: 0, cost_credits: 0, charged_credits: 0, estimated: false, aborted: false };
      const { written } = ledger.appendToGroup(entry, false);
      expect(written).toBeInstanceOf(Promise);
      // A lone waiting line is written by the group's own timer (2 ms), not left for a later caller.
      await written;
      expect(readLedger(ledger.file)).toHaveLength(1);
    } finally {
      await ledger.close();
    }
  });
});
