import type pg from 'pg';
import type { CreditState, CreditsRepo, FlushItem, HoldOutcome, HoldRequest, LeaseOutcome, SettleOutcome, SettleRequest } from '../repositories.ts';
import type { LedgerRecord, UsageTotalsRow } from '../types.ts';
import { reportedCount } from '../../util/index.ts';

interface HoldRow {
  outcome: HoldOutcome['outcome'];
  credits: number;
  reserved: number;
  used: number;
  lim: number;
  reserved_tokens: number;
}

type NullableColumn = 'web_search_requests' | 'discount' | 'price_multiplier' | 'media' | 'answer_id' | 'finish_reason' | 'streamed' | 'latency_ms';

type LedgerRow = Omit<LedgerRecord, NullableColumn> & { [K in NullableColumn]: NonNullable<LedgerRecord[K]> | null };

/** A row as the file store's line has it: a column that is null is a field left out. */
function ledgerFromRow(row: LedgerRow): LedgerRecord {
  const { web_search_requests, discount, price_multiplier, media, answer_id, finish_reason, streamed, latency_ms, ...rest } = row;
  const record: LedgerRecord = rest;
  if (web_search_requests !== null) record.web_search_requests = web_search_requests;
  if (discount !== null) record.discount = discount;
  if (price_multiplier !== null) record.price_multiplier = price_multiplier;
  if (media !== null) record.media = media;
  if (answer_id !== null) record.answer_id = answer_id;
  if (finish_reason !== null) record.finish_reason = finish_reason;
  if (streamed !== null) record.streamed = streamed;
  if (latency_ms !== null) record.latency_ms = latency_ms;
  return record;
}

/** The channel instances ask each other on to give slices of an account back (the payload is the account id). */
export const LEASE_CHANNEL = 'gateway_leases';

/** The most tokens one ledger row counts (a trillion: far past any request, far from overflowing a month's bigint sum). */
const MAX_TOKENS = 1e12;

/** A token count as a bigint column takes it: whole, 0 up to MAX_TOKENS (an upstream's usage may say 10.5, -3 or 1e20). */
function tokenCount(n: unknown): number {
  return typeof n === 'number' && Number.isFinite(n) ? Math.min(MAX_TOKENS, Math.max(0, Math.round(n))) : 0;
}

/** The most web searches one ledger row counts (the integer column's range, far past any request). */
const MAX_SEARCHES = 2 ** 31 - 1;

/** A web-search count as the integer column takes it: whole, 1 up to MAX_SEARCHES, or none (a count of 0.4 or -1 is no search). */
export function searchCount(n: unknown): number | undefined {
  const reported = reportedCount(n);
  const count = reported === undefined ? 0 : Math.min(MAX_SEARCHES, Math.round(reported));
  return count > 0 ? count : undefined;
}

/** Printable ASCII: every answer id and finish reason upstreams send (a NUL or a lone surrogate is what a text column refuses). */
const PRINTABLE = /^[\x20-\x7e]*$/;

/** An upstream's text (the answer's id, its finish reason) as a text column takes it, or none. */
function columnText(text: string | undefined): string | undefined {
  return typeof text === 'string' && PRINTABLE.test(text) ? text : undefined;
}

/**
 * A ledger row as the settlement functions take it: token counts whole and bounded, an upstream's
 * text only when a text column takes it. One value PostgreSQL refuses ("invalid input syntax for
 * type bigint: 10.5", a NUL in a text) would fail the whole group of an outbox flush, every time
 * it is sent again, and hold up every later settlement.
 */
function dbEntry<E extends { input_tokens: number; output_tokens: number; reasoning_tokens: number; cached_tokens: number; web_search_requests?: number; ts: number; answer_id?: string; finish_reason?: string }>(entry: E): E {
  return {
    ...entry,
    ts: Math.round(entry.ts),
    input_tokens: tokenCount(entry.input_tokens),
    output_tokens: tokenCount(entry.output_tokens),
    reasoning_tokens: tokenCount(entry.reasoning_tokens),
    cached_tokens: tokenCount(entry.cached_tokens),
    web_search_requests: searchCount(entry.web_search_requests),
    answer_id: columnText(entry.answer_id),
    finish_reason: columnText(entry.finish_reason),
  };
}

/**
 * An error the data itself caused (SQLSTATE class 22, data exception, or 23, integrity
 * constraint violation): the same call would fail again, unlike a lost connection or a
 * deadlock. Marked `refused` (see `CreditsRepo.flush`).
 */
