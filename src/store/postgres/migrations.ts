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
];

/** The schema version this code expects (the last migration). */
export const PG_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;
