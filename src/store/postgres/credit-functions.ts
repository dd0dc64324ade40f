/**
 * The current definition of every credit function in the PostgreSQL schema (holds, leases,
 * settlements, the outbox flush, spend sums), each written once. The versioned migrations
 * (migrations.ts) created and redefined these over time and stay as they were applied; this
 * module is the repeatable migration that `applyMigrations` runs after them whenever its text
 * changed (its checksum is kept in `gw_schema_repeatable`), so a fresh database and an upgraded
 * one end with the same bodies. To change a function, edit it here; a new signature needs a
 * versioned migration that drops the old one first (`create or replace` keeps the signature).
 * The SQL is in a module rather than .sql files so the built package carries it.
 */

/** One credit function: its name and the statement that defines it as it is now. */
export interface CreditFunction {
  name: string;
  sql: string;
}

export const CREDIT_FUNCTIONS: readonly CreditFunction[] = [
  {
    name: 'gw_key_spent',
    // As last defined by migration 2 (credits across instances).
    sql: `
-- What a key has spent in the period its limit resets on.
create or replace function gw_key_spent(k gw_api_keys, p_day text, p_week text, p_month text) returns numeric language sql immutable as $$
  select case k.limit_reset
    when 'daily' then case when k.spend_day = p_day then k.spent_day else 0 end
    when 'weekly' then case when k.spend_week = p_week then k.spent_week else 0 end
    when 'monthly' then case when k.spend_month = p_month then k.spent_month else 0 end
    else k.spent_total end
$$;
`,
  },
  {
    name: 'gw_reserve',
    // As last defined by migration 5 (hold takeover, commits without a flush wait).
    sql: `
create or replace function gw_reserve(p_request text, p_account text, p_key text, p_credits numeric, p_tokens bigint,
  p_enforce boolean, p_needs_balance boolean, p_instance text, p_day text, p_week text, p_month text)
returns table (outcome text, credits float8, reserved float8, used float8, lim float8, reserved_tokens bigint)
language plpgsql as $$
declare
  a gw_accounts%rowtype;
  k gw_api_keys%rowtype;
  spent numeric;
  avail numeric;
  tok bigint;
  counts boolean := p_credits > 0 or p_needs_balance;
  key_held boolean := false;
begin
  -- Holds are runtime state (a lost one is swept): no wait for the WAL flush.
  perform set_config('synchronous_commit', 'off', true);
  select * into a from gw_accounts where id = p_account for update;
  if not found then
    return query select 'no_account'::text, 0::float8, 0::float8, 0::float8, 0::float8, 0::bigint;
    return;
  end if;
  -- The same request admitted again (a batch line re-run by another instance after a crash)
  -- takes over its old hold: it is given back first, so the checks see it gone.
  if exists (select 1 from gw_credit_holds h where h.request_id = p_request) then
    perform gw_release(p_request);
    select * into a from gw_accounts where id = p_account;
  end if;
  tok := case when a.spend_month = p_month then a.month_tokens else 0 end;
  if a.monthly_token_quota is not null and (tok + a.reserved_tokens + p_tokens > a.monthly_token_quota or tok >= a.monthly_token_quota) then
    return query select 'quota'::text, a.credits::float8, a.reserved::float8, tok::float8, a.monthly_token_quota::float8, a.reserved_tokens;
    return;
  end if;
  if p_key is not null then
    select * into k from gw_api_keys where id = p_key and spend_limit is not null for update;
    if found then
      key_held := true;
      if counts then
        spent := gw_key_spent(k, p_day, p_week, p_month);
        avail := round(k.spend_limit - spent - k.reserved, 6);
        if not (p_credits <= avail and avail > 0) then
          return query select 'key_limit'::text, a.credits::float8, k.reserved::float8, spent::float8, k.spend_limit::float8, a.reserved_tokens;
          return;
        end if;
      end if;
    end if;
  end if;
  if a.spend_cap is not null and counts then
    spent := case when a.spend_month = p_month then a.month_spent else 0 end;
    avail := round(a.spend_cap - spent - a.reserved, 6);
    if not (p_credits <= avail and avail > 0) then
      return query select 'account_cap'::text, a.credits::float8, a.reserved::float8, spent::float8, a.spend_cap::float8, a.reserved_tokens;
      return;
    end if;
  end if;
  if p_enforce and counts then
    avail := round(a.credits - a.reserved, 6);
    if p_credits > avail or avail <= 0 then
      return query select 'balance'::text, a.credits::float8, a.reserved::float8, 0::float8, 0::float8, a.reserved_tokens;
      return;
    end if;
  end if;
  if p_credits <> 0 or p_tokens <> 0 then
    update gw_accounts set reserved = round(gw_accounts.reserved + p_credits, 6), reserved_tokens = gw_accounts.reserved_tokens + p_tokens where id = p_account;
    if key_held then
      update gw_api_keys set reserved = round(gw_api_keys.reserved + p_credits, 6) where id = p_key;
    end if;
    insert into gw_credit_holds (request_id, account_id, key_id, credits, tokens, instance, created_at)
      values (p_request, p_account, case when key_held then p_key else null end, p_credits, p_tokens, p_instance, (extract(epoch from clock_timestamp()) * 1000)::bigint);
  end if;
  return query select 'ok'::text, a.credits::float8, (a.reserved + p_credits)::float8, 0::float8, 0::float8, a.reserved_tokens + p_tokens;
end $$;
`,
  },
  {
    name: 'gw_release',
    // As last defined by migration 5 (hold takeover, commits without a flush wait).
    sql: `
create or replace function gw_release(p_request text) returns boolean language plpgsql as $$
declare
  h gw_credit_holds%rowtype;
begin
  perform set_config('synchronous_commit', 'off', true);
  select * into h from gw_credit_holds where request_id = p_request;
  if not found then return false; end if;
  -- The same lock order as gw_reserve and gw_settle (account, key, hold): no deadlock.
  perform 1 from gw_accounts where id = h.account_id for update;
  delete from gw_credit_holds where request_id = p_request returning * into h;
  if not found then return false; end if;
  update gw_accounts set reserved = greatest(0, round(reserved - h.credits, 6)), reserved_tokens = greatest(0, reserved_tokens - h.tokens) where id = h.account_id;
  if h.key_id is not null then
    update gw_api_keys set reserved = greatest(0, round(reserved - h.credits, 6)) where id = h.key_id;
  end if;
  return true;
end $$;
`,
  },
  {
    name: 'gw_release_own',
    // The release an instance asks for: only a hold it took, so a request id admitted again on
    // another instance (a batch line re-run there) keeps that instance's hold.
    sql: `
create or replace function gw_release_own(p_request text, p_instance text) returns boolean language plpgsql as $$
declare
  h gw_credit_holds%rowtype;
begin
  select * into h from gw_credit_holds where request_id = p_request and instance = p_instance;
  if not found then return false; end if;
  -- Under the account's lock no admission of the same request (same account) can take the hold over before it goes.
  perform 1 from gw_accounts where id = h.account_id for update;
  if not exists (select 1 from gw_credit_holds where request_id = p_request and instance = p_instance) then return false; end if;
  return gw_release(p_request);
end $$;
`,
  },
  {
    name: 'gw_settle',
    // Since migration 16 (settlement gives back its own hold): p_holder; writes web_search_requests (column of migration 13).
    sql: `
-- Settles a request's line exactly once per request id and gives back the hold p_holder (the
-- instance that admitted this run of it) took, and no other: the same request id held since by
-- another instance (a batch line run again there) keeps that hold until that run settles. A
-- line already billed (the other run settled first, or this line sent again) charges nothing,
-- and its run's own hold goes back all the same. p_holder '': no hold of its own. Null: a
-- flush of a gateway older than migration 16 still running beside newer ones (a rolling
-- upgrade), whose items name no holder: the hold under the request id, as that version did.
-- The other run's hold, kept, is of this same line (it charges nothing after this one): the
-- charge is bounded as though it were this run's own, not as another request's.
create or replace function gw_settle(p_entry jsonb, p_holder text, p_enforce boolean, p_day text, p_week text, p_month text, p_sync boolean)
returns table (inserted boolean, charged float8, seq bigint)
language plpgsql as $$
declare
  e gw_ledger%rowtype;
  a gw_accounts%rowtype;
  k gw_api_keys%rowtype;
  h gw_credit_holds%rowtype;
  mine boolean := false;
  line_held numeric := 0;
  own numeric := 0;
  own_tokens bigint := 0;
  room numeric;
  c numeric;
  s bigint;
begin
  -- store.synchronousCommit: false (default) commits without waiting for the WAL flush
  -- (a gateway crash loses nothing; a PostgreSQL crash may lose its last ~0.6 s of settlements).
  if not p_sync then perform set_config('synchronous_commit', 'off', true); end if;
  e := jsonb_populate_record(null::gw_ledger, p_entry);
  select * into a from gw_accounts where id = e.account_id for update;
  select * into k from gw_api_keys where id = e.key_id for update;
  -- Under the account's lock no admission of the same request can take the hold over meanwhile.
  select * into h from gw_credit_holds where request_id = e.request_id;
  if found then
    mine := p_holder is null or h.instance = p_holder;
    line_held := case when h.account_id = a.id then h.credits else 0 end;
    if mine then
      own := h.credits;
      own_tokens := h.tokens;
    end if;
  end if;
  c := greatest(0, coalesce(e.cost_credits, 0));
  if k.id is not null and k.spend_limit is not null then
    room := k.spend_limit - gw_key_spent(k, p_day, p_week, p_month) - (k.reserved - case when h.key_id = k.id then h.credits else 0 end);
    c := least(c, greatest(0, room));
  end if;
  if a.id is not null and a.spend_cap is not null then
    room := a.spend_cap - (case when a.spend_month = p_month then a.month_spent else 0 end) - (a.reserved - line_held);
    c := least(c, greatest(0, room));
  end if;
  if a.id is not null and p_enforce then
    c := least(c, greatest(0, a.credits - (a.reserved - line_held)));
  end if;
  c := round(c, 6);
  insert into gw_ledger (request_id, ts, account_id, key_id, model, provider, endpoint, input_tokens, output_tokens, reasoning_tokens,
      cached_tokens, cost_credits, charged_credits, estimated, aborted, discount, price_multiplier, media, web_search_requests,
      answer_id, finish_reason, streamed, latency_ms)
    values (e.request_id, e.ts, e.account_id, e.key_id, e.model, e.provider, e.endpoint, coalesce(e.input_tokens, 0), coalesce(e.output_tokens, 0),
      coalesce(e.reasoning_tokens, 0), coalesce(e.cached_tokens, 0), coalesce(e.cost_credits, 0), c, coalesce(e.estimated, false),
      coalesce(e.aborted, false), e.discount, e.price_multiplier, e.media, e.web_search_requests,
      e.answer_id, e.finish_reason, e.streamed, e.latency_ms)
    on conflict (request_id) do nothing
    returning gw_ledger.seq into s;
  if s is null then
    -- (Not gw_release: it turns the flush's synchronous commit off.)
    if mine and p_holder is not null then
      delete from gw_credit_holds where request_id = e.request_id and instance = p_holder;
      update gw_accounts set reserved = greatest(0, round(reserved - own, 6)), reserved_tokens = greatest(0, reserved_tokens - own_tokens) where id = h.account_id;
      if h.key_id is not null then
        update gw_api_keys set reserved = greatest(0, round(reserved - own, 6)) where id = h.key_id;
      end if;
    end if;
    return query select false, 0::float8, null::bigint;
    return;
  end if;
  if mine then
    delete from gw_credit_holds where request_id = e.request_id;
  end if;
  if a.id is not null then
    update gw_accounts set
      credits = greatest(-1000000000, round(gw_accounts.credits - c, 6)),
      reserved = greatest(0, round(gw_accounts.reserved - own, 6)),
      reserved_tokens = greatest(0, gw_accounts.reserved_tokens - own_tokens),
      month_spent = case when gw_accounts.spend_month = p_month then gw_accounts.month_spent + c when gw_accounts.spend_month > p_month then gw_accounts.month_spent else c end,
      month_tokens = case when gw_accounts.spend_month = p_month then gw_accounts.month_tokens + e.input_tokens + e.output_tokens
        when gw_accounts.spend_month > p_month then gw_accounts.month_tokens else e.input_tokens + e.output_tokens end,
      spend_month = greatest(coalesce(gw_accounts.spend_month, p_month), p_month)
    where id = e.account_id;
  end if;
  if k.id is not null then
    update gw_api_keys set
      reserved = case when h.key_id = k.id then greatest(0, round(gw_api_keys.reserved - own, 6)) else gw_api_keys.reserved end,
      spent_total = gw_api_keys.spent_total + c,
      spent_day = case when gw_api_keys.spend_day = p_day then gw_api_keys.spent_day + c when gw_api_keys.spend_day > p_day then gw_api_keys.spent_day else c end,
      spend_day = greatest(coalesce(gw_api_keys.spend_day, p_day), p_day),
      spent_week = case when gw_api_keys.spend_week = p_week then gw_api_keys.spent_week + c when gw_api_keys.spend_week > p_week then gw_api_keys.spent_week else c end,
      spend_week = greatest(coalesce(gw_api_keys.spend_week, p_week), p_week),
      spent_month = case when gw_api_keys.spend_month = p_month then gw_api_keys.spent_month + c when gw_api_keys.spend_month > p_month then gw_api_keys.spent_month else c end,
      spend_month = greatest(coalesce(gw_api_keys.spend_month, p_month), p_month)
    where id = k.id;
  elsif mine and h.key_id is not null then
    update gw_api_keys set reserved = greatest(0, round(reserved - own, 6)) where id = h.key_id;
  end if;
  return query select true, c::float8, s;
end $$;
`,
  },
  {
    name: 'gw_release_stale_holds',
    // As last defined by migration 6 (admissions and settlements in groups).
    sql: `
create or replace function gw_release_stale_holds(p_stale_ms bigint) returns integer language plpgsql as $$
declare
  now_ms bigint := (extract(epoch from clock_timestamp()) * 1000)::bigint;
  r record;
  n integer := 0;
begin
  if not pg_try_advisory_xact_lock(7427201002) then return 0; end if;
  for r in
    select h.request_id from gw_credit_holds h
    where not exists (select 1 from gw_instances i where i.id = h.instance and i.seen_at > now_ms - p_stale_ms)
      and h.created_at < now_ms - p_stale_ms
    order by h.account_id, h.request_id
  loop
    if gw_release(r.request_id) then n := n + 1; end if;
  end loop;
  delete from gw_instances where seen_at < now_ms - 86400000;
  return n;
end $$;
`,
  },
  {
    name: 'gw_rebuild_spend',
    // As last defined by migration 3 (rebuild spend aggregates).
    sql: `
-- Recomputes the spend aggregates (accounts: this month's credits and tokens; keys: all time,
-- today, this week, this month) from gw_ledger, for rows copied in without gw_settle
-- (\`gateway store migrate\`). Periods are UTC, weeks from Monday, as everywhere else.
create or replace function gw_rebuild_spend() returns void language plpgsql as $$
declare
  now_utc timestamp := clock_timestamp() at time zone 'UTC';
  d text := to_char(now_utc, 'YYYY-MM-DD');
  w text := to_char(date_trunc('week', now_utc), 'YYYY-MM-DD');
  m text := to_char(now_utc, 'YYYY-MM');
  day_ms bigint := (extract(epoch from date_trunc('day', now_utc)) * 1000)::bigint;
  week_ms bigint := (extract(epoch from date_trunc('week', now_utc)) * 1000)::bigint;
  month_ms bigint := (extract(epoch from date_trunc('month', now_utc)) * 1000)::bigint;
begin
  update gw_accounts set spend_month = m, month_spent = 0, month_tokens = 0;
  update gw_accounts a set month_spent = s.credits, month_tokens = s.tokens
    from (select account_id, sum(charged_credits) as credits, sum(input_tokens + output_tokens) as tokens
          from gw_ledger where ts >= month_ms group by account_id) s
    where a.id = s.account_id;
  update gw_api_keys set spend_day = d, spend_week = w, spend_month = m, spent_total = 0, spent_day = 0, spent_week = 0, spent_month = 0;
  update gw_api_keys k set
      spent_total = s.total,
      spent_day = s.today,
      spent_week = s.week,
      spent_month = s.month
    from (select key_id, sum(charged_credits) as total,
            coalesce(sum(charged_credits) filter (where ts >= day_ms), 0) as today,
            coalesce(sum(charged_credits) filter (where ts >= week_ms), 0) as week,
            coalesce(sum(charged_credits) filter (where ts >= month_ms), 0) as month
          from gw_ledger group by key_id) s
    where k.id = s.key_id;
end $$;
`,
  },
  {
    name: 'gw_reserve_many',
    // As last defined by migration 6 (admissions and settlements in groups).
    sql: `
-- Settlements that arrive while another is on its way go in one call (one round trip, one
-- commit): each settled exactly as gw_settle does, in account order — the order every
-- function that locks several accounts uses (the sweep too, from now on), so none deadlock.
-- Admissions likewise: each item checked and held exactly as gw_reserve does, in account order.
create or replace function gw_reserve_many(p_items jsonb, p_instance text)
returns table (request_id text, outcome text, credits float8, reserved float8, used float8, lim float8, reserved_tokens bigint)
language plpgsql as $$
declare
  r jsonb;
begin
  for r in select value from jsonb_array_elements(p_items) order by value->>'a', value->>'r' loop
    return query select r->>'r', s.*
      from gw_reserve(r->>'r', r->>'a', r->>'k', (r->>'c')::numeric, (r->>'t')::bigint, (r->>'e')::boolean, (r->>'n')::boolean,
        p_instance, r->>'day', r->>'week', r->>'month') s;
  end loop;
end $$;
`,
  },
  {
    name: 'gw_settle_many',
    // As last defined by migration 6 (admissions and settlements in groups); each item's holder since migration 16.
    sql: `
create or replace function gw_settle_many(p_items jsonb, p_enforce boolean, p_sync boolean)
returns table (request_id text, inserted boolean, charged float8, seq bigint)
language plpgsql as $$
declare
  r jsonb;
begin
  for r in select value from jsonb_array_elements(p_items) order by value->'entry'->>'account_id', value->'entry'->>'request_id' loop
    return query select r->'entry'->>'request_id', s.inserted, s.charged, s.seq
      from gw_settle(r->'entry', r->>'holder', p_enforce, r->>'day', r->>'week', r->>'month', p_sync) s;
  end loop;
end $$;
`,
  },
  {
    name: 'gw_lease',
    // As last defined by migration 7 (settlement outbox and leased slices).
    sql: `
-- Leased slices (docs/scale-out.md): an instance holds a slice of an account's available
-- balance as one hold keyed 'lease:<instance>:<account>' (counted in reserved, swept like any
-- hold when the instance stops beating) and admits requests from it in memory. gw_lease tops
-- it up; accounts with a monthly spend cap or token quota are not leased (exact path), nor is
-- an account whose available balance is under p_min (an almost empty account is admitted
-- request by request, so no credit sits idle in a slice while another instance refuses).
create or replace function gw_lease(p_lease text, p_account text, p_want numeric, p_min numeric, p_instance text)
returns table (outcome text, granted float8, held float8)
language plpgsql as $$
declare
  a gw_accounts%rowtype;
  avail numeric;
  g numeric;
  h numeric;
begin
  perform set_config('synchronous_commit', 'off', true);
  select * into a from gw_accounts where id = p_account for update;
  if not found then
    return query select 'no_account'::text, 0::float8, 0::float8;
    return;
  end if;
  -- A negative p_want gives back up to that much of the slice (a fragment too small to use).
  if p_want < 0 then
    select credits into h from gw_credit_holds where request_id = p_lease and account_id = p_account for update;
    g := round(least(-p_want, greatest(0, coalesce(h, 0))), 6);
    if g > 0 then
      update gw_credit_holds set credits = round(credits - g, 6) where request_id = p_lease;
      update gw_accounts set reserved = greatest(0, round(gw_accounts.reserved - g, 6)) where id = p_account;
    end if;
    return query select 'ok'::text, (-g)::float8, (coalesce(h, 0) - g)::float8;
    return;
  end if;
  if a.spend_cap is not null or a.monthly_token_quota is not null then
    return query select 'exact'::text, 0::float8, 0::float8;
    return;
  end if;
  avail := round(a.credits - a.reserved, 6);
  if avail < p_min or avail <= 0 then
    return query select 'small'::text, 0::float8, coalesce((select credits from gw_credit_holds where request_id = p_lease), 0)::float8;
    return;
  end if;
  -- At most a quarter of what is available: other instances can still lease or hold.
  g := round(least(p_want, avail / 4), 6);
  insert into gw_credit_holds (request_id, account_id, key_id, credits, tokens, instance, created_at)
    values (p_lease, p_account, null, g, 0, p_instance, (extract(epoch from clock_timestamp()) * 1000)::bigint)
    on conflict (request_id) do update set credits = round(gw_credit_holds.credits + excluded.credits, 6), instance = excluded.instance
    returning gw_credit_holds.credits into h;
  update gw_accounts set reserved = round(gw_accounts.reserved + g, 6) where id = p_account;
  return query select 'ok'::text, g::float8, h::float8;
end $$;
`,
  },
  {
    name: 'gw_settle_leased',
    // As last defined by migration 8 (leased charges never below zero); writes web_search_requests (column of migration 13).
    sql: `
-- gw_settle_leased of migration 7 took the part a lease hold covers without looking at the
-- balance: after an operator's withdrawal (billing addCredits with a negative amount, checked
-- against credits, not against what slices hold) the lines of a slice drove credits below
-- zero. With enforcement the part taken from the lease is now no more than the balance has
-- besides the other holds (the same rule as gw_settle's); the rest as before.
create or replace function gw_settle_leased(p_entry jsonb, p_lease text, p_enforce boolean, p_day text, p_week text, p_month text)
returns table (inserted boolean, charged float8, seq bigint)
language plpgsql as $$
declare
  e gw_ledger%rowtype;
  a gw_accounts%rowtype;
  k gw_api_keys%rowtype;
  held numeric;
  from_lease numeric := 0;
  c numeric;
  s bigint;
begin
  e := jsonb_populate_record(null::gw_ledger, p_entry);
  select * into a from gw_accounts where id = e.account_id for update;
  select * into k from gw_api_keys where id = e.key_id for update;
  select h.credits into held from gw_credit_holds h where h.request_id = p_lease and h.account_id = e.account_id;
  c := round(greatest(0, coalesce(e.charged_credits, e.cost_credits, 0)), 6);
  if held is not null then
    from_lease := least(c, greatest(0, held));
    if a.id is not null and p_enforce then
      from_lease := least(from_lease, greatest(0, a.credits - (a.reserved - held)));
    end if;
  end if;
  if a.id is not null and p_enforce and c > from_lease then
    c := from_lease + least(c - from_lease, greatest(0, a.credits - a.reserved));
  end if;
  c := round(c, 6);
  from_lease := round(from_lease, 6);
  insert into gw_ledger (request_id, ts, account_id, key_id, model, provider, endpoint, input_tokens, output_tokens, reasoning_tokens,
      cached_tokens, cost_credits, charged_credits, estimated, aborted, discount, price_multiplier, media, web_search_requests,
      answer_id, finish_reason, streamed, latency_ms)
    values (e.request_id, e.ts, e.account_id, e.key_id, e.model, e.provider, e.endpoint, coalesce(e.input_tokens, 0), coalesce(e.output_tokens, 0),
      coalesce(e.reasoning_tokens, 0), coalesce(e.cached_tokens, 0), coalesce(e.cost_credits, 0), c, coalesce(e.estimated, false),
      coalesce(e.aborted, false), e.discount, e.price_multiplier, e.media, e.web_search_requests,
      e.answer_id, e.finish_reason, e.streamed, e.latency_ms)
    on conflict (request_id) do nothing
    returning gw_ledger.seq into s;
  if s is null then
    return query select false, 0::float8, null::bigint;
    return;
  end if;
  if from_lease > 0 then
    update gw_credit_holds set credits = round(gw_credit_holds.credits - from_lease, 6) where request_id = p_lease;
  end if;
  if a.id is not null then
    update gw_accounts set
      credits = greatest(-1000000000, round(gw_accounts.credits - c, 6)),
      reserved = greatest(0, round(gw_accounts.reserved - from_lease, 6)),
      month_spent = case when gw_accounts.spend_month = p_month then gw_accounts.month_spent + c when gw_accounts.spend_month > p_month then gw_accounts.month_spent else c end,
      month_tokens = case when gw_accounts.spend_month = p_month then gw_accounts.month_tokens + e.input_tokens + e.output_tokens
        when gw_accounts.spend_month > p_month then gw_accounts.month_tokens else e.input_tokens + e.output_tokens end,
      spend_month = greatest(coalesce(gw_accounts.spend_month, p_month), p_month)
    where id = e.account_id;
  end if;
  if k.id is not null then
    update gw_api_keys set
      spent_total = gw_api_keys.spent_total + c,
      spent_day = case when gw_api_keys.spend_day = p_day then gw_api_keys.spent_day + c when gw_api_keys.spend_day > p_day then gw_api_keys.spent_day else c end,
      spend_day = greatest(coalesce(gw_api_keys.spend_day, p_day), p_day),
      spent_week = case when gw_api_keys.spend_week = p_week then gw_api_keys.spent_week + c when gw_api_keys.spend_week > p_week then gw_api_keys.spent_week else c end,
      spend_week = greatest(coalesce(gw_api_keys.spend_week, p_week), p_week),
      spent_month = case when gw_api_keys.spend_month = p_month then gw_api_keys.spent_month + c when gw_api_keys.spend_month > p_month then gw_api_keys.spent_month else c end,
      spend_month = greatest(coalesce(gw_api_keys.spend_month, p_month), p_month)
    where id = k.id;
  end if;
  return query select true, c::float8, s;
end $$;
`,
  },
  {
    name: 'gw_flush',
    // As last defined by migration 7 (settlement outbox and leased slices); each item's holder since migration 16.
    sql: `
-- One flush of an instance's settlement outbox: every line settled exactly once per request
-- id, in account order (the lock order of every function here), in one transaction: lines
-- admitted from a leased slice by gw_settle_leased, the others by gw_settle (the hold of the
-- instance the line names as its holder).
create or replace function gw_flush(p_items jsonb, p_enforce boolean, p_sync boolean)
returns table (request_id text, inserted boolean, charged float8, seq bigint)
language plpgsql as $$
declare
  r jsonb;
begin
  if not p_sync then perform set_config('synchronous_commit', 'off', true); end if;
  for r in select value from jsonb_array_elements(p_items) order by value->'entry'->>'account_id', value->'entry'->>'request_id' loop
    if r ? 'lease' then
      return query select r->'entry'->>'request_id', s.inserted, s.charged, s.seq
        from gw_settle_leased(r->'entry', r->>'lease', p_enforce, r->>'day', r->>'week', r->>'month') s;
    else
      return query select r->'entry'->>'request_id', s.inserted, s.charged, s.seq
        from gw_settle(r->'entry', r->>'holder', p_enforce, r->>'day', r->>'week', r->>'month', p_sync) s;
    end if;
  end loop;
end $$;
`,
  },
  {
    name: 'gw_flush_set',
    // As last defined by migration 9 (outbox flush in one set); writes web_search_requests (column of migration 13).
    sql: `
-- gw_flush settles line by line (a plpgsql call, three row locks and four writes per line).
-- The common flush — every line admitted from a leased slice whose hold covers what its lines
-- charged, all in one UTC day — is done as one set: the rows locked once each (accounts, then
-- keys, then lease holds, in id order: the lock order of every function here), the ledger rows
-- inserted in one statement (on conflict (request_id) do nothing: exactly once), then one
-- update per account, key and lease hold with the sums of the rows inserted. Anything else (a
-- line with its own hold, a lease that does not cover its lines, a flush across midnight) goes
-- through gw_flush as before, with the same results.
create or replace function gw_flush_set(p_items jsonb, p_enforce boolean, p_sync boolean)
returns table (request_id text, inserted boolean, charged float8, seq bigint)
language plpgsql as $$
declare
  d text;
  w text;
  m text;
begin
  if not p_sync then perform set_config('synchronous_commit', 'off', true); end if;
  if exists (select 1 from jsonb_array_elements(p_items) v where not (v ? 'lease'))
     or (select count(distinct (v->>'day', v->>'week', v->>'month')) from jsonb_array_elements(p_items) v) <> 1 then
    return query select * from gw_flush(p_items, p_enforce, p_sync);
    return;
  end if;
  select v->>'day', v->>'week', v->>'month' into d, w, m from jsonb_array_elements(p_items) v limit 1;
  perform 1 from gw_accounts a where a.id in (select v->'entry'->>'account_id' from jsonb_array_elements(p_items) v) order by a.id for update;
  perform 1 from gw_api_keys k where k.id in (select v->'entry'->>'key_id' from jsonb_array_elements(p_items) v) order by k.id for update;
  perform 1 from gw_credit_holds h where h.request_id in (select v->>'lease' from jsonb_array_elements(p_items) v) order by h.request_id for update;
  -- With enforcement, an account whose holds exceed its balance (an operator's withdrawal while
  -- slices were leased) is settled line by line (gw_settle_leased bounds by the balance then).
  if p_enforce and exists (select 1 from gw_accounts a where a.id in (select v->'entry'->>'account_id' from jsonb_array_elements(p_items) v) and a.credits < a.reserved) then
    return query select * from gw_flush(p_items, p_enforce, p_sync);
    return;
  end if;
  -- Each lease must cover what its lines charge (counting a request id once); else line by line.
  if exists (
    select 1 from (
      select u.lease, u.account_id, sum(u.c) as c from (
        select distinct on (v->'entry'->>'request_id') v->>'lease' as lease, v->'entry'->>'account_id' as account_id,
          round(greatest(0, coalesce((v->'entry'->>'charged_credits')::numeric, (v->'entry'->>'cost_credits')::numeric, 0)), 6) as c
        from jsonb_array_elements(p_items) v order by v->'entry'->>'request_id') u
      group by 1, 2) g
    left join gw_credit_holds h on h.request_id = g.lease and h.account_id = g.account_id
    where h.request_id is null or h.credits < g.c) then
    return query select * from gw_flush(p_items, p_enforce, p_sync);
    return;
  end if;
  return query
  with lines as (
    select distinct on (e.request_id) e.*, v->>'lease' as lease,
      round(greatest(0, coalesce(e.charged_credits, e.cost_credits, 0)), 6) as c
    from jsonb_array_elements(p_items) v, jsonb_populate_record(null::gw_ledger, v->'entry') e
    order by e.request_id
  ), ins as (
    insert into gw_ledger (request_id, ts, account_id, key_id, model, provider, endpoint, input_tokens, output_tokens, reasoning_tokens,
        cached_tokens, cost_credits, charged_credits, estimated, aborted, discount, price_multiplier, media, web_search_requests,
        answer_id, finish_reason, streamed, latency_ms)
      select l.request_id, l.ts, l.account_id, l.key_id, l.model, l.provider, l.endpoint, coalesce(l.input_tokens, 0), coalesce(l.output_tokens, 0),
        coalesce(l.reasoning_tokens, 0), coalesce(l.cached_tokens, 0), coalesce(l.cost_credits, 0), l.c, coalesce(l.estimated, false),
        coalesce(l.aborted, false), l.discount, l.price_multiplier, l.media, l.web_search_requests,
        l.answer_id, l.finish_reason, l.streamed, l.latency_ms
      from lines l
    on conflict on constraint gw_ledger_pkey do nothing
    returning gw_ledger.request_id as rid, gw_ledger.account_id as aid, gw_ledger.key_id as kid, gw_ledger.charged_credits as ch,
      gw_ledger.input_tokens + gw_ledger.output_tokens as tok, gw_ledger.seq as s
  ), by_account as (
    update gw_accounts a set
      credits = greatest(-1000000000, round(a.credits - t.c, 6)),
      reserved = greatest(0, round(a.reserved - t.c, 6)),
      month_spent = case when a.spend_month = m then a.month_spent + t.c when a.spend_month > m then a.month_spent else t.c end,
      month_tokens = case when a.spend_month = m then a.month_tokens + t.tok when a.spend_month > m then a.month_tokens else t.tok end,
      spend_month = greatest(coalesce(a.spend_month, m), m)
    from (select aid, sum(ch) as c, sum(tok) as tok from ins group by aid) t
    where a.id = t.aid
    returning 1
  ), by_key as (
    update gw_api_keys k set
      spent_total = k.spent_total + t.c,
      spent_day = case when k.spend_day = d then k.spent_day + t.c when k.spend_day > d then k.spent_day else t.c end,
      spend_day = greatest(coalesce(k.spend_day, d), d),
      spent_week = case when k.spend_week = w then k.spent_week + t.c when k.spend_week > w then k.spent_week else t.c end,
      spend_week = greatest(coalesce(k.spend_week, w), w),
      spent_month = case when k.spend_month = m then k.spent_month + t.c when k.spend_month > m then k.spent_month else t.c end,
      spend_month = greatest(coalesce(k.spend_month, m), m)
    from (select kid, sum(ch) as c from ins group by kid) t
    where k.id = t.kid
    returning 1
  ), by_lease as (
    update gw_credit_holds h set credits = round(h.credits - t.c, 6)
    from (select l.lease, sum(i.ch) as c from ins i join lines l on l.request_id = i.rid group by l.lease) t
    where h.request_id = t.lease
    returning 1
  )
  -- (Data-modifying CTEs always run, referenced or not.)
  select i.rid, true, i.ch::float8, i.s from ins i;
end $$;
`,
  },
];

/** The repeatable migration: every credit function, in one statement batch. */
export const CREDIT_FUNCTIONS_SQL = CREDIT_FUNCTIONS.map((f) => f.sql).join('');
