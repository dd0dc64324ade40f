import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { ConversationsRepo } from '../repositories.ts';
import { renameTakenIds } from '../conversation-item-ids.ts';
import type { ConversationAppended, ConversationBounds, ConversationItemInput, ConversationItemsPage, ConversationItemsQuery, ConversationRecord, ConversationTurn } from '../types.ts';
import { inTransaction } from './in-transaction.ts';

interface ConversationRow {
  id: string;
  account_id: string;
  created_at: string | number;
  metadata: string;
  item_count: number;
  item_bytes: string | number;
  next_seq: string | number;
}

function recordOf(row: ConversationRow): ConversationRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    createdAt: Number(row.created_at),
    metadata: JSON.parse(row.metadata) as Record<string, string>,
    itemCount: Number(row.item_count),
    itemBytes: Number(row.item_bytes),
  };
}

const COLUMNS = 'id, account_id, created_at, metadata, item_count, item_bytes, next_seq';

/** Now in ms on the database's clock: every instance's leases are timed by one clock. */
const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

/**
 * A lease's statement commits without waiting for the WAL flush (a claim and its release took
 * 8 ms on the test machine, 1.6 ms without), as credit holds do: it is runtime state, seen by every instance
 * at once all the same; a crash of the database may lose the last ones (a claim lost lets another
 * turn in, a release lost holds the conversation until the lease lapses).
 */
const LEASE_COMMIT = "set_config('synchronous_commit', 'off', true) is not null as async_commit";

/**
 * Conversations in PostgreSQL: a row per conversation in gw_conversations, its items in
 * gw_conversation_items (seq orders them). A change to the items locks the conversation's row,
 * so its counts and the bounds an append checks hold across instances; a turn's hold is a lease
 * on that row (migration 18), so it holds across instances too.
 */
export class PostgresConversationsRepo implements ConversationsRepo {
  constructor(
    private readonly pool: pg.Pool,
    /** The instance a lease names as its holder (for whoever reads the row). */
    private readonly instance = '',
  ) {}

  async create(record: Omit<ConversationRecord, 'itemCount' | 'itemBytes'>, items: ConversationItemInput[]): Promise<ConversationRecord> {
    return inTransaction(this.pool, async (client) => {
      await this.copy(client, record, items);
      return { ...record, itemCount: items.length, itemBytes: items.reduce((sum, entry) => sum + Buffer.byteLength(entry.item), 0) };
    });
  }

  /** A conversation copied whole (`gateway store migrate`), through `client` (the copy's transaction). */
  async copy(client: Pick<pg.PoolClient, 'query'>, record: Omit<ConversationRecord, 'itemCount' | 'itemBytes'>, items: ConversationItemInput[]): Promise<void> {
    const bytes = items.reduce((sum, entry) => sum + Buffer.byteLength(entry.item), 0);
    await client.query('insert into gw_conversations (id, account_id, created_at, metadata, item_count, item_bytes, next_seq) values ($1, $2, $3, $4, $5::integer, $6, $5::bigint)', [
      record.id,
      record.accountId,
      record.createdAt,
      JSON.stringify(record.metadata),
      items.length,
      bytes,
    ]);
    await insertItems(client, record.id, 0, items);
  }

  async get(accountId: string, id: string): Promise<ConversationRecord | undefined> {
    const { rows } = await this.pool.query<ConversationRow>(`select ${COLUMNS} from gw_conversations where id = $1 and account_id = $2`, [id, accountId]);
    return rows[0] ? recordOf(rows[0]) : undefined;
  }

  async setMetadata(accountId: string, id: string, metadata: Record<string, string>): Promise<ConversationRecord | undefined> {
    const { rows } = await this.pool.query<ConversationRow>(`update gw_conversations set metadata = $3 where id = $1 and account_id = $2 returning ${COLUMNS}`, [id, accountId, JSON.stringify(metadata)]);
    return rows[0] ? recordOf(rows[0]) : undefined;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('delete from gw_conversations where id = $1 and account_id = $2', [id, accountId]);
    return (rowCount ?? 0) > 0;
  }

