/**
 * The dashboard's Usage page over 1,000,000 ledger lines (issue 25: ≤ 300 ms a page): the file
 * store's `usage.jsonl` read backwards (readLedgerPage) and PostgreSQL's `gw_ledger`
 * (PostgresCreditsRepo.recentLedger). Run by hand: `node --import tsx bench/usage-paging-bench.ts`.
 * Prints the time of the first page, of 20 pages followed by cursor, of a page from the middle,
 * and of a rare account's first page (one line in a thousand), for each store.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { applyMigrations, createPool } from '../src/store/postgres/index.ts';
import { PostgresCreditsRepo } from '../src/store/postgres/postgres-credits-repo.ts';
import { readLedgerPage } from '../src/store/index.ts';
import { createTestDatabase } from '../test/helpers/pg-database.ts';

const LINES = Number(process.env.LINES ?? 1_000_000);
const PAGE = 50;
const MAIN = 'acct_main';
const RARE = 'acct_rare';
const START = Date.UTC(2026, 10, 1);

function line(i: number): string {
  const account = i % 1000 === 0 ? RARE : MAIN;
  return JSON.stringify({ seq: i + 1, ts: START + i * 2000, request_id: `req_${i}`, account_id: account, key_id: 'key_1', model: i % 3 ? 'mock/echo' : 'openai/gpt-4.1', provider: 'mock', endpoint: '/v1/chat/completions', input_tokens: 120, output_tokens: 480, reasoning_tokens: 0, cached_tokens: 0, cost_credits: 1.25, charged_credits: 1.25, estimated: false, aborted: false });
}

async function time<T>(run: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const value = await run();
  return [value, performance.now() - t0];
}

type Pager = (account: string, cursor: string | undefined) => Promise<{ count: number; next: string | null }>;

async function measure(name: string, pager: Pager, middle: string): Promise<void> {
  await pager(MAIN, undefined); // warm the page cache / the plan
  const [, first] = await time(() => pager(MAIN, undefined));
  const times: number[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 20; i++) {
    const [page, ms] = await time(() => pager(MAIN, cursor));
    times.push(ms);
    cursor = page.next ?? undefined;
  }
  const [, mid] = await time(() => pager(MAIN, middle));
  const [rare, rareMs] = await time(() => pager(RARE, undefined));
  times.sort((a, b) => a - b);
  console.log(
    `${name.padEnd(10)} first page ${first.toFixed(1)} ms · 20 pages by cursor: median ${times[10].toFixed(1)} ms, max ${times[19].toFixed(1)} ms · middle page ${mid.toFixed(1)} ms · rare account's first page ${rareMs.toFixed(1)} ms (${rare.count} rows)`,
  );
}

async function fileStore(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-usage-bench-'));
  const file = path.join(dir, 'usage.jsonl');
  const out = fs.openSync(file, 'w');
  let offsetMiddle = 0;
  let chunk: string[] = [];
  let written = 0;
  for (let i = 0; i < LINES; i++) {
    chunk.push(line(i));
    if (chunk.length === 10_000 || i === LINES - 1) {
      const text = chunk.join('\n') + '\n';
      fs.writeSync(out, text);
      written += Buffer.byteLength(text);
      chunk = [];
      if (i < LINES / 2) offsetMiddle = written;
    }
  }
  fs.closeSync(out);
  console.log(`file store: ${LINES.toLocaleString()} lines, ${(written / 1e6).toFixed(0)} MB`);
  await measure('file', async (account, cursor) => {
    const page = await readLedgerPage(file, { accountId: account, cursor, limit: PAGE });
    return { count: page.data.length, next: page.next };
  }, String(offsetMiddle));
  fs.rmSync(dir, { recursive: true, force: true });
}

async function postgres(): Promise<void> {
  const db = await createTestDatabase();
  const pool = createPool(db.url);
  try {
    await applyMigrations(pool, db.url);
    await pool.query(
      `insert into gw_ledger (request_id, ts, account_id, key_id, model, provider, endpoint, input_tokens, output_tokens, cost_credits, charged_credits)
       select 'req_' || i, $1::bigint + i * 2000, case when i % 1000 = 0 then $2 else $3 end, 'key_1',
              case when i % 3 = 0 then 'openai/gpt-4.1' else 'mock/echo' end, 'mock', '/v1/chat/completions', 120, 480, 1.25, 1.25
       from generate_series(0, $4::int - 1) as i`,
      [START, RARE, MAIN, LINES],
    );
    await pool.query('analyze gw_ledger');
    console.log(`PostgreSQL: ${LINES.toLocaleString()} rows in gw_ledger`);
    const repo = new PostgresCreditsRepo(pool, 'bench');
    const middleTs = START + (LINES / 2) * 2000;
    await measure('postgres', async (account, cursor) => {
      const [ts, seq] = (cursor ?? '').split(':').map(Number);
      const rows = await repo.recentLedger({ accountId: account, before: cursor ? { ts, seq } : undefined, limit: PAGE });
      const last = rows[rows.length - 1];
      return { count: rows.length, next: rows.length === PAGE && last ? `${last.ts}:${last.seq}` : null };
    }, `${middleTs}:${LINES}`);
  } finally {
    await pool.end();
    await db.drop();
  }
}

await fileStore();
if (process.env.SKIP_POSTGRES !== '1') await postgres();
