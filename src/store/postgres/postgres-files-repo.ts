import type pg from 'pg';
import type { FilesQuery, FilesRepo, Page } from '../repositories.ts';
import type { FileRecord } from '../types.ts';
import { newestFirstPage } from './newest-first.ts';

/** Uploaded and batch-written files in PostgreSQL: the record and its contents (bytea) in one row, so any instance serves any file. */
export class PostgresFilesRepo implements FilesRepo {
  constructor(private readonly pool: pg.Pool) {}

  async list(query: FilesQuery): Promise<Page<FileRecord>> {
    const values: unknown[] = [query.accountId];
    const filter = ['account_id = $1'];
    if (query.purpose !== undefined) {
      values.push(query.purpose);
      filter.push(`purpose = $${values.length}`);
    }
    const page = newestFirstPage('gw_files', 'record', filter, values, query.after, query.limit);
    const { rows } = await this.pool.query<{ record: string }>(page.text, page.values);
    return { data: rows.slice(0, query.limit).map((r) => JSON.parse(r.record) as FileRecord), hasMore: rows.length > query.limit };
  }

  async get(accountId: string, id: string): Promise<FileRecord | undefined> {
    const { rows } = await this.pool.query<{ record: string }>('select record from gw_files where id = $1 and account_id = $2', [id, accountId]);
    return rows[0] ? (JSON.parse(rows[0].record) as FileRecord) : undefined;
  }

  async create(record: FileRecord, content: Uint8Array): Promise<FileRecord> {
    // Record and contents in one row: one insert, so a record never points at missing contents.
    await this.pool.query('insert into gw_files (id, account_id, purpose, created_at, record, content) values ($1, $2, $3, $4, $5, $6)', [
      record.id,
      record.accountId,
      record.purpose,
      record.created_at,
      JSON.stringify(record),
      Buffer.from(content.buffer, content.byteOffset, content.byteLength),
    ]);
    return record;
  }

  async content(accountId: string, id: string): Promise<Buffer | undefined> {
    const { rows } = await this.pool.query<{ content: Buffer }>('select content from gw_files where id = $1 and account_id = $2', [id, accountId]);
    return rows[0]?.content;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('delete from gw_files where id = $1 and account_id = $2', [id, accountId]);
    return (rowCount ?? 0) > 0;
  }
}