  async append(
    accountId: string,
    id: string,
    given: ConversationItemInput[],
    bounds?: ConversationBounds,
    rename?: (entry: ConversationItemInput) => ConversationItemInput,
  ): Promise<ConversationAppended | 'not_found' | 'full'> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<ConversationRow>(`select ${COLUMNS} from gw_conversations where id = $1 and account_id = $2 for update`, [id, accountId]);
      const row = rows[0];
      if (!row) return 'not_found' as const;
      const record = recordOf(row);
      let items = given;
      if (rename && items.length > 0) {
        // Under the row's lock: no other append can take one of these ids meanwhile.
        const taken = await client.query<{ id: string }>('select distinct id from gw_conversation_items where conversation_id = $1 and id = any($2::text[])', [id, items.map((entry) => entry.id)]);
        const ids = new Set(taken.rows.map((found) => found.id));
        items = renameTakenIds(items, (itemId) => ids.has(itemId), rename);
      }
      const adding = items.reduce((sum, entry) => sum + Buffer.byteLength(entry.item), 0);
      if (bounds && (record.itemCount + items.length > bounds.maxItems || record.itemBytes + adding > bounds.maxBytes)) return 'full' as const;
      if (items.length === 0) return { ...record, added: items };
      const bytes = await insertItems(client, id, Number(row.next_seq), items);
      await client.query('update gw_conversations set item_count = item_count + $2, item_bytes = item_bytes + $3, next_seq = next_seq + $2 where id = $1', [id, items.length, bytes]);
      return { ...record, itemCount: record.itemCount + items.length, itemBytes: record.itemBytes + bytes, added: items };
    });
  }

  /**
   * A lease on the conversation's row, taken by one conditional UPDATE when it is free or lapsed
   * (two instances at once: the second's UPDATE waits for the first's and then finds it held).
   * A conversation the account does not have updates nothing and is not `busy`: the hold is empty.
   */
  async claimTurn(accountId: string, id: string, leaseMs: number): Promise<ConversationTurn | 'busy'> {
    const turnId = randomUUID();
    const lease = Math.max(1, Math.ceil(leaseMs));
    const { rows } = await this.pool.query<{ claimed: boolean; found: boolean }>(
      `with claimed as (
         update gw_conversations set turn_holder = $3, turn_id = $4, turn_expires_at = ${NOW_MS} + $5
         where id = $1 and account_id = $2 and (turn_expires_at is null or turn_expires_at <= ${NOW_MS}) returning id)
       select ${LEASE_COMMIT}, exists (select 1 from claimed) as claimed, exists (select 1 from gw_conversations where id = $1 and account_id = $2) as found`,
      [id, accountId, this.instance, turnId, lease],
    );
    if (!rows[0]?.claimed && rows[0]?.found) return 'busy';
    let released = false;
    return {
      renew: async () => {
        if (released) return false;
        const { rows: renewed } = await this.pool.query<{ n: number }>(
          `with renewed as (update gw_conversations set turn_expires_at = ${NOW_MS} + $3 where id = $1 and turn_id = $2 returning id)
           select ${LEASE_COMMIT}, count(*)::integer as n from renewed`,
          [id, turnId, lease],
        );
        return (renewed[0]?.n ?? 0) > 0;
      },
      release: async () => {
        if (released) return;
        released = true;
        await this.pool.query(
          `with cleared as (update gw_conversations set turn_holder = null, turn_id = null, turn_expires_at = null where id = $1 and turn_id = $2 returning id)
           select ${LEASE_COMMIT}, count(*) from cleared`,
          [id, turnId],
        );
      },
    };
  }

  /** The account's rows only (gw_conversations_account): their items' bytes and metadata. */
  async bytesOf(accountId: string): Promise<number> {
    const { rows } = await this.pool.query<{ bytes: string }>('select coalesce(sum(item_bytes + octet_length(metadata)), 0)::bigint as bytes from gw_conversations where account_id = $1', [accountId]);
    return Number(rows[0]?.bytes ?? 0);
  }

  async items(accountId: string, id: string): Promise<Array<Record<string, unknown>> | undefined> {
    const { rows } = await this.pool.query<{ item: string | null }>(
      `select i.item from gw_conversations c left join gw_conversation_items i on i.conversation_id = c.id
       where c.id = $1 and c.account_id = $2 order by i.seq`,
      [id, accountId],
    );
    if (rows.length === 0) return undefined;
    return rows.flatMap((row) => (row.item === null ? [] : [JSON.parse(row.item) as Record<string, unknown>]));
  }

  /**
   * `limit` + 1 items past the cursor's item in `order` (one more says whether more follow); the
   * cursor's item is its last place in that order (the highest seq ascending, the lowest descending).
   */
  async page(accountId: string, id: string, query: ConversationItemsQuery): Promise<ConversationItemsPage | 'no_item' | undefined> {
    const asc = query.order === 'asc';
    const { rows } = await this.pool.query<{ item: string | null; held: boolean }>(
      `select i.item, ($3::text is null or exists (select 1 from gw_conversation_items where conversation_id = c.id and id = $3)) as held
       from gw_conversations c left join lateral (
         select item from gw_conversation_items where conversation_id = c.id
         and ($3::text is null or seq ${asc ? '>' : '<'} (select ${asc ? 'max' : 'min'}(seq) from gw_conversation_items where conversation_id = c.id and id = $3))
         order by seq ${asc ? 'asc' : 'desc'} limit $4) i on true
       where c.id = $1 and c.account_id = $2`,
      [id, accountId, query.after ?? null, query.limit + 1],
    );
    if (rows.length === 0) return undefined;
    if (!rows[0].held) return 'no_item';
    const items = rows.flatMap((row) => (row.item === null ? [] : [row.item]));
    return { data: items.slice(0, query.limit).map((item) => JSON.parse(item) as Record<string, unknown>), hasMore: items.length > query.limit };
  }

  async item(accountId: string, id: string, itemId: string): Promise<Record<string, unknown> | 'not_found' | 'no_item'> {
    const { rows } = await this.pool.query<{ item: string | null }>(
      `select (select item from gw_conversation_items where conversation_id = c.id and id = $3 order by seq limit 1) as item
       from gw_conversations c where c.id = $1 and c.account_id = $2`,
      [id, accountId, itemId],
    );
    if (!rows[0]) return 'not_found';
    return rows[0].item === null ? 'no_item' : (JSON.parse(rows[0].item) as Record<string, unknown>);
  }

  async deleteItem(accountId: string, id: string, itemId: string): Promise<ConversationRecord | 'not_found' | 'no_item'> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<ConversationRow>(`select ${COLUMNS} from gw_conversations where id = $1 and account_id = $2 for update`, [id, accountId]);
      if (!rows[0]) return 'not_found' as const;
      const deleted = await client.query<{ bytes: string }>(`delete from gw_conversation_items where conversation_id = $1
         and seq = (select min(seq) from gw_conversation_items where conversation_id = $1 and id = $2) returning octet_length(item) as bytes`, [id, itemId]);
      if (!deleted.rows[0]) return 'no_item' as const;
      const updated = await client.query<ConversationRow>(`update gw_conversations set item_count = item_count - 1, item_bytes = item_bytes - $2 where id = $1 returning ${COLUMNS}`, [id, Number(deleted.rows[0].bytes)]);
      return recordOf(updated.rows[0]);
    });
  }
}

/** Inserts items from `seq` on, in one statement; returns their bytes. */
async function insertItems(client: Pick<pg.PoolClient, 'query'>, conversationId: string, seq: number, items: ConversationItemInput[]): Promise<number> {
  if (items.length === 0) return 0;
  await client.query(
    `insert into gw_conversation_items (conversation_id, seq, id, item)
     select $1, $2::bigint + ordinality - 1, id, item from unnest($3::text[], $4::text[]) with ordinality as t(id, item)`,
    [conversationId, seq, items.map((entry) => entry.id), items.map((entry) => entry.item)],
  );
  return items.reduce((sum, entry) => sum + Buffer.byteLength(entry.item), 0);
}
