import fs from 'node:fs';
import type pg from 'pg';
import { inTransaction } from './in-transaction.ts';
import type { UploadSession, UploadsRepo } from '../repositories.ts';
import type { FileRecord } from '../types.ts';

/** Rows of an upload's bytes (gw_file_chunks), as the files repo stores a staged file. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * Resumable uploads in PostgreSQL (gw_upload_sessions, migration 14): the session a row, its
 * bytes in `gw_file_chunks` under the id of the file it becomes, added chunk by chunk as they
 * come. A chunk locks its session's row: two chunks at one offset, on any instances, add the
 * bytes once. `finish` adds the file's row over the chunks already there.
 */
export class PostgresUploadsRepo implements UploadsRepo {
  constructor(private readonly pool: pg.Pool) {}

  async start(session: UploadSession): Promise<void> {
    await this.pool.query('insert into gw_upload_sessions (id, account_id, file_id, record, size, received, next_seq, expires_at) values ($1, $2, $3, $4, $5, 0, 0, $6)', [
      session.id,
      session.file.accountId,
      session.file.id,
      JSON.stringify(session.file),
      session.file.bytes,
      session.expiresAt,
    ]);
  }

  async get(accountId: string, id: string, now: number): Promise<UploadSession | undefined> {
    const { rows } = await this.pool.query<{ record: string; received: string; expires_at: string }>(
      'select record, received, expires_at from gw_upload_sessions where id = $1 and account_id = $2 and expires_at > $3',
      [id, accountId, now],
    );
    const row = rows[0];
    return row && { id, file: JSON.parse(row.record) as FileRecord, received: Number(row.received), expiresAt: Number(row.expires_at) };
  }

  async append(accountId: string, id: string, offset: number, staged: string, now: number): Promise<number | undefined> {
    try {
      return await inTransaction(this.pool, async (client) => {
        const { rows } = await client.query<{ file_id: string; received: string; next_seq: number }>(
          'select file_id, received, next_seq from gw_upload_sessions where id = $1 and account_id = $2 and expires_at > $3 for update',
          [id, accountId, now],
        );
        const row = rows[0];
        if (!row || Number(row.received) !== offset) return undefined;
        let seq = row.next_seq;
        let bytes = 0;
        for await (const chunk of fs.createReadStream(staged, { highWaterMark: CHUNK_BYTES })) {
          await client.query('insert into gw_file_chunks (file_id, seq, data) values ($1, $2, $3)', [row.file_id, seq, chunk as Buffer]);
          seq += 1;
          bytes += (chunk as Buffer).length;
        }
        await client.query('update gw_upload_sessions set received = received + $2, next_seq = $3 where id = $1', [id, bytes, seq]);
        return offset + bytes;
      });
    } finally {
      await fs.promises.rm(staged, { force: true });
    }
  }

  async finish(accountId: string, id: string, file: FileRecord, now: number): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ file_id: string; received: string; size: string }>(
        'select file_id, received, size from gw_upload_sessions where id = $1 and account_id = $2 and expires_at > $3 for update',
        [id, accountId, now],
      );
      const row = rows[0];
      if (!row || row.received !== row.size || row.file_id !== file.id) return false;
      // The bytes are the chunks already stored under the file's id (an empty file: none; content null reads as empty).
      await client.query('insert into gw_files (id, account_id, purpose, created_at, record, content) values ($1, $2, $3, $4, $5, null)', [
        file.id,
        file.accountId,
        file.purpose,
        file.created_at,
        JSON.stringify(file),
      ]);
      await client.query('delete from gw_upload_sessions where id = $1', [id]);
      return true;
    });
  }

  async reservedBy(accountId: string, now: number): Promise<{ uploads: number; bytes: number }> {
    const { rows } = await this.pool.query<{ uploads: number; bytes: string }>(
      'select count(*)::int as uploads, coalesce(sum(size), 0)::text as bytes from gw_upload_sessions where account_id = $1 and expires_at > $2',
      [accountId, now],
    );
    return { uploads: rows[0]?.uploads ?? 0, bytes: Number(rows[0]?.bytes ?? 0) };
  }

  async purgeExpired(now: number): Promise<number> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ file_id: string }>('delete from gw_upload_sessions where expires_at <= $1 returning file_id', [now]);
      if (rows.length > 0) await client.query('delete from gw_file_chunks where file_id = any($1)', [rows.map((r) => r.file_id)]);
      return rows.length;
    });
  }
}
