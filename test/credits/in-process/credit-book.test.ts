import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { CreditBook, type BilledAccount } from '../../../src/credits/index.ts';
import { GatewayError } from '../../../src/errors/index.ts';
import { FileStore } from '../../../src/store/file/file-store.ts';

let store: FileStore;
let book: CreditBook;

async function account(credits: number): Promise<string> {
  const id = `acct_${Math.random().toString(36).slice(2)}`;
  await store.accounts.create({ id, email: `${id}@x.test`, passwordHash: null, tier: 'pro', credits, monthlyTokenQuota: null, suspended: false, rpm: null, createdAt: 0 });
  return id;
}

beforeEach(async () => {
  store = await FileStore.open(fs.mkdtempSync(path.join(os.tmpdir(), 'gw-book-')));
  book = new CreditBook(store);
});

describe('CreditBook', () => {
  it('holds reservations against the balance and refuses with 402 details when they would overspend', async () => {
    const id = await account(100);
    const a = book.reserve(id, 60, 10);
    expect(book.reserved(id)).toBe(60);
    expect(book.tokensInFlight(id)).toBe(10);
    let error: GatewayError | undefined;
    try {
      book.reserve(id, 50, 10);
    } catch (e) {
      error = e as GatewayError;
    }
    expect(error?.code).toBe('insufficient_balance');
    expect(error?.status).toBe(402);
    expect(error?.details).toEqual({ required: 50, balance: 100, reserved: 60, available: 40, unit: 'credits' });
    book.release(a);
    book.release(a);
    expect(book.reserved(id)).toBe(0);
    expect(book.reserve(id, 100, 0).credits).toBe(100);
  });

  it('holds anything when not enforcing, and free requests always', async () => {
    const id = await account(0);
    expect(() => book.reserve(id, 0, 5)).not.toThrow();
    expect(() => book.reserve(id, 10, 5)).toThrow(GatewayError);
    expect(() => book.reserve(id, 10, 5, false)).not.toThrow();
  });

  it('charges at most what others have not reserved, so the balance never goes below zero', async () => {
    const id = await account(100);
    const mine = book.reserve(id, 30, 0);
    book.reserve(id, 50, 0);
    expect(book.chargeable(mine, 20)).toBe(20);
    expect(book.chargeable(mine, 80)).toBe(50); // 100 - 50 held by the other request
    expect(book.chargeable(mine, 80, false)).toBe(80);
  });

  it('debits the balance and moves the ledger checkpoint forward only', async () => {
    const id = await account(100);
    book.debit(id, 12.5, 7);
    expect(store.cache.account(id)?.credits).toBe(87.5);
    expect((store.cache.account(id) as BilledAccount).billedSeq).toBe(7);
    book.debit(id, 0.5, 3);
    expect(store.cache.account(id)?.credits).toBe(87);
    expect((store.cache.account(id) as BilledAccount).billedSeq).toBe(7);
    book.debit('missing', 1, 1);
  });
});
