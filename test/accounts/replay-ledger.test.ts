import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openLedgerAndReplay } from '../../src/accounts/index.ts';
import type { BilledAccount } from '../../src/billing/index.ts';
import { FileStore } from '../../src/store/file-store.ts';

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
    expect(first.report).toEqual({ entries: 7, applied: 3, appliedCredits: 8.5 });
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
});
