import type pg from 'pg';
import type { ResponsesRepo } from '../repositories.ts';
import type { StoredResponse, StoredResponseInput } from '../types.ts';

/** Stored Responses in PostgreSQL: the JSON texts as given, read by owner only. */
export class PostgresResponsesRepo implements ResponsesRepo {
  constructor(private readonly pool: pg.Pool) {}

  async save(record: StoredResponseInput): Promise<void> {
    await this.pool.query(
      `insert into gw_responses (id, account_id, created_at, request, response) values ($1, $2, $3, $4, $5)
       on conflict (id) do update set account_id = excluded.account_id, created_at = excluded.created_at, request = excluded.request, response = excluded.response`,
      [record.id, record.accountId, record.createdAt, record.request, record.response],
    );
  }

  async get(accountId: string, id: string): Promise<StoredResponse | undefined> {
    const { rows } = await this.pool.query<{ id: string; account_id: string; created_at: number; request: string; response: string }>(
      'select id, account_id, created_at, request, response from gw_responses where id = $1 and account_id = $2',
      [id, accountId],
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      id: row.id,
      accountId: row.account_id,
      createdAt: Number(row.created_at),
      request: JSON.parse(row.request) as Record<string, unknown>,
      response: JSON.parse(row.response) as Record<string, unknown>,
    };
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('delete from gw_responses where id = $1 and account_id = $2', [id, accountId]);
    return (rowCount ?? 0) > 0;
  }

  /** Kept by triggers on gw_responses (migration 12), one row per account. */
  async bytesOf(accountId: string): Promise<number> {
    const { rows } = await this.pool.query<{ bytes: string }>('select bytes from gw_response_bytes where account_id = $1', [accountId]);
    return Number(rows[0]?.bytes ?? 0);
  }

  async purgeCreatedBefore(before: number): Promise<number> {
    const { rowCount } = await this.pool.query('delete from gw_responses where created_at < $1', [before]);
    return rowCount ?? 0;
  }
}
