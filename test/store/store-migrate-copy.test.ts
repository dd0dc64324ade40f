import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countDataDir } from '../../src/store/count-data-dir.ts';
import { applyMigrations, createPool } from '../../src/store/postgres/connect.ts';
import { copyFileStore, copyLedger, countPostgresLedger, countPostgresRecords, nonEmptyTables, type LedgerLine } from '../../src/store/postgres/copy-records.ts';
import { PostgresConversationsRepo } from '../../src/store/postgres/postgres-conversations-repo.ts';
import { PostgresFilesRepo } from '../../src/store/postgres/postgres-files-repo.ts';
import { FileStore } from '../../src/store/index.ts';
import { createTestDatabase } from '../helpers/pg-database.ts';

/** The pieces of `gateway store migrate` / `store check` below the CLI (the whole command: test/e2e/store-migrate.test.ts). */
describe('countDataDir (store check on the file store, read only)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-count-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('counts live media (puts minus deletes, torn lines ignored), responses, file bytes and batch progress without opening the store', () => {
    const account = { id: 'acc_1', email: 'a@example.com', passwordHash: null, tier: 'free', credits: 12.5, monthlyTokenQuota: null, suspended: false, rpm: null, createdAt: 1 };
    fs.writeFileSync(
      path.join(dir, 'db.json'),
      JSON.stringify({
        version: 2,
        accounts: [account, { ...account, id: 'acc_2', credits: 0.25 }],
        apiKeys: [{ id: 'k1' }],
        sessions: [],
        files: [{ id: 'file-1' }, { id: 'file-2' }],
        batches: [{ id: 'batch_1' }],
      }),
    );
    fs.writeFileSync(path.join(dir, 'media.jsonl'), '{"put":{"id":"m1"}}\n{"put":{"id":"m2"}}\n{"put":{"id":"m1"}}\n{"del":"m2"}\n{"put":{"id":"m3"}}\n{"put":{"id":"m4"');
    fs.mkdirSync(path.join(dir, 'responses'));
    fs.writeFileSync(path.join(dir, 'responses', 'resp_a.json'), '{}');
    fs.writeFileSync(path.join(dir, 'responses', 'resp_b.json.tmp-1-1'), '{');
    fs.mkdirSync(path.join(dir, 'files'));
    fs.writeFileSync(path.join(dir, 'files', 'file-1'), 'abc');
    fs.writeFileSync(path.join(dir, 'files', 'file-2'), 'defgh');
    fs.mkdirSync(path.join(dir, 'batches'));
    fs.writeFileSync(path.join(dir, 'batches', 'batch_1.jsonl'), '{"index":0}\n{"index":1}\n{"index":0}\n{"ind');
    const before = fs.readFileSync(path.join(dir, 'media.jsonl'), 'utf8');
    expect(countDataDir(dir)).toEqual({
      schemaVersion: 2,
      counts: { accounts: 2, keys: 1, sessions: 0, media: 2, responses: 1, conversations: 0, files: 2, fileBytes: 8, batches: 1, batchLines: 2, credits: 12.75 },
    });
    expect(fs.readFileSync(path.join(dir, 'media.jsonl'), 'utf8')).toBe(before); // nothing cut or rewritten
  });

  it('an empty directory has schema 0 and no records; a db.json that is not JSON is one clear error', () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-count-empty-'));
    try {
      expect(countDataDir(empty).schemaVersion).toBe(0);
      expect(countDataDir(empty).counts.accounts).toBe(0);
      fs.writeFileSync(path.join(empty, 'db.json'), '{"version": 2,');
      expect(() => countDataDir(empty)).toThrow(/db\.json is not valid JSON/);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('copying into PostgreSQL', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: ReturnType<typeof createPool>;
  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url, { max: 2 });
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('a fresh database counts as empty before and after the schema is applied', async () => {
    expect(await nonEmptyTables(pool)).toEqual([]);
    expect(await countPostgresLedger(pool)).toBeNull();
    await applyMigrations(pool, db.url);
    expect(await nonEmptyTables(pool)).toEqual([]);
    expect(await countPostgresRecords(pool)).toMatchObject({ accounts: 0, keys: 0, files: 0, credits: 0 });
  });

  it('copies ledger lines as history: empty and repeated request ids get jsonl-<seq>, none is dropped; the database is then not empty', async () => {
    const line = (seq: number, requestId: string, charged: number): LedgerLine => ({
      seq,
      ts: 1_700_000_000_000 + seq,
      request_id: requestId,
      account_id: 'acc_1',
      key_id: 'key_1',
      model: 'mock/echo',
      provider: 'mock',
      endpoint: '/v1/chat/completions',
      input_tokens: 10,
      output_tokens: 5,
      reasoning_tokens: 0,
      cached_tokens: 0,
      cost_credits: charged,
      charged_credits: charged,
      estimated: false,
      aborted: false,
      ...(seq === 2 ? { media: { images: 1 }, discount: 0.1, price_multiplier: 0.5, web_search_requests: 2 } : {}),
      // A count the integer column would refuse is rounded, not a failed copy.
      ...(seq === 3 ? { web_search_requests: 1.4 } : {}),
      // The answer's fields (GET /v1/generation), and a latency the integer column would refuse: rounded.
      ...(seq === 1 ? { answer_id: 'chatcmpl-1', finish_reason: 'stop', streamed: true, latency_ms: 812 } : {}),
      ...(seq === 4 ? { latency_ms: 12.6 } : {}),
    });
    const lines = [line(1, 'req_a', 1.5), line(2, 'req_b', 0.25), line(3, 'req_a', 2), line(4, '', 0.000001)];
    const client = await pool.connect();
    try {
      await client.query('begin');
      expect(await copyLedger(client, lines)).toEqual({ entries: 4, charged: 3.750001 });
      await client.query('commit');
    } finally {
      client.release();
    }
    expect(await countPostgresLedger(pool)).toEqual({ entries: 4, charged: 3.750001 });
    const { rows } = await pool.query<{ request_id: string; media: unknown; price_multiplier: number | null; web_search_requests: number | null }>(
      'select request_id, media, price_multiplier, web_search_requests from gw_ledger order by seq',
    );
    expect(rows.map((r) => r.request_id)).toEqual(['req_a', 'req_b', 'jsonl-3', 'jsonl-4']);
    expect(rows[1]).toMatchObject({ media: { images: 1 }, price_multiplier: 0.5, web_search_requests: 2 });
    expect(rows.map((r) => r.web_search_requests)).toEqual([null, 2, 1, null]);
    const answers = await pool.query('select answer_id, finish_reason, streamed, latency_ms from gw_ledger order by seq');
    expect(answers.rows).toEqual([
      { answer_id: 'chatcmpl-1', finish_reason: 'stop', streamed: true, latency_ms: 812 },
      { answer_id: null, finish_reason: null, streamed: null, latency_ms: null },
      { answer_id: null, finish_reason: null, streamed: null, latency_ms: null },
      { answer_id: null, finish_reason: null, streamed: null, latency_ms: 13 },
    ]);
    expect(await nonEmptyTables(pool)).toEqual([{ table: 'gw_ledger', rows: 4 }]);
  });

  it('copies conversations with their items in order, metadata and owner kept, and counts them', async () => {
    await applyMigrations(pool, db.url); // applied already when the file runs whole; this test may run alone
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-copy-conv-'));
    const source = await FileStore.open(dir);
    try {
      const item = (id: string, text: string) => ({ id, item: JSON.stringify({ type: 'message', id, role: 'user', content: [{ type: 'input_text', text }] }) });
      await source.conversations.create({ id: 'conv_copy1', accountId: 'acc_c', createdAt: 5, metadata: { k: 'v' } }, [item('msg_1', 'one')]);
      await source.conversations.append('acc_c', 'conv_copy1', [item('msg_2', 'two'), item('msg_3', 'three')]);
      await source.conversations.deleteItem('acc_c', 'conv_copy1', 'msg_2');
      await source.flush();
      expect(countDataDir(dir).counts.conversations).toBe(1);
      const client = await pool.connect();
      let counts;
      try {
        await client.query('begin');
        counts = await copyFileStore(source, client);
        await client.query('commit');
      } finally {
        client.release();
      }
      expect(counts.conversations).toBe(1);
      expect((await countPostgresRecords(pool)).conversations).toBe(1);
      const copied = new PostgresConversationsRepo(pool);
      expect(await copied.get('acc_c', 'conv_copy1')).toMatchObject({ createdAt: 5, metadata: { k: 'v' }, itemCount: 2 });
      expect((await copied.items('acc_c', 'conv_copy1'))?.map((entry) => entry.id)).toEqual(['msg_1', 'msg_3']);
      expect(await copied.append('acc_c', 'conv_copy1', [item('msg_4', 'four')])).toMatchObject({ itemCount: 3 });
    } finally {
      await source.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("copies the ids of deleted files, so a conversation naming one is still the gateway's 404 after the move", async () => {
    await applyMigrations(pool, db.url);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-copy-deleted-'));
    const source = await FileStore.open(dir);
    try {
      const file = { id: 'file-copydeleted000001', accountId: 'acc_d', bytes: 1, created_at: 1, expires_at: null, filename: 'a.txt', purpose: 'user_data' };
      await source.files.create(file, Buffer.from('x'));
      expect(await source.files.delete('acc_d', file.id)).toBe(true);
      await source.flush();
      const client = await pool.connect();
      try {
        await client.query('begin');
        await copyFileStore(source, client);
        await client.query('commit');
      } finally {
        client.release();
      }
      const copied = new PostgresFilesRepo(pool);
      expect(await copied.wasDeleted('acc_d', file.id)).toBe(true);
      expect(await copied.wasDeleted('acc_other', file.id)).toBe(false);
    } finally {
      await source.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
