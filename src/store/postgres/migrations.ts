/**
 * The PostgreSQL schema, as versioned SQL migrations applied in order at start-up (see
 * docs/scale-out.md). They live in a module rather than .sql files so the built package
 * carries them. Never edit a released migration: add the next version.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'records',
    sql: `
create table gw_accounts (
  id text primary key,
  email text not null,
  password_hash text,
  tier text not null,
  credits numeric not null,
  reserved numeric not null default 0,
  version bigint not null default 0,
  monthly_token_quota bigint,
  suspended boolean not null default false,
  rpm integer,
  created_at bigint not null,
  billed_seq bigint,
  spend_cap numeric
);
create index gw_accounts_email on gw_accounts (lower(email));

create table gw_api_keys (
  id text primary key,
  account_id text not null,
  name text not null,
  hash text not null unique,
  preview text not null,
  rpm integer,
  expires_at bigint,
  revoked_at bigint,
  created_at bigint not null,
  models jsonb,
  endpoints jsonb,
  spend_limit numeric,
  limit_reset text,
  last_used_at bigint,
  version bigint not null default 0
);
create index gw_api_keys_account on gw_api_keys (account_id);

create table gw_sessions (
  id text primary key,
  account_id text not null,
  hash text not null unique,
  created_at bigint not null,
  expires_at bigint not null
);
create index gw_sessions_account on gw_sessions (account_id);

create table gw_media (
  seq bigserial unique,
  id text primary key,
  account_id text not null,
  media_type text not null,
  status text not null,
  created_at bigint not null,
  record text not null
);
create index gw_media_account on gw_media (account_id, created_at desc, seq desc);
create index gw_media_created on gw_media (created_at desc, seq desc);

create table gw_responses (
  id text primary key,
  account_id text not null,
  created_at bigint not null,
  request text not null,
  response text not null
);
create index gw_responses_created on gw_responses (created_at);

-- Files: the record as JSON text, the contents in the database so any instance serves any file.
create table gw_files (
  seq bigserial unique,
  id text primary key,
  account_id text not null,
  purpose text not null,
  created_at bigint not null,
  record text not null,
  content bytea not null
);
create index gw_files_account on gw_files (account_id, created_at desc, seq desc);

-- Batches: the record as JSON text, the lease in columns (claimed by one conditional UPDATE).
create table gw_batches (
  seq bigserial unique,
  id text primary key,
  account_id text not null,
  status text not null,
  created_at bigint not null,
  lease_owner text,
  lease_expires_at bigint,
  record text not null
);
create index gw_batches_account on gw_batches (account_id, created_at desc, seq desc);
create index gw_batches_created on gw_batches (created_at desc, seq desc);

create table gw_batch_lines (
  batch_id text not null,
  idx integer not null,
  custom_id text not null,
  outcome text not null,
  result text not null,
  primary key (batch_id, idx)
);

-- Every update bumps the row's version, so a cache applies a row only when it is newer.
create function gw_bump_version() returns trigger language plpgsql as $$
begin
  new.version := old.version + 1;
  return new;
end $$;
create trigger gw_accounts_version before update on gw_accounts for each row execute function gw_bump_version();
create trigger gw_api_keys_version before update on gw_api_keys for each row execute function gw_bump_version();

-- Every change to the records the request path caches is announced to every instance:
-- the row itself when it fits a notification, its id otherwise (the listener reads it).
create function gw_announce() returns trigger language plpgsql as $$
declare
  row_json text;
  payload text;
begin
  if tg_op = 'DELETE' then
    row_json := row_to_json(old)::text;
  else
    row_json := row_to_json(new)::text;
  end if;
  payload := json_build_object(
    'origin', coalesce(current_setting('gateway.instance', true), ''),
    'table', tg_table_name,
    'op', lower(tg_op),
    'row', case when octet_length(row_json) < 7000 then row_json::json else null end,
    'id', case when tg_op = 'DELETE' then old.id else new.id end
  )::text;
  perform pg_notify('gateway_records', payload);
  return null;
end $$;
create trigger gw_accounts_announce after insert or update or delete on gw_accounts for each row execute function gw_announce();
create trigger gw_api_keys_announce after insert or update or delete on gw_api_keys for each row execute function gw_announce();
create trigger gw_sessions_announce after insert or update or delete on gw_sessions for each row execute function gw_announce();
`,
  },
  {
    version: 2,
    name: 'credits across instances',
    sql: `
-- Credit holds (one per admitted request), spend aggregates per period and the usage ledger:
-- admission is one call of gw_reserve, settlement one call of gw_settle (docs/scale-out.md).
alter table gw_accounts
  add column reserved_tokens bigint not null default 0,
  add column spend_month text,
  add column month_spent numeric not null default 0,
  add column month_tokens bigint not null default 0;
alter table gw_api_keys
  add column reserved numeric not null default 0,
  add column spent_total numeric not null default 0,
  add column spend_day text,
  add column spent_day numeric not null default 0,
  add column spend_week text,
  add column spent_week numeric not null default 0,
  add column spend_month text,
  add column spent_month numeric not null default 0;

-- The usage ledger: one row per settled request, keyed by its request id (settled exactly once).
create table gw_ledger (
  seq bigserial,
  request_id text primary key,
  ts bigint not null,
  account_id text not null,
  key_id text not null,
  model text not null,
  provider text not null,
  endpoint text not null,
  input_tokens bigint not null default 0,
  output_tokens bigint not null default 0,
  reasoning_tokens bigint not null default 0,
  cached_tokens bigint not null default 0,
  cost_credits numeric not null default 0,
  charged_credits numeric not null default 0,
  estimated boolean not null default false,
  aborted boolean not null default false,
  discount numeric,
  price_multiplier numeric,
  media jsonb
);
create index gw_ledger_account_ts on gw_ledger (account_id, ts);

-- What each request in flight holds, and which instance admitted it (released when it settles,
-- or by any instance once its instance stops beating).
create table gw_credit_holds (
  request_id text primary key,
  account_id text not null,
  key_id text,
  credits numeric not null,
  tokens bigint not null,
  instance text not null,
  created_at bigint not null
);
create index gw_credit_holds_instance on gw_credit_holds (instance);

create table gw_instances (
  id text primary key,
  seen_at bigint not null
);

-- Reservations and spend aggregates are bookkeeping: no announcement to the other instances
-- (a credit change still is, so every instance's cached balance stays current).
drop trigger gw_accounts_announce on gw_accounts;
create trigger gw_accounts_announce after insert or delete on gw_accounts for each row execute function gw_announce();
create trigger gw_accounts_announce_update after update on gw_accounts for each row
  when ((old.email, old.password_hash, old.tier, old.credits, old.monthly_token_quota, old.suspended, old.rpm, old.created_at, old.billed_seq, old.spend_cap)
    is distinct from (new.email, new.password_hash, new.tier, new.credits, new.monthly_token_quota, new.suspended, new.rpm, new.created_at, new.billed_seq, new.spend_cap))
  execute function gw_announce();
drop trigger gw_api_keys_announce on gw_api_keys;
create trigger gw_api_keys_announce after insert or delete on gw_api_keys for each row execute function gw_announce();
create trigger gw_api_keys_announce_update after update on gw_api_keys for each row
  when ((old.account_id, old.name, old.hash, old.preview, old.rpm, old.expires_at, old.revoked_at, old.created_at, old.models, old.endpoints, old.spend_limit, old.limit_reset, old.last_used_at)
    is distinct from (new.account_id, new.name, new.hash, new.preview, new.rpm, new.expires_at, new.revoked_at, new.created_at, new.models, new.endpoints, new.spend_limit, new.limit_reset, new.last_used_at))
  execute function gw_announce();

-- What a key has spent in the period its limit resets on.
create function gw_key_spent(k gw_api_keys, p_day text, p_week text, p_month text) returns numeric language sql immutable as $$
  select case k.limit_reset
    when 'daily' then case when k.spend_day = p_day then k.spent_day else 0 end
    when 'weekly' then case when k.spend_week = p_week then k.spent_week else 0 end
    when 'monthly' then case when k.spend_month = p_month then k.spent_month else 0 end
    else k.spent_total end
$$;

-- Admission: checks the monthly token quota, the key's spend limit, the account's monthly spend
-- cap and the balance against what is spent and held, and holds credits and tokens; the rows
-- stay locked until the end, so concurrent calls on any instances are checked one after another.
create function gw_reserve(p_request text, p_account text, p_key text, p_credits numeric, p_tokens bigint,
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
  select * into a from gw_accounts where id = p_account for update;
  if not found then
    return query select 'no_account'::text, 0::float8, 0::float8, 0::float8, 0::float8, 0::bigint;
    return;
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

-- Gives a hold back (idempotent: a hold released or settled already is not there).
create function gw_release(p_request text) returns boolean language plpgsql as $$
declare
  h gw_credit_holds%rowtype;
begin
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

-- Settlement, exactly once: inserts the ledger row keyed by request id and, only when it was
-- inserted, charges the balance (no more than the balance and each ceiling still allow, other
-- requests' holds taken off), adds to the period aggregates and gives the request's hold back.
create function gw_settle(p_entry jsonb, p_enforce boolean, p_day text, p_week text, p_month text)
returns table (inserted boolean, charged float8, seq bigint)
language plpgsql as $$
declare
  e gw_ledger%rowtype;
  a gw_accounts%rowtype;
  k gw_api_keys%rowtype;
  h gw_credit_holds%rowtype;
  own numeric := 0;
  own_tokens bigint := 0;
  room numeric;
  c numeric;
  s bigint;
begin
  e := jsonb_populate_record(null::gw_ledger, p_entry);
  select * into a from gw_accounts where id = e.account_id for update;
  select * into k from gw_api_keys where id = e.key_id for update;
  select * into h from gw_credit_holds where request_id = e.request_id;
  if found then
    own := h.credits;
    own_tokens := h.tokens;
  end if;
  c := greatest(0, coalesce(e.cost_credits, 0));
  if k.id is not null and k.spend_limit is not null then
    room := k.spend_limit - gw_key_spent(k, p_day, p_week, p_month) - (k.reserved - case when h.key_id = k.id then own else 0 end);
    c := least(c, greatest(0, room));
  end if;
  if a.id is not null and a.spend_cap is not null then
    room := a.spend_cap - (case when a.spend_month = p_month then a.month_spent else 0 end) - (a.reserved - own);
    c := least(c, greatest(0, room));
  end if;
  if a.id is not null and p_enforce then
    c := least(c, greatest(0, a.credits - (a.reserved - own)));
  end if;
  c := round(c, 6);
  insert into gw_ledger (request_id, ts, account_id, key_id, model, provider, endpoint, input_tokens, output_tokens, reasoning_tokens,
      cached_tokens, cost_credits, charged_credits, estimated, aborted, discount, price_multiplier, media)
    values (e.request_id, e.ts, e.account_id, e.key_id, e.model, e.provider, e.endpoint, coalesce(e.input_tokens, 0), coalesce(e.output_tokens, 0),
      coalesce(e.reasoning_tokens, 0), coalesce(e.cached_tokens, 0), coalesce(e.cost_credits, 0), c, coalesce(e.estimated, false),
      coalesce(e.aborted, false), e.discount, e.price_multiplier, e.media)
    on conflict (request_id) do nothing
    returning gw_ledger.seq into s;
  if s is null then
    return query select false, 0::float8, null::bigint;
    return;
  end if;
  delete from gw_credit_holds where request_id = e.request_id;
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
  elsif h.key_id is not null then
    update gw_api_keys set reserved = greatest(0, round(reserved - own, 6)) where id = h.key_id;
  end if;
  return query select true, c::float8, s;
end $$;

-- Holds of instances that stopped beating (a crash, kill -9) are given back by whichever
-- instance sweeps first; one sweeper at a time (transaction-scoped advisory lock).
create function gw_release_stale_holds(p_stale_ms bigint) returns integer language plpgsql as $$
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
  loop
    if gw_release(r.request_id) then n := n + 1; end if;
  end loop;
  delete from gw_instances where seen_at < now_ms - 86400000;
  return n;
end $$;
`,
  },
  {
    version: 3,
    name: 'rebuild spend aggregates',
    sql: `
-- Recomputes the spend aggregates (accounts: this month's credits and tokens; keys: all time,
-- today, this week, this month) from gw_ledger, for rows copied in without gw_settle
-- (\`gateway store migrate\`). Periods are UTC, weeks from Monday, as everywhere else.
create function gw_rebuild_spend() returns void language plpgsql as $$
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

-- A settlement (gw_settle moves month_spent with every charge) is not announced: with shared
-- credits nothing on the request path reads another instance's cached balance, and every
-- instance parsing every charge cost more than the charge. An operator's grant still is.
drop trigger gw_accounts_announce_update on gw_accounts;
create trigger gw_accounts_announce_update after update on gw_accounts for each row
  when ((old.email, old.password_hash, old.tier, old.monthly_token_quota, old.suspended, old.rpm, old.created_at, old.billed_seq, old.spend_cap)
      is distinct from (new.email, new.password_hash, new.tier, new.monthly_token_quota, new.suspended, new.rpm, new.created_at, new.billed_seq, new.spend_cap)
    or (old.credits is distinct from new.credits and old.month_spent is not distinct from new.month_spent))
  execute function gw_announce();
`,
  },
  {
    version: 4,
    name: 'periodic jobs once across instances',
    sql: `
-- A periodic job (the Media Library purge, stored Responses expiry) is claimed for its
-- interval by one instance: the row's ran_at moves only when the last run is old enough.
create table gw_jobs (
  name text primary key,
  ran_at bigint not null
);
`,
  },
  {
    version: 5,
    name: 'hold takeover, commits without a flush wait',
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

drop function gw_settle(jsonb, boolean, text, text, text);
create function gw_settle(p_entry jsonb, p_enforce boolean, p_day text, p_week text, p_month text, p_sync boolean)
returns table (inserted boolean, charged float8, seq bigint)
language plpgsql as $$
declare
  e gw_ledger%rowtype;
  a gw_accounts%rowtype;
  k gw_api_keys%rowtype;
  h gw_credit_holds%rowtype;
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
  select * into h from gw_credit_holds where request_id = e.request_id;
  if found then
    own := h.credits;
    own_tokens := h.tokens;
  end if;
  c := greatest(0, coalesce(e.cost_credits, 0));
  if k.id is not null and k.spend_limit is not null then
    room := k.spend_limit - gw_key_spent(k, p_day, p_week, p_month) - (k.reserved - case when h.key_id = k.id then own else 0 end);
    c := least(c, greatest(0, room));
  end if;
  if a.id is not null and a.spend_cap is not null then
    room := a.spend_cap - (case when a.spend_month = p_month then a.month_spent else 0 end) - (a.reserved - own);
    c := least(c, greatest(0, room));
  end if;
  if a.id is not null and p_enforce then
    c := least(c, greatest(0, a.credits - (a.reserved - own)));
  end if;
  c := round(c, 6);
  insert into gw_ledger (request_id, ts, account_id, key_id, model, provider, endpoint, input_tokens, output_tokens, reasoning_tokens,
      cached_tokens, cost_credits, charged_credits, estimated, aborted, discount, price_multiplier, media)
    values (e.request_id, e.ts, e.account_id, e.key_id, e.model, e.provider, e.endpoint, coalesce(e.input_tokens, 0), coalesce(e.output_tokens, 0),
      coalesce(e.reasoning_tokens, 0), coalesce(e.cached_tokens, 0), coalesce(e.cost_credits, 0), c, coalesce(e.estimated, false),
      coalesce(e.aborted, false), e.discount, e.price_multiplier, e.media)
    on conflict (request_id) do nothing
    returning gw_ledger.seq into s;
  if s is null then
    return query select false, 0::float8, null::bigint;
    return;
  end if;
  delete from gw_credit_holds where request_id = e.request_id;
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
  elsif h.key_id is not null then
    update gw_api_keys set reserved = greatest(0, round(reserved - own, 6)) where id = h.key_id;
  end if;
  return query select true, c::float8, s;
end $$;
`,
  },
  {
    version: 6,
    name: 'admissions and settlements in groups',
    sql: `
-- Settlements that arrive while another is on its way go in one call (one round trip, one
-- commit): each settled exactly as gw_settle does, in account order — the order every
-- function that locks several accounts uses (the sweep too, from now on), so none deadlock.
-- Admissions likewise: each item checked and held exactly as gw_reserve does, in account order.
create function gw_reserve_many(p_items jsonb, p_instance text)
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

create function gw_settle_many(p_items jsonb, p_enforce boolean, p_sync boolean)
returns table (request_id text, inserted boolean, charged float8, seq bigint)
language plpgsql as $$
declare
  r jsonb;
begin
  for r in select value from jsonb_array_elements(p_items) order by value->'entry'->>'account_id', value->'entry'->>'request_id' loop
    return query select r->'entry'->>'request_id', s.inserted, s.charged, s.seq
      from gw_settle(r->'entry', p_enforce, r->>'day', r->>'week', r->>'month', p_sync) s;
  end loop;
end $$;

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
    version: 7,
    name: 'settlement outbox and leased slices',
    sql: `
-- Leased slices (docs/scale-out.md): an instance holds a slice of an account's available
-- balance as one hold keyed 'lease:<instance>:<account>' (counted in reserved, swept like any
-- hold when the instance stops beating) and admits requests from it in memory. gw_lease tops
-- it up; accounts with a monthly spend cap or token quota are not leased (exact path), nor is
-- an account whose available balance is under p_min (an almost empty account is admitted
-- request by request, so no credit sits idle in a slice while another instance refuses).
create function gw_lease(p_lease text, p_account text, p_want numeric, p_min numeric, p_instance text)
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

-- A settlement admitted from a leased slice: its charge (decided by the instance, within the
-- slice) moves from the lease hold to the balance with the ledger row, exactly once per request
-- id. A part the hold no longer covers (the lease was swept while the instance was away, or
-- returned) is charged like any settlement without a hold: no more than the balance allows.
create function gw_settle_leased(p_entry jsonb, p_lease text, p_enforce boolean, p_day text, p_week text, p_month text)
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
  if held is not null then from_lease := least(c, greatest(0, held)); end if;
  if a.id is not null and p_enforce and c > from_lease then
    c := from_lease + least(c - from_lease, greatest(0, a.credits - a.reserved));
  end if;
  c := round(c, 6);
  insert into gw_ledger (request_id, ts, account_id, key_id, model, provider, endpoint, input_tokens, output_tokens, reasoning_tokens,
      cached_tokens, cost_credits, charged_credits, estimated, aborted, discount, price_multiplier, media)
    values (e.request_id, e.ts, e.account_id, e.key_id, e.model, e.provider, e.endpoint, coalesce(e.input_tokens, 0), coalesce(e.output_tokens, 0),
      coalesce(e.reasoning_tokens, 0), coalesce(e.cached_tokens, 0), coalesce(e.cost_credits, 0), c, coalesce(e.estimated, false),
      coalesce(e.aborted, false), e.discount, e.price_multiplier, e.media)
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

-- One flush of an instance's settlement outbox: every line settled exactly once per request
-- id, in account order (the lock order of every function here), in one transaction: lines
-- admitted from a leased slice by gw_settle_leased, the others by gw_settle (their own hold).
create function gw_flush(p_items jsonb, p_enforce boolean, p_sync boolean)
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
        from gw_settle(r->'entry', p_enforce, r->>'day', r->>'week', r->>'month', p_sync) s;
    end if;
  end loop;
end $$;
`,
  },
  {
    version: 8,
    name: 'leased charges never below zero',
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
      cached_tokens, cost_credits, charged_credits, estimated, aborted, discount, price_multiplier, media)
    values (e.request_id, e.ts, e.account_id, e.key_id, e.model, e.provider, e.endpoint, coalesce(e.input_tokens, 0), coalesce(e.output_tokens, 0),
      coalesce(e.reasoning_tokens, 0), coalesce(e.cached_tokens, 0), coalesce(e.cost_credits, 0), c, coalesce(e.estimated, false),
      coalesce(e.aborted, false), e.discount, e.price_multiplier, e.media)
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
    version: 9,
    name: 'outbox flush in one set',
    sql: `
-- gw_flush settles line by line (a plpgsql call, three row locks and four writes per line).
-- The common flush — every line admitted from a leased slice whose hold covers what its lines
-- charged, all in one UTC day — is done as one set: the rows locked once each (accounts, then
-- keys, then lease holds, in id order: the lock order of every function here), the ledger rows
-- inserted in one statement (on conflict (request_id) do nothing: exactly once), then one
-- update per account, key and lease hold with the sums of the rows inserted. Anything else (a
-- line with its own hold, a lease that does not cover its lines, a flush across midnight) goes
-- through gw_flush as before, with the same results.
create function gw_flush_set(p_items jsonb, p_enforce boolean, p_sync boolean)
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
        cached_tokens, cost_credits, charged_credits, estimated, aborted, discount, price_multiplier, media)
      select l.request_id, l.ts, l.account_id, l.key_id, l.model, l.provider, l.endpoint, coalesce(l.input_tokens, 0), coalesce(l.output_tokens, 0),
        coalesce(l.reasoning_tokens, 0), coalesce(l.cached_tokens, 0), coalesce(l.cost_credits, 0), l.c, coalesce(l.estimated, false),
        coalesce(l.aborted, false), l.discount, l.price_multiplier, l.media
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
  {
    version: 10,
    name: 'account emails unique',
    sql: `
-- Two instances could each create an account with one email (the caller's check and the insert
-- are two statements): the email index becomes unique, ignoring case, as the file store has it.
-- Accounts that already share an email stop the migration with one line naming them.
do $$
declare
  taken text;
begin
  select string_agg(format('%s (%s)', e, ids), '; ' order by e) into taken
  from (
    select lower(email) as e, string_agg(format('%s <%s>', id, email), ', ' order by created_at, id) as ids
    from gw_accounts group by lower(email) having count(*) > 1
  ) d;
  if taken is not null then
    raise exception 'accounts share an email (ignoring case): %; give all but one of each another email (update gw_accounts set email = ''…'' where id = ''…''), then start again', taken;
  end if;
end $$;
drop index gw_accounts_email;
create unique index gw_accounts_email_key on gw_accounts (lower(email));
`,
  },
  {
    version: 11,
    name: 'file contents in chunks',
    sql: `
-- An upload streams into the database in chunks of about 1 MiB inside one transaction, so no
-- instance ever holds a whole file in memory to store it; files stored before keep their bytea.
create table gw_file_chunks (
  file_id text not null,
  seq integer not null,
  data bytea not null,
  primary key (file_id, seq)
);
alter table gw_files alter column content drop not null;
`,
  },
  {
    version: 12,
    name: 'stored response bytes per account',
    sql: `
-- storage.responsesQuotaBytes reads one row per account instead of summing its responses: the
-- triggers keep the figure in the same transaction as every insert, update and delete.
create table gw_response_bytes (
  account_id text primary key,
  bytes bigint not null default 0
);
insert into gw_response_bytes (account_id, bytes)
  select account_id, sum(octet_length(request) + octet_length(response)) from gw_responses group by account_id;
create function gw_response_bytes_track() returns trigger language plpgsql as $$
begin
  if tg_op in ('UPDATE', 'DELETE') then
    update gw_response_bytes set bytes = bytes - (octet_length(old.request) + octet_length(old.response)) where account_id = old.account_id;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    insert into gw_response_bytes (account_id, bytes) values (new.account_id, octet_length(new.request) + octet_length(new.response))
      on conflict (account_id) do update set bytes = gw_response_bytes.bytes + excluded.bytes;
  end if;
  return null;
end $$;
create trigger gw_responses_bytes after insert or update or delete on gw_responses
  for each row execute function gw_response_bytes_track();
`,
  },
  {
    version: 13,
    name: 'web searches in the ledger',
    sql: `
-- The hosted web searches a request ran (the ledger line's web_search_requests; null without
-- any, as the file store's line leaves the field out). Nullable: existing rows stay as they are.
alter table gw_ledger add column web_search_requests integer;
`,
  },
  {
    version: 14,
    name: 'resumable upload sessions',
    sql: `
-- A resumable upload (Gemini's Files API) in the database, so any instance takes any of its
-- chunks (behind a load balancer): the session a row, its bytes in gw_file_chunks under the id
-- of the file it becomes, until the last chunk adds the gw_files row. Expired ones are swept.
create table gw_upload_sessions (
  id text primary key,
  account_id text not null,
  file_id text not null,
  record text not null,
  size bigint not null,
  received bigint not null default 0,
  next_seq integer not null default 0,
  expires_at bigint not null
);
create index gw_upload_sessions_account on gw_upload_sessions (account_id);
create index gw_upload_sessions_expiry on gw_upload_sessions (expires_at);
`,
  },
  {
    version: 15,
    name: 'files expiry index',
    sql: `
-- The files sweep (every 10 minutes) finds expired uploads by their record's expires_at: without
-- an index it parsed every file's record JSON (73 ms for 200,000 files, 0.1 ms with it). Partial:
-- only expiring files (Gemini uploads) are in it. The sweep's query uses this expression as written.
create index gw_files_expiry on gw_files (((record::json->>'expires_at')::bigint)) where (record::json->>'expires_at') is not null;
`,
  },
  {
    version: 16,
    name: 'settlement gives back its own hold',
    sql: `
-- gw_settle gave back the hold under the line's request id whoever held it: a slow instance
-- settling a batch line that another instance runs again (its lease lapsed; the other holds
-- under the same id) dropped that run's hold, so it ran unheld. gw_settle now takes the
-- instance whose hold the line settles (p_holder) and gives back only that one; its new body,
-- and gw_flush's and gw_settle_many's that call it, are in the repeatable credit functions.
drop function gw_settle(jsonb, boolean, text, text, text, boolean);
`,
  },
  {
    version: 17,
    name: 'conversations',
    sql: `
-- OpenAI's Conversations API over the Responses store: a conversation a row (its item count and
-- bytes kept with it, so an append checks its bounds under the row's lock), its items in
-- gw_conversation_items in order (seq), each the JSON text it is listed as (an id the client
-- gave twice is kept twice, as the file store does: the first is the one read and deleted). Deleting the
-- conversation deletes its items.
create table gw_conversations (
  id text primary key,
  account_id text not null,
  created_at bigint not null,
  metadata text not null,
  item_count integer not null default 0,
  item_bytes bigint not null default 0,
  next_seq bigint not null default 0
);
create index gw_conversations_account on gw_conversations (account_id);
create table gw_conversation_items (
  conversation_id text not null references gw_conversations (id) on delete cascade,
  seq bigint not null,
  id text not null,
  item text not null,
  primary key (conversation_id, seq)
);
create index gw_conversation_items_id on gw_conversation_items (conversation_id, id);
`,
  },
  {
    version: 18,
    name: 'conversation turn leases',
    sql: `
-- One turn at a time across instances: a Responses request naming a conversation holds it from
-- reading its items until its own are added, through a lease on the conversation's row: the
-- instance holding it (turn_holder), the turn's own token (turn_id: only that turn renews or
-- gives it back) and when it lapses (turn_expires_at, ms on the database's clock). A turn takes
-- it with one conditional UPDATE (free, or lapsed: an instance that died holding it), renews it
-- while it runs, and clears it when it ends. Nullable, no default: adding them rewrites nothing.
alter table gw_conversations add column turn_holder text, add column turn_id text, add column turn_expires_at bigint;
`,
  },
  {
    version: 19,
    name: 'deleted files',
    sql: `
-- The ids of files deleted (FilesRepo.wasDeleted): a conversation's earlier turn may still name
-- one, and the gateway answers it (404 file_not_found) instead of sending its id upstream as if it
-- were the upstream's own. Written by a file's delete in the same transaction; read only for a
-- file id the account does not hold.
create table gw_deleted_files (
  account_id text not null,
  id text not null,
  primary key (account_id, id)
);
`,
  },
  {
    version: 20,
    name: 'answer fields in the ledger',
    sql: `
-- What OpenRouter's generation stats say beyond the charge (the ledger line's answer_id,
-- finish_reason, streamed, latency_ms): null where the line has none, as the file store's line
-- leaves the field out. Nullable, no default: adding them rewrites nothing. No index: GET
-- /v1/generation pages an account's latest rows on (account_id, ts), as it does by request id.
alter table gw_ledger add column answer_id text, add column finish_reason text, add column streamed boolean, add column latency_ms integer;
`,
  },
];

/** The schema version this code expects (the last migration). */
export const PG_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;