function markRefused(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^2[23][0-9A-Z]{3}$/.test(code)) Object.assign(error as object, { refused: true });
  return error;
}

const LEDGER_COLUMNS = `seq, ts, request_id, account_id, key_id, model, provider, endpoint, input_tokens, output_tokens, reasoning_tokens,
  cached_tokens, cost_credits::float8 as cost_credits, charged_credits::float8 as charged_credits, estimated, aborted,
  discount::float8 as discount, price_multiplier::float8 as price_multiplier, media, web_search_requests, answer_id, finish_reason, streamed, latency_ms`;

/**
 * Credits across instances (docs/scale-out.md): every call is one statement (one round trip)
 * running a function of migration 2 (`gw_reserve`, `gw_settle`, `gw_release`,
 * `gw_release_stale_holds`), which locks the account's row (then the key's), so concurrent
 * calls from any number of instances are checked and applied one after another.
 */
export class PostgresCreditsRepo implements CreditsRepo {
  constructor(
    private readonly pool: pg.Pool,
    readonly instance: string,
    /**
     * Settlements and outbox flushes wait for the WAL flush (default: the outbox forgets a line
     * once its flush returns, so only a flushed commit keeps it through a PostgreSQL crash);
     * holds never do: they are runtime state the sweep repairs.
     */
    private readonly synchronousCommit = true,
  ) {}

  async hold(r: HoldRequest): Promise<HoldOutcome> {
    const { rows } = await this.pool.query<HoldRow>({
      name: 'gw_reserve',
      text: 'select * from gw_reserve($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)',
      values: [r.requestId, r.accountId, r.keyId, r.credits, Math.max(0, Math.ceil(r.tokens)), r.enforce, r.needsBalance, this.instance, r.periods.day, r.periods.week, r.periods.month],
    });
    const row = rows[0];
    return { outcome: row.outcome, credits: row.credits, reserved: row.reserved, used: row.used, limit: row.lim, reservedTokens: Number(row.reserved_tokens) };
  }

  async holdMany(requests: readonly HoldRequest[]): Promise<HoldOutcome[]> {
    if (requests.length === 1) return [await this.hold(requests[0])];
    const items = requests.map((r) => ({
      r: r.requestId,
      a: r.accountId,
      k: r.keyId,
      c: r.credits,
      t: Math.max(0, Math.ceil(r.tokens)),
      e: r.enforce,
      n: r.needsBalance,
      day: r.periods.day,
      week: r.periods.week,
      month: r.periods.month,
    }));
    const { rows } = await this.pool.query<HoldRow & { request_id: string }>({
      name: 'gw_reserve_many',
      text: 'select * from gw_reserve_many($1, $2)',
      values: [JSON.stringify(items), this.instance],
    });
    const byId = new Map<string, HoldRow[]>();
    for (const row of rows) byId.set(row.request_id, [...(byId.get(row.request_id) ?? []), row]);
    return requests.map((r) => {
      const row = byId.get(r.requestId)?.shift();
      if (!row) throw new Error(`gw_reserve_many returned no row for ${r.requestId}`);
      return { outcome: row.outcome, credits: row.credits, reserved: row.reserved, used: row.used, limit: row.lim, reservedTokens: Number(row.reserved_tokens) };
    });
  }

  async releaseLeft(leaseId: string): Promise<boolean> {
    const { rows } = await this.pool.query<{ released: boolean }>({ name: 'gw_release', text: 'select gw_release($1) as released', values: [leaseId] });
    return rows[0]?.released === true;
  }

  async release(requestId: string): Promise<boolean> {
    const { rows } = await this.pool.query<{ released: boolean }>({ name: 'gw_release_own', text: 'select gw_release_own($1, $2) as released', values: [requestId, this.instance] });
    return rows[0]?.released === true;
  }

  async settle(r: SettleRequest): Promise<SettleOutcome> {
    const { rows } = await this.pool.query<{ inserted: boolean; charged: number; seq: number | null }>({
      name: 'gw_settle',
      text: 'select * from gw_settle($1, $2, $3, $4, $5, $6, $7)',
      values: [JSON.stringify(dbEntry(r.entry)), this.instance, r.enforce, r.periods.day, r.periods.week, r.periods.month, this.synchronousCommit],
    });
    const row = rows[0];
    return row.inserted ? { inserted: true, charged: row.charged, seq: Number(row.seq) } : { inserted: false, charged: 0 };
  }

