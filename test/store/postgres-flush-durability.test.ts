import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresCreditsRepo } from '../../src/store/postgres/postgres-credits-repo.ts';
import { PostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { createTestDatabase } from '../helpers/pg-database.ts';

/** A pool that records what each statement was sent with. */
function recordingPool(): { pool: pg.Pool; sent: Array<{ name?: string; values?: unknown[] }> } {
  const sent: Array<{ name?: string; values?: unknown[] }> = [];
  const pool = { query: async (config: { name?: string; values?: unknown[] }) => (sent.push(config), { rows: [] }) } as unknown as pg.Pool;
  return { pool, sent };
}

const line = {
  entry: { ts: 0, request_id: 'req_1', account_id: 'acct_1', key_id: 'key_1', model: 'mock/echo', provider: 'mock', endpoint: '/v1/chat/completions', input_tokens: 1, output_tokens: 1, reasoning_tokens: 0, cached_tokens: 0, cost_credits: 1, charged_credits: 1, estimated: false, aborted: false },
  periods: { day: '1970-01-01', week: '1969-12-29', month: '1970-01' },
};

describe('outbox flushes and settlements wait for the WAL flush unless store.synchronousCommit is false', () => {
  it('by default every flush and settlement asks for a synchronous commit (the outbox forgets lines once a flush returns)', async () => {
    const { pool, sent } = recordingPool();
    const repo = new PostgresCreditsRepo(pool, 'inst_1');
    await repo.flush([line], true);
    await repo.settle({ entry: line.entry, enforce: true, periods: line.periods }).catch(() => undefined);
    await repo.settleMany([{ entry: line.entry, enforce: true, periods: line.periods }, { entry: { ...line.entry, request_id: 'req_2' }, enforce: true, periods: line.periods }]).catch(() => undefined);
    expect(sent.map((s) => [s.name, s.values?.at(-1)])).toEqual([
      ['gw_flush_set', true],
      ['gw_settle', true],
      ['gw_settle_many', true],
    ]);
  });

  it('store.synchronousCommit: false sends them without waiting', async () => {
    const { pool, sent } = recordingPool();
    await new PostgresCreditsRepo(pool, 'inst_1', false).flush([line], true);
    expect(sent[0].values?.at(-1)).toBe(false);
  });

  it('a PostgreSQL store opened without the option flushes synchronously', async () => {
    const db = await createTestDatabase();
    const store = await PostgresStore.open(db.url);
    try {
      expect((store.credits as unknown as { synchronousCommit: boolean }).synchronousCommit).toBe(true);
    } finally {
      await store.close();
      await db.drop();
    }
  });
});
