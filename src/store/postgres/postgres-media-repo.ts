import type pg from 'pg';
import { inTransaction } from './in-transaction.ts';
import type { MediaQuery, MediaRepo } from '../repositories.ts';
import { stringifyRecord } from '../stringify-record.ts';
import type { MediaRecord } from '../types.ts';

/**
 * The Media Library in PostgreSQL: each record as its JSON text (any depth, the same bytes
 * the per-account caps count), with the columns lists filter and sort on.
 */
export class PostgresMediaRepo implements MediaRepo {
  constructor(private readonly pool: pg.Pool) {}

  async list(query: MediaQuery): Promise<{ data: MediaRecord[]; total: number }> {
    const where: string[] = [];
    const values: unknown[] = [];
    const add = (sql: string, value: unknown) => {
      values.push(value);
      where.push(`${sql} $${values.length}`);
    };
    if (query.accountId !== undefined) add('account_id =', query.accountId);
    if (query.mediaType !== undefined) add('media_type =', query.mediaType);
    if (query.status !== undefined) add('status =', query.status);
    if (query.notBefore !== undefined) add('created_at >=', query.notBefore);
    const filter = where.length > 0 ? `where ${where.join(' and ')}` : '';
    const count = await this.pool.query<{ total: number }>(`select count(*)::int as total from gw_media ${filter}`, values);
    const total = count.rows[0].total;
    if (query.limit <= 0 || total === 0) return { data: [], total };
    const { rows } = await this.pool.query<{ record: string }>(
      `select record from gw_media ${filter} order by created_at desc, seq desc limit $${values.length + 1} offset $${values.length + 2}`,
      [...values, query.limit, query.offset],
    );
    return { data: rows.map((r) => JSON.parse(r.record) as MediaRecord), total };
  }

  async get(id: string): Promise<MediaRecord | undefined> {
    const { rows } = await this.pool.query<{ record: string }>('select record from gw_media where id = $1', [id]);
    return rows[0] ? (JSON.parse(rows[0].record) as MediaRecord) : undefined;
  }

  async create(record: MediaRecord): Promise<MediaRecord> {
    await this.pool.query('insert into gw_media (id, account_id, media_type, status, created_at, record) values ($1, $2, $3, $4, $5, $6)', [
      record.id,
      record.accountId,
      record.media_type,
      record.status,
      record.created_at,
      stringifyRecord(record),
    ]);
    return record;
  }

  update(id: string, patch: Partial<Omit<MediaRecord, 'id' | 'accountId'>>): Promise<MediaRecord | undefined> {
    return this.updateWith(id, () => patch);
  }

  updateWith(id: string, change: (current: MediaRecord) => Partial<Omit<MediaRecord, 'id' | 'accountId'>> | undefined): Promise<MediaRecord | undefined> {
    // Read, change and write in one transaction holding the row, so two instances never lose each other's change.
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ record: string }>('select record from gw_media where id = $1 for update', [id]);
      if (!rows[0]) return undefined;
      const current = JSON.parse(rows[0].record) as MediaRecord;
      const patch = change(current);
      if (!patch) return current;
      const next: MediaRecord = { ...current, ...patch, id: current.id, accountId: current.accountId };
      await client.query('update gw_media set media_type = $2, status = $3, created_at = $4, record = $5 where id = $1', [id, next.media_type, next.status, next.created_at, stringifyRecord(next)]);
      return next;
    });
  }

  async delete(id: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('delete from gw_media where id = $1', [id]);
    return (rowCount ?? 0) > 0;
  }

  async purgeCreatedBefore(before: number): Promise<number> {
    const { rowCount } = await this.pool.query('delete from gw_media where created_at < $1', [before]);
    return rowCount ?? 0;
  }

  async claimJob(id: string, owner: string, now: number, leaseMs: number): Promise<MediaRecord | undefined> {
    // The row is held while the lease is checked and written: two instances never both take it.
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ record: string }>('select record from gw_media where id = $1 for update', [id]);
      if (!rows[0]) return undefined;
      const current = JSON.parse(rows[0].record) as MediaRecord;
      const job = current.job;
      if (!job?.open || (job.lease && job.lease.owner !== owner && job.lease.expiresAt > now)) return undefined;
      const next: MediaRecord = { ...current, job: { ...job, lease: { owner, expiresAt: now + leaseMs } } };
      await client.query('update gw_media set record = $2 where id = $1', [id, stringifyRecord(next)]);
      return next;
    });
  }

  async releaseJob(id: string, owner: string): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ record: string }>('select record from gw_media where id = $1 for update', [id]);
      const current = rows[0] ? (JSON.parse(rows[0].record) as MediaRecord) : undefined;
      if (!current?.job || current.job.lease?.owner !== owner) return;
      await client.query('update gw_media set record = $2 where id = $1', [id, stringifyRecord({ ...current, job: { ...current.job, lease: null } })]);
    });
  }

  async claimableJobs(now: number, limit: number, owner?: string): Promise<MediaRecord[]> {
    // Open jobs are few and short-lived; the JSON test runs only on rows a job was ever made for.
    const { rows } = await this.pool.query<{ record: string }>(
      `select record from gw_media
        where media_type <> 'image' and (record::jsonb #>> '{job,open}') = 'true'
          and (coalesce((record::jsonb #>> '{job,lease,expiresAt}')::double precision, 0) <= $1
               or (record::jsonb #>> '{job,lease,owner}') = $3)
        order by created_at, seq limit $2`,
      [now, limit, owner ?? null],
    );
    return rows.map((r) => JSON.parse(r.record) as MediaRecord);
  }

  async usage(accountId: string, notBefore?: number): Promise<{ records: number; bytes: number }> {
    const { rows } = await this.pool.query<{ records: number; bytes: number }>(
      'select count(*)::int as records, coalesce(sum(octet_length(record)), 0)::bigint as bytes from gw_media where account_id = $1 and ($2::bigint is null or created_at >= $2::bigint)',
      [accountId, notBefore ?? null],
    );
    return { records: rows[0].records, bytes: Number(rows[0].bytes) };
  }
}