  async settleMany(requests: readonly SettleRequest[]): Promise<SettleOutcome[]> {
    if (requests.length === 1) return [await this.settle(requests[0])];
    const enforce = requests[0]?.enforce ?? true;
    // One enforce rule per call: a mixed group (never, in one process) is split.
    if (requests.some((r) => r.enforce !== enforce)) {
      return Promise.all(requests.map((r) => this.settle(r)));
    }
    const items = requests.map((r) => ({ entry: dbEntry(r.entry), holder: this.instance, day: r.periods.day, week: r.periods.week, month: r.periods.month }));
    const { rows } = await this.pool.query<{ request_id: string; inserted: boolean; charged: number; seq: number | null }>({
      name: 'gw_settle_many',
      text: 'select * from gw_settle_many($1, $2, $3)',
      values: [JSON.stringify(items), enforce, this.synchronousCommit],
    });
    const byId = new Map<string, typeof rows>();
    for (const row of rows) byId.set(row.request_id, [...(byId.get(row.request_id) ?? []), row]);
    return requests.map((r) => {
      // The same request id twice in a group: the first one settled it, the second found its row.
      const row = byId.get(r.entry.request_id)?.shift();
      return row?.inserted ? { inserted: true, charged: row.charged, seq: Number(row.seq) } : { inserted: false, charged: 0 };
    });
  }

  async lease(leaseId: string, accountId: string, want: number, min: number): Promise<LeaseOutcome> {
    const { rows } = await this.pool.query<{ outcome: LeaseOutcome['outcome']; granted: number; held: number }>({
      name: 'gw_lease',
      text: 'select * from gw_lease($1, $2, $3, $4, $5)',
      values: [leaseId, accountId, want, min, this.instance],
    });
    const row = rows[0];
    return { outcome: row.outcome, granted: row.granted, held: row.held };
  }

  async flush(items: readonly FlushItem[], enforce: boolean): Promise<SettleOutcome[]> {
    // holder '' when the line has no hold of its own; a missing holder (null) is what an instance before migration 16 sends,
    // which gw_settle reads as 'any hold of the request', so it is never left out here.
    const payload = items.map((i) => ({ entry: dbEntry(i.entry), lease: i.lease, holder: i.holder ?? '', day: i.periods.day, week: i.periods.week, month: i.periods.month }));
    const { rows } = await this.pool
      .query<{ request_id: string; inserted: boolean; charged: number; seq: number | null }>({
        name: 'gw_flush_set',
        text: 'select * from gw_flush_set($1, $2, $3)',
        values: [JSON.stringify(payload), enforce, this.synchronousCommit],
      })
      .catch((error: unknown) => {
        throw markRefused(error);
      });
    const byId = new Map<string, typeof rows>();
    for (const row of rows) {
      const same = byId.get(row.request_id);
      if (same) same.push(row);
      else byId.set(row.request_id, [row]);
    }
    return items.map((i) => {
      // The same request id twice in a flush: the first one settled it, the second found its row.
      const row = byId.get(i.entry.request_id)?.shift();
      return row?.inserted ? { inserted: true, charged: row.charged, seq: Number(row.seq) } : { inserted: false, charged: 0 };
    });
  }

  private recallHandler: ((accountId: string) => void) | undefined;

  async recall(accountId: string): Promise<number> {
    const { rows } = await this.pool.query<{ leased: number }>({
      name: 'gw_recall',
      text: `select l.leased, (select count(*) from (select pg_notify('${LEASE_CHANNEL}', $1::text) where l.leased > 0) n) as sent
             from (select coalesce(sum(credits), 0)::float8 as leased from gw_credit_holds
                   where account_id = $1 and request_id like 'lease:%' and instance <> $2) l`,
      values: [accountId, this.instance],
    });
    return rows[0]?.leased ?? 0;
  }

  onRecall(handler: (accountId: string) => void): void {
    this.recallHandler = handler;
  }

  /** A notification on the lease channel (the store's listener). */
  recalled(accountId: string): void {
    this.recallHandler?.(accountId);
  }

  async state(accountId: string): Promise<CreditState | undefined> {
    const [account, keys] = await Promise.all([
      this.pool.query<{ credits: number; reserved: number; reserved_tokens: number; leased: number }>(
        `select credits::float8 as credits, reserved::float8 as reserved, reserved_tokens,
           (select coalesce(sum(h.credits), 0)::float8 from gw_credit_holds h where h.account_id = $1 and h.request_id like 'lease:%') as leased
         from gw_accounts where id = $1`,
        [accountId],
      ),
      this.pool.query<{ id: string; spent_total: number; reserved: number }>('select id, spent_total::float8 as spent_total, reserved::float8 as reserved from gw_api_keys where account_id = $1', [accountId]),
    ]);
    const row = account.rows[0];
    if (!row) return undefined;
    return {
      credits: row.credits,
      reserved: row.reserved,
      leased: row.leased,
      reservedTokens: Number(row.reserved_tokens),
      keyTotals: new Map(keys.rows.filter((k) => k.spent_total !== 0).map((k) => [k.id, k.spent_total])),
      keyReserved: new Map(keys.rows.filter((k) => k.reserved !== 0).map((k) => [k.id, k.reserved])),
    };
  }

