import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openLedgerAndReplay } from '../../../src/credits/index.ts';
import type { BilledAccount } from '../../../src/credits/index.ts';
import { FileStore } from '../../../src/store/file/file-store.ts';

function line(seq: number | undefined, account: string, charged: number): string {
  return JSON.stringify({
    ...(seq === undefined ? {} : { seq }),
    ts: Date.UTC(2026, 0, 2),
    request_id: '',
    account_id: account,
    key_id: 'k',
    model: 'mock/echo',
    provider: 'mock',
    endpoint: '/v1/chat/completions',
    input_tokens: 3,
    output_tokens: 2,
    reasoning_tokens: 0,
    cached_tokens: 0,
    cost_credits: charged,
    charged_credits: charged,
    estimated: false,
    aborted: false,
  });
}

async function accountIn(store: FileStore, id: string, credits: number, billedSeq?: number): Promise<void> {
  const record: BilledAccount = { id, email: `${id}@x.test`, passwordHash: null, tier: 'pro', credits, monthlyTokenQuota: null, suspended: false, rpm: null, createdAt: 0, ...(billedSeq ? { billedSeq } : {}) };
  await store.accounts.create(record);
}

describe('openLedgerAndReplay', () => {
  it('charges the ledger lines past each account checkpoint, once', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-replay-'));
    const store = await FileStore.open(dir);
    await accountIn(store, 'a', 100, 1);
    await accountIn(store, 'b', 50, 3);
    await accountIn(store, 'c', 10);
    fs.writeFileSync(
      path.join(dir, 'usage.jsonl'),
      [line(undefined, 'a', 99), line(1, 'a', 10), line(2, 'a', 5), line(3, 'b', 7), line(4, 'a', 2.5), line(5, 'c', 1), line(6, 'gone', 3)].join('\n') + '\n',
    );
    const first = await openLedgerAndReplay(store, dir);
    expect(first.report).toEqual({
      entries: 7,
      applied: 3,
      appliedCredits: 8.5,
      unreplayable: { count: 0, lines: [], seqs: [], credits: 0 },
      unknownAccounts: { count: 1, credits: 3 },
      gaps: [],
    });
    expect(first.ledger.lastSeq).toBe(6);
    expect(store.cache.account('a')).toMatchObject({ credits: 92.5, billedSeq: 4 });
    expect(store.cache.account('b')).toMatchObject({ credits: 50, billedSeq: 3 });
    expect(store.cache.account('c')).toMatchObject({ credits: 9, billedSeq: 5 });
    // The usage aggregates hold every line, the checkpoint notwithstanding.
    expect(first.usage.accountCredits('a')).toBe(99 + 10 + 5 + 2.5);
    await first.ledger.close();
    await store.close();

    const reopened = await FileStore.open(dir);
    const second = await openLedgerAndReplay(reopened, dir);
    expect(second.report.applied).toBe(0);
    expect(reopened.cache.account('a')?.credits).toBe(92.5);
    await second.ledger.close();
  });

  it('reports the lines missing at the end of a ledger that stops before the balances\' checkpoint (its tail lost: a power loss, a ledger cut or restored from an older copy)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-replay-'));
    const store = await FileStore.open(dir);
    // The balance holds the charges of lines up to seq 10; the ledger holds lines 1-4 only.
    await accountIn(store, 'a', 80, 10);
    fs.writeFileSync(path.join(dir, 'usage.jsonl'), [1, 2, 3, 4].map((seq) => line(seq, 'a', 2)).join('\n') + '\n');
    const { ledger, report } = await openLedgerAndReplay(store, dir);
    expect(report.applied).toBe(0);
    expect(report.gaps).toEqual([[5, 10]]);
    expect(store.cache.account('a')).toMatchObject({ credits: 80, billedSeq: 10 });
    // New lines are numbered past the checkpoint (so the next replay charges them).
    expect(ledger.lastSeq).toBe(10);
    await ledger.close();
    await store.close();
  });

  it('reports lines it cannot replay (garbage, torn), keeps them aside, and does not charge them', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-replay-'));
    const store = await FileStore.open(dir);
    await accountIn(store, 'a', 100);
    const file = path.join(dir, 'usage.jsonl');
    const garbage = '{"seq":3,"ts":1,"account_id":"a","charged_credits":4}xx{"oops';
    const notAnEntry = JSON.stringify({ seq: 4, hello: 'world', charged_credits: 2 });
    const torn = line(7, 'a', 9).slice(0, 60);
    fs.writeFileSync(file, [line(1, 'a', 1), line(2, 'a', 2), garbage, notAnEntry, line(6, 'a', 5)].join('\n') + '\n' + torn);
    const before = fs.readFileSync(file, 'utf8');

    const { ledger, report } = await openLedgerAndReplay(store, dir);
    expect(report.applied).toBe(3);
    expect(report.appliedCredits).toBe(8);
    expect(store.cache.account('a')).toMatchObject({ credits: 92, billedSeq: 6 });
    expect(report.unreplayable).toEqual({ count: 3, lines: [3, 4, -1], seqs: [3, 4, 7], credits: 6, keptIn: path.join(dir, 'usage.rejected.jsonl') });
    // Seq 5 is on no line at all: reported as missing.
    expect(report.gaps).toEqual([[5, 5]]);
    // Kept aside, raw text and where it was; the torn tail is cut from the ledger (nothing else changes).
    const kept = fs.readFileSync(path.join(dir, 'usage.rejected.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { line: number; text: string; torn: boolean });
    expect(kept.map((k) => [k.line, k.text, k.torn])).toEqual([
      [3, garbage, false],
      [4, notAnEntry, false],
      [-1, torn, true],
    ]);
    expect(fs.statSync(path.join(dir, 'usage.rejected.jsonl')).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8')).toBe(before.slice(0, before.length - torn.length));
    // The next entry continues after the last whole one, on a line of its own.
    expect(ledger.append({ ts: 1, request_id: 'r', account_id: 'a', key_id: 'k', model: 'm', provider: 'p', endpoint: '/e', input_tokens: 1, output_tokens: 1, reasoning_tokens: 0, cached_tokens: 0, cost_credits: 1, charged_credits: 1, estimated: false, aborted: false }).seq).toBe(7);
    await ledger.close();
    await store.close();

    // A second start reports the lines still in the ledger again, without copying them twice.
    const reopened = await FileStore.open(dir);
    const again = await openLedgerAndReplay(reopened, dir);
    expect(again.report.unreplayable.count).toBe(2);
    // (only the line appended above, whose debit this test never made)
    expect(again.report.applied).toBe(1);
    expect(fs.readFileSync(path.join(dir, 'usage.rejected.jsonl'), 'utf8').trim().split('\n')).toHaveLength(3);
    await again.ledger.close();
    await reopened.close();
  });

  it('numbers new lines past every account checkpoint: a power loss that kept db.json but not the ledger tail loses no later charge', async () => {
    // db.json (fsynced) says a's balance includes line 5; the ledger's lines 4 and 5 were not on the disk yet.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-replay-'));
    const store = await FileStore.open(dir);
    await accountIn(store, 'a', 100, 5);
    fs.writeFileSync(path.join(dir, 'usage.jsonl'), [line(1, 'a', 1), line(2, 'a', 1), line(3, 'a', 1)].join('\n') + '\n');
    const first = await openLedgerAndReplay(store, dir);
    const next = first.ledger.append({ ts: 1, request_id: 'r', account_id: 'a', key_id: 'k', model: 'm', provider: 'p', endpoint: '/e', input_tokens: 1, output_tokens: 1, reasoning_tokens: 0, cached_tokens: 0, cost_credits: 7, charged_credits: 7, estimated: false, aborted: false });
    expect(next.seq).toBe(6);
    // A crash before its debit reached db.json: the next start must charge it.
    await first.ledger.close();
    await store.close();
    const reopened = await FileStore.open(dir);
    const again = await openLedgerAndReplay(reopened, dir);
    expect(again.report).toMatchObject({ applied: 1, appliedCredits: 7 });
    expect(reopened.cache.account('a')).toMatchObject({ credits: 93, billedSeq: 6 });
    await again.ledger.close();
    await reopened.close();
  });
});
