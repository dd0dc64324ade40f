import type pg from 'pg';
import { inTransaction } from './in-transaction.ts';
import type { BatchesQuery, BatchesRepo, Page } from '../repositories.ts';
import type { BatchLineRecord, BatchRecord } from '../types.ts';
import { creationOrderPage } from './creation-order.ts';

/** States a batch is still worked on in (a lease means something only for these). */
const UNFINISHED = `('validating', 'in_progress', 'finalizing', 'cancelling')`;

interface BatchRow {
  record: string;
  lease_owner: string | null;
  lease_expires_at: number | null;
}

const COLUMNS = 'record, lease_owner, lease_expires_at';

function fromRow(row: BatchRow): BatchRecord {
  const record = JSON.parse(row.record) as BatchRecord;
  record.lease = row.lease_owner === null ? null : { owner: row.lease_owner, expiresAt: Number(row.lease_expires_at) };
  return record;
}

/** The record as stored: everything but the lease, which lives in its columns. */
function recordText(record: BatchRecord): string {
  const { lease: _lease, ...rest } = record;
  return JSON.stringify(rest);
}

/**
 * Batches in PostgreSQL: the record as JSON text, the lease in columns taken by one
 * conditional UPDATE (two instances never both hold it), per-line progress keyed by
 * (batch, line) so the first record of a line wins.
 */
export class PostgresBatchesRepo implements BatchesRepo {
  constructor(private readonly pool: pg.Pool) {}

  async list(query: BatchesQuery): Promise<Page<BatchRecord>> {
    const values: unknown[] = [];
    const filter: string[] = [];
    if (query.accountId !== undefined) {
      values.push(query.accountId);
      filter.push(`account_id = $${values.length}`);
    }
    if (query.status !== undefined) {
      values.push([...query.status]);
      filter.push(`status = any($${values.length}::text[])`);
    }
    if (query.face !== undefined) {
      values.push(query.face);
      filter.push(`(record::jsonb ->> 'face') = $${values.length} and (record::jsonb ->> 'deletedAt') is null`);
    }
    const page = creationOrderPage('gw_batches', COLUMNS, filter, values, query.after, query.limit, query.order);
    const { rows } = await this.pool.query<BatchRow>(page.text, page.values);
    return { data: rows.slice(0, query.limit).map(fromRow), hasMore: rows.length > query.limit };
  }

  async get(id: string): Promise<BatchRecord | undefined> {
    const { rows } = await this.pool.query<BatchRow>(`select ${COLUMNS} from gw_batches where id = $1`, [id]);
    return rows[0] ? fromRow(rows[0]) : undefined;
  }

  async create(record: BatchRecord): Promise<BatchRecord> {
    await this.pool.query('insert into gw_batches (id, account_id, status, created_at, lease_owner, lease_expires_at, record) values ($1, $2, $3, $4, $5, $6, $7)', [
      record.id,
      record.accountId,
      record.status,
      record.created_at,
      record.lease?.owner ?? null,
      record.lease?.expiresAt ?? null,
      recordText(record),
    ]);
    return record;
  }

  async update(id: string, patch: Partial<Omit<BatchRecord, 'id' | 'accountId'>>): Promise<BatchRecord | undefined> {
    // Read, merge and write holding the row, so two instances never lose each other's patch.
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<BatchRow>(`select ${COLUMNS} from gw_batches where id = $1 for update`, [id]);
      if (!rows[0]) {
        return undefined;
      }
      const current = fromRow(rows[0]);
      const next: BatchRecord = { ...current, ...patch, id: current.id, accountId: current.accountId };
      await client.query('update gw_batches set status = $2, created_at = $3, lease_owner = $4, lease_expires_at = $5, record = $6 where id = $1', [
        id,
        next.status,
        next.created_at,
        next.lease?.owner ?? null,
        next.lease?.expiresAt ?? null,
        recordText(next),
      ]);
      return next;
    });
  }

  async claim(id: string, owner: string, now: number, leaseMs: number): Promise<BatchRecord | undefined> {
    const { rows } = await this.pool.query<BatchRow>(
      `update gw_batches set lease_owner = $2, lease_expires_at = $3::bigint + $4::bigint
       where id = $1 and status in ${UNFINISHED} and (lease_owner is null or lease_expires_at <= $3::bigint or lease_owner = $2)
       returning ${COLUMNS}`,
      [id, owner, now, leaseMs],
    );
    return rows[0] ? fromRow(rows[0]) : undefined;
  }

  async release(id: string, owner: string): Promise<void> {
    await this.pool.query('update gw_batches set lease_owner = null, lease_expires_at = null where id = $1 and lease_owner = $2', [id, owner]);
  }

  async claimable(now: number): Promise<BatchRecord[]> {
    const { rows } = await this.pool.query<BatchRow>(
      `select ${COLUMNS} from gw_batches where status in ${UNFINISHED} and (lease_owner is null or lease_expires_at <= $1) order by created_at, seq`,
      [now],
    );
    return rows.map(fromRow);
  }

  async saveLine(line: BatchLineRecord): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      'insert into gw_batch_lines (batch_id, idx, custom_id, outcome, result) values ($1, $2, $3, $4, $5) on conflict (batch_id, idx) do nothing',
      [line.batchId, line.index, line.customId, line.outcome, line.result],
    );
    return (rowCount ?? 0) > 0;
  }

  async lines(batchId: string): Promise<BatchLineRecord[]> {
    const { rows } = await this.pool.query<{ idx: number; custom_id: string; outcome: 'completed' | 'failed'; result: string }>(
      'select idx, custom_id, outcome, result from gw_batch_lines where batch_id = $1 order by idx',
      [batchId],
    );
    return rows.map((r) => ({ batchId, index: r.idx, customId: r.custom_id, outcome: r.outcome, result: r.result }));
  }

  async deleteLines(batchId: string): Promise<void> {
    await this.pool.query('delete from gw_batch_lines where batch_id = $1', [batchId]);
  }
}