  async keySpend(accountId?: string): Promise<Array<{ keyId: string; accountId: string; total: number; reserved: number }>> {
    const { rows } = await this.pool.query<{ keyId: string; accountId: string; total: number; reserved: number }>(
      `select id as "keyId", account_id as "accountId", spent_total::float8 as total, reserved::float8 as reserved from gw_api_keys
       where (spent_total <> 0 or reserved <> 0) ${accountId === undefined ? '' : 'and account_id = $1'}`,
      accountId === undefined ? [] : [accountId],
    );
    return rows;
  }

  async usageTotals(query: { accountId?: string; since?: number }): Promise<UsageTotalsRow[]> {
    const values: unknown[] = [];
    const filter: string[] = [];
    if (query.accountId !== undefined) {
      values.push(query.accountId);
      filter.push(`account_id = $${values.length}`);
    }
    if (query.since !== undefined) {
      values.push(query.since);
      filter.push(`ts >= $${values.length}`);
    }
    const { rows } = await this.pool.query<UsageTotalsRow>(
      `select to_char(to_timestamp(ts / 1000.0) at time zone 'UTC', 'YYYY-MM-DD') as "date", account_id as "accountId", key_id as "keyId", model, provider,
         count(*)::int as requests, sum(input_tokens)::float8 as "inputTokens", sum(output_tokens)::float8 as "outputTokens",
         sum(reasoning_tokens)::float8 as "reasoningTokens", coalesce(sum(web_search_requests), 0)::float8 as "webSearchRequests",
         sum(charged_credits)::float8 as credits
       from gw_ledger ${filter.length > 0 ? `where ${filter.join(' and ')}` : ''}
       group by 1, 2, 3, 4, 5`,
      values,
    );
    return rows;
  }

  async billedRequests(prefix: string): Promise<Set<string>> {
    // A range on the primary key (no LIKE: a prefix may hold _ or %).
    const { rows } = await this.pool.query<{ request_id: string }>('select request_id from gw_ledger where request_id >= $1 and left(request_id, length($1)) = $1', [prefix]);
    return new Set(rows.map((r) => r.request_id));
  }

  async ledger(query: { accountId?: string; afterSeq?: number; limit: number }): Promise<LedgerRecord[]> {
    const values: unknown[] = [query.afterSeq ?? 0, query.limit];
    const byAccount = query.accountId === undefined ? '' : `and account_id = $${values.push(query.accountId)}`;
    const { rows } = await this.pool.query<LedgerRow>(`select ${LEDGER_COLUMNS} from gw_ledger where seq > $1 ${byAccount} order by seq limit $2`, values);
    return rows.map(ledgerFromRow);
  }

  async recentLedger(query: { accountId: string; before?: { ts: number; seq: number }; limit: number }): Promise<LedgerRecord[]> {
    // (account_id, ts) is indexed: a page walks it backwards from the cursor, whatever the ledger's length.
    const values: unknown[] = [query.accountId, query.limit];
    const before = query.before ? `and (ts, seq) < ($${values.push(query.before.ts)}, $${values.push(query.before.seq)})` : '';
    const { rows } = await this.pool.query<LedgerRow>(`select ${LEDGER_COLUMNS} from gw_ledger where account_id = $1 ${before} order by ts desc, seq desc limit $2`, values);
    return rows.map(ledgerFromRow);
  }

  async beat(): Promise<void> {
    await this.pool.query({
      name: 'gw_beat',
      text: `insert into gw_instances (id, seen_at) values ($1, (extract(epoch from clock_timestamp()) * 1000)::bigint)
             on conflict (id) do update set seen_at = excluded.seen_at`,
      values: [this.instance],
    });
  }

  async releaseStale(staleMs: number): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>('select gw_release_stale_holds($1) as n', [staleMs]);
    return Number(rows[0]?.n ?? 0);
  }

  async leave(): Promise<void> {
    await this.pool.query('delete from gw_instances where id = $1', [this.instance]);
  }
}
