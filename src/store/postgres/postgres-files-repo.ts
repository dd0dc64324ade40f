import fs from 'node:fs';
import type pg from 'pg';
import { inTransaction } from './in-transaction.ts';
import type { FilesQuery, FilesRepo, Page } from '../repositories.ts';
import type { FileRecord } from '../types.ts';
import { creationOrderPage } from './creation-order.ts';

/** Rows of an uploaded file's contents (gw_file_chunks). */
const CHUNK_BYTES = 1024 * 1024;

/** Uploaded and batch-written files in PostgreSQL: the record and its contents (bytea) in one row, so any instance serves any file. */
/** The files sweep's query, written as migration 15's index (gw_files_expiry) is, so the planner takes it. */
export const EXPIRED_FILES_SQL =
  "select id, account_id from gw_files where (record::json->>'expires_at') is not null and (record::json->>'expires_at')::bigint <= $1 order by (record::json->>'expires_at')::bigint limit $2";

export class PostgresFilesRepo implements FilesRepo {
  constructor(private readonly pool: pg.Pool) {}

  async list(query: FilesQuery): Promise<Page<FileRecord>> {
    const values: unknown[] = [query.accountId];
    const filter = ['account_id = $1'];
    if (query.purpose !== undefined) {
      values.push(query.purpose);
      filter.push(`purpose = $${values.length}`);
    }
    const page = creationOrderPage('gw_files', 'record', filter, values, query.after, query.limit, query.order);
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

  async createFromFile(record: FileRecord, staged: string): Promise<FileRecord> {
    try {
      // Chunks then the record, in one transaction: a record never points at missing chunks,
      // and a failed upload leaves none behind.
      await inTransaction(this.pool, async (client) => {
        let seq = 0;
        for await (const chunk of fs.createReadStream(staged, { highWaterMark: CHUNK_BYTES })) {
          await client.query('insert into gw_file_chunks (file_id, seq, data) values ($1, $2, $3)', [record.id, seq, chunk as Buffer]);
          seq += 1;
        }
        await client.query('insert into gw_files (id, account_id, purpose, created_at, record, content) values ($1, $2, $3, $4, $5, null)', [
          record.id,
          record.accountId,
          record.purpose,
          record.created_at,
          JSON.stringify(record),
        ]);
      });
    } finally {
      await fs.promises.rm(staged, { force: true });
    }
    return record;
  }

  async bytesOf(accountId: string): Promise<number> {
    const { rows } = await this.pool.query<{ bytes: string }>("select coalesce(sum((record::json->>'bytes')::bigint), 0)::text as bytes from gw_files where account_id = $1", [accountId]);
    return Number(rows[0]?.bytes ?? 0);
  }

  /**
   * The whole file. An upload's chunks are read by a second query: a delete committed between the
   * two (or chunks lost) would leave fewer bytes than the record says, which fails the read rather
   * than answering a shorter file as if whole (a prompt would carry it inline, empty or cut).
   */
  async content(accountId: string, id: string): Promise<Buffer | undefined> {
    const { rows } = await this.pool.query<{ content: Buffer | null; bytes: string | null }>("select content, record::json->>'bytes' as bytes from gw_files where id = $1 and account_id = $2", [id, accountId]);
    if (!rows[0]) return undefined;
    if (rows[0].content) return rows[0].content;
    const chunks = await this.pool.query<{ data: Buffer }>('select data from gw_file_chunks where file_id = $1 order by seq', [id]);
    const content = Buffer.concat(chunks.rows.map((r) => r.data));
    if (rows[0].bytes !== null && content.length !== Number(rows[0].bytes)) throw deletedWhileRead(id);
    return content;
  }

  /** A file stored in one row comes whole (bytea is read whole); an upload's chunks one row at a time. */
  async contentChunks(accountId: string, id: string): Promise<AsyncIterable<Buffer> | undefined> {
    const { rows } = await this.pool.query<{ whole: boolean }>('select content is not null as whole from gw_files where id = $1 and account_id = $2', [id, accountId]);
    if (!rows[0]) return undefined;
    return rows[0].whole ? this.wholeRow(id) : this.chunkRows(id);
  }

  private async *wholeRow(id: string): AsyncGenerator<Buffer> {
    const { rows } = await this.pool.query<{ content: Buffer | null }>('select content from gw_files where id = $1', [id]);
    if (!rows[0]?.content) throw deletedWhileRead(id);
    yield rows[0].content;
  }

  /** The chunks in order; past the last, the record is looked for: gone, the file was deleted meanwhile (a delete takes both at once), which fails the read rather than ending it short. */
  private async *chunkRows(id: string): AsyncGenerator<Buffer> {
    for (let seq = 0; ; seq++) {
      const { rows } = await this.pool.query<{ data: Buffer }>('select data from gw_file_chunks where file_id = $1 and seq = $2', [id, seq]);
      if (!rows[0]) {
        const { rowCount } = await this.pool.query('select 1 from gw_files where id = $1', [id]);
        if ((rowCount ?? 0) === 0) throw deletedWhileRead(id);
        return;
      }
      yield rows[0].data;
    }
  }

  /** A scan of the records' JSON (no column or index of its own): the sweep runs on one instance every few minutes. */
  async expired(now: number, limit: number): Promise<Array<{ accountId: string; id: string }>> {
    const { rows } = await this.pool.query<{ id: string; account_id: string }>(
      EXPIRED_FILES_SQL,
      [now, limit],
    );
    return rows.map((r) => ({ accountId: r.account_id, id: r.id }));
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const { rowCount } = await client.query('delete from gw_files where id = $1 and account_id = $2', [id, accountId]);
      if ((rowCount ?? 0) === 0) return false;
      await client.query('delete from gw_file_chunks where file_id = $1', [id]);
      await client.query('insert into gw_deleted_files (account_id, id) values ($1, $2) on conflict do nothing', [accountId, id]);
      return true;
    });
  }

  async wasDeleted(accountId: string, id: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('select 1 from gw_deleted_files where account_id = $1 and id = $2', [accountId, id]);
    return (rowCount ?? 0) > 0;
  }
}

/** A read of a file's contents that its delete overtook: an error, so an answer made of them fails instead of ending short. */
function deletedWhileRead(id: string): Error {
  return new Error(`file ${id} was deleted while its contents were read`);
}
