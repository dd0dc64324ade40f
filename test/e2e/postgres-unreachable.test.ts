import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFreezableProxy, type FreezableProxy } from '../limits/freezable-proxy.ts';
import { createTestDatabase } from '../helpers/pg-database.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Two gateway processes on one PostgreSQL and one Redis; A reaches the database through a proxy
 * the test can take down (as a database restart or a partition would), B directly. While A's
 * database is away every request of A that needs it answers the spec's envelope, 503
 * `service_unavailable` with Retry-After — never a 500 — B goes on serving, and A serves again
 * by itself once the database is back.
 */
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let proxy: FreezableProxy;
let a: SpawnedGateway;
let b: SpawnedGateway;
let key: string;
/** A key with a spend limit: admitted request by request in the database, never from a slice. */
let limitedKey: string;

beforeAll(async () => {
  db = await createTestDatabase();
  const url = new URL(db.url);
  proxy = await startFreezableProxy(Number(url.port || 5432), url.hostname);
  const viaProxy = new URL(db.url);
  viaProxy.port = String(proxy.port);
  const dir = tempDir('gw-pg-away-');
  const common = {
    limits: { store: { redis: REDIS_URL, prefix: `gw:test:${randomBytes(6).toString('hex')}:` } },
    providers: {
      mock: { plugin: 'mock', models: [{ id: 'echo', pricing: { input: 0, output: 1000 } }] },
      // Answers a 400 after 1.5 s: a request that used nothing, whose hold goes back.
      flaky: { plugin: 'mock', latencyMs: 1_500, failFirst: 1_000_000, failStatus: 400, models: [{ id: 'echo', pricing: { input: 0, output: 1000 } }] },
    },
  };
  const configA = writeConfig(dir, { ...common, store: { postgres: viaProxy.toString(), queryTimeoutMs: 2_000 } }, 'a.config.json');
  const configB = writeConfig(dir, { ...common, store: { postgres: db.url } }, 'b.config.json');
  [a, b] = await Promise.all([spawnGateway({ configFile: configA, dataDir: path.join(dir, 'a') }), spawnGateway({ configFile: configB, dataDir: path.join(dir, 'b') })]);
  const cli = (args: string[]) => runCli(['--config', configB, '--data-dir', b.dataDir, ...args]);
  expect((await cli(['accounts', 'create', '--email', 'away@example.test', '--credits', '1000', '--tier', 'enterprise', '--password', 'correct horse'])).exitCode).toBe(0);
  const created = await cli(['keys', 'create', '--account', 'away@example.test', '--json']);
  key = (JSON.parse(String(created.stdout)) as { key: string }).key;
  const limited = await cli(['keys', 'create', '--account', 'away@example.test', '--limit', '500', '--json']);
  limitedKey = (JSON.parse(String(limited.stdout)) as { key: string }).key;
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await proxy?.close();
  await db?.drop();
});

const get = (g: SpawnedGateway, route: string) => fetch(`${g.url}${route}`, { headers: { authorization: `Bearer ${key}` } });
const chat = (g: SpawnedGateway, as = key) =>
  fetch(`${g.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock/echo', messages: [{ role: 'user', content: 'a prompt of some words' }], max_tokens: 4 }),
  });

/** What /health says (its status code, status and database part), and how long it took. */
const healthOf = async (g: SpawnedGateway) => {
  const started = Date.now();
  const res = await fetch(`${g.url}/health`);
  const body = (await res.json()) as { status: string; database?: { reachable: boolean } };
  return { http: res.status, status: body.status, database: body.database, fast: Date.now() - started < 1_000 };
};
const UP = { http: 200, status: 'ok', database: { store: 'postgres', reachable: true }, fast: true };
const AWAY = { http: 503, status: 'unavailable', database: { store: 'postgres', reachable: false, error: expect.any(String), since: expect.any(Number) }, fast: true };

/** Routes whose answer is read from the shared database. */
const READS = ['/v1/credits', '/v1/key', '/v1/activity', '/v1/files', '/v1/batches', '/v1/videos', '/v1/responses/resp_0123456789abcdef'];

describe('one instance loses PostgreSQL', () => {
  it('answers 503 service_unavailable with Retry-After on every route that needs the database, B keeps serving, A recovers without a restart', async () => {
    for (const route of READS) expect([route, (await get(a, route)).status]).toEqual([route, route.startsWith('/v1/responses/') ? 404 : 200]);
    expect((await chat(a)).status).toBe(200);
    expect(await healthOf(a)).toEqual(UP);
    // The admin procedures (CLI, TUI) and the dashboard's, on A.
    const { adminToken } = JSON.parse(fs.readFileSync(path.join(a.dataDir, 'server.json'), 'utf8')) as { adminToken: string };
    const login = await fetch(`${a.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'away@example.test', password: 'correct horse' }) });
    const { token: session } = (await login.json()) as { token: string };
    const procedures = [
      { name: 'admin batches.list', send: () => fetch(`${a.url}/admin/trpc/batches.list?input=${encodeURIComponent('{}')}`, { headers: { authorization: `Bearer ${adminToken}` } }) },
      { name: 'dashboard batches.list', send: () => fetch(`${a.url}/api/trpc/batches.list?input=${encodeURIComponent('{}')}`, { headers: { authorization: `Bearer ${session}` } }) },
    ];
    for (const p of procedures) expect([p.name, (await p.send()).status]).toEqual([p.name, 200]);

    proxy.cut();
    for (const route of READS) {
      const res = await get(a, route);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect([route, res.status, body.error.code, res.headers.get('retry-after')]).toEqual([route, 503, 'service_unavailable', '1']);
      expect(body.error.message).toBe('The database is unavailable right now; retry shortly.');
    }
    // The openai SDK sees a 503 it may retry, not a 500.
    const client = new OpenAI({ apiKey: key, baseURL: `${a.url}/v1`, maxRetries: 0 });
    await expect(client.files.list()).rejects.toMatchObject({ status: 503, code: 'service_unavailable' });
    // An admission the database must take (a key with a spend limit) is refused the same way.
    // (Without a limit a chat request may still be admitted from a slice A leased before: docs/scale-out.md.)
    const refused = await chat(a, limitedKey);
    expect([refused.status, ((await refused.json()) as { error: { code: string } }).error.code, refused.headers.get('retry-after')]).toEqual([503, 'service_unavailable', '1']);
    // Its first use (noted before the admission) could not be written: said once, by the store (the request said it again before).
    const logs = () => a.stdout() + a.stderr();
    await expect.poll(() => logs().includes('store: key uses could not be written to PostgreSQL'), { timeout: 10_000, interval: 100 }).toBe(true);
    expect(logs()).not.toContain('recording a key use failed');
    // The tRPC procedures answer the same 503 (500 INTERNAL_SERVER_ERROR before), with the gateway's code.
    for (const p of procedures) {
      const res = await p.send();
      const body = (await res.json()) as { error: { message: string; data: { code: string; gatewayCode?: string } } };
      expect([p.name, res.status, body.error.data.code, body.error.data.gatewayCode, body.error.message, res.headers.get('retry-after')]).toEqual([
        p.name,
        503,
        'SERVICE_UNAVAILABLE',
        'service_unavailable',
        'The database is unavailable right now; retry shortly.',
        '1',
      ]);
    }
    expect(a.stderr()).not.toContain('unhandled error');
    // /health says so (a load balancer sends the traffic to B meanwhile): 200 ok before.
    expect(await healthOf(a)).toEqual(AWAY);
    // B, on the same database by its own connections, is not affected.
    expect((await chat(b)).status).toBe(200);
    expect((await get(b, '/v1/credits')).status).toBe(200);
    expect(await healthOf(b)).toEqual(UP);

    proxy.restore();
    // Back by itself: A probes the database while it is away.
    await expect.poll(() => healthOf(a), { timeout: 15_000, interval: 200 }).toEqual(UP);
    await expect.poll(async () => (await get(a, '/v1/credits')).status, { timeout: 15_000, interval: 200 }).toBe(200);
    for (const route of READS) expect([route, (await get(a, route)).status]).toEqual([route, route.startsWith('/v1/responses/') ? 404 : 200]);
    await expect.poll(async () => (await chat(a)).status, { timeout: 15_000, interval: 200 }).toBe(200);
    expect((await chat(a, limitedKey)).status).toBe(200);
    expect(a.process.exitCode).toBeNull();
    // Both read the same balance once A's outbox is in.
    const balance = async (g: SpawnedGateway) => ((await (await get(g, '/v1/credits')).json()) as { data: { credits: { balance: number } } }).data.credits.balance;
    await expect.poll(async () => (await balance(a)) === (await balance(b)), { timeout: 10_000, interval: 200 }).toBe(true);
  }, 90_000);

  it('answers 503 within its query timeout, never hangs, while the database is frozen (connections open, nothing answers), and serves again once it answers', async () => {
    // Connections A already has, idle in its pool, are the ones a frozen server leaves hanging.
    await Promise.all(Array.from({ length: 4 }, () => get(a, '/v1/files')));
    expect((await chat(a, limitedKey)).status).toBe(200);
    proxy.freeze();
    try {
      const timed = async (route: string, send: () => Promise<Response>) => {
        const started = Date.now();
        const res = await send();
        const body = (await res.json()) as { error?: { code: string } };
        // Never hangs: a frozen server used to hold these for as long as it stayed frozen. The bound
        // leaves room for a loaded machine (the query timeout is 2 s; a full CI run read over 8 s once).
        return { route, status: res.status, code: body.error?.code, fast: Date.now() - started < 20_000 };
      };
      const answers = await Promise.all([
        ...READS.map((route) => timed(route, () => get(a, route))),
        timed('chat', () => chat(a, limitedKey)),
      ]);
      for (const answer of answers) expect(answer).toEqual({ route: answer.route, status: 503, code: 'service_unavailable', fast: true });
      // /health answers at once (no query of its own to the frozen server) and says so.
      expect(await healthOf(a)).toEqual(AWAY);
      expect((await chat(b)).status).toBe(200);
    } finally {
      proxy.thaw();
    }
    await expect.poll(async () => (await get(a, '/v1/credits')).status, { timeout: 15_000, interval: 200 }).toBe(200);
    await expect.poll(async () => (await chat(a, limitedKey)).status, { timeout: 15_000, interval: 200 }).toBe(200);
    await expect.poll(() => healthOf(a), { timeout: 15_000, interval: 200 }).toEqual(UP);
    expect(a.process.exitCode).toBeNull();
  }, 90_000);

  it('says so on /health when only its background work finds the database away (no request touches it), and recovers', async () => {
    // The previous case's timed-out queries can mark A away until its next probe.
    await expect.poll(() => healthOf(a), { timeout: 15_000, interval: 200 }).toEqual(UP);
    // Frozen: pooled connections stay open, so no idle connection errors; only the instance's own
    // work (heartbeat, batch and media polls, outbox) meets the database, each failing after its
    // query or connect timeout. Before, /health stayed 200 ok for as long as no request came.
    proxy.freeze();
    try {
      await expect.poll(() => healthOf(a), { timeout: 30_000, interval: 250 }).toEqual(AWAY);
      expect(await healthOf(b)).toEqual(UP);
    } finally {
      proxy.thaw();
    }
    await expect.poll(() => healthOf(a), { timeout: 15_000, interval: 200 }).toEqual(UP);
    // The same while cut (refused and reset connections) with the pool idle.
    const [outMark, errMark] = [a.stdout().length, a.stderr().length];
    const logsSinceCut = () => a.stdout().slice(outMark) + a.stderr().slice(errMark);
    const count = (text: string, line: string) => text.split(line).length - 1;
    proxy.cut();
    try {
      await expect.poll(() => healthOf(a), { timeout: 30_000, interval: 250 }).toEqual(AWAY);
      // Two heartbeats (5 s apart) missed: the batch executor polled about ten times meanwhile, the
      // media jobs some five; each says so once (before: one error line per poll, ~2 a second).
      await expect.poll(() => count(logsSinceCut(), 'did not answer the heartbeat'), { timeout: 20_000, interval: 250 }).toBeGreaterThanOrEqual(2);
      expect(count(logsSinceCut(), 'batch executor: looking for work failed')).toBeLessThanOrEqual(1);
      expect(count(logsSinceCut(), 'media jobs: looking for work failed')).toBeLessThanOrEqual(1);
    } finally {
      proxy.restore();
    }
    await expect.poll(() => healthOf(a), { timeout: 15_000, interval: 200 }).toEqual(UP);
    expect(a.stderr()).not.toContain('unhandled error');
    expect(a.process.exitCode).toBeNull();
  }, 90_000);

  /** The exact holds in the database (request holds, not leased slices) and what the limited key has reserved. */
  const heldInDatabase = async () => {
    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    try {
      const holds = await sql.query<{ request_id: string }>("select request_id from gw_credit_holds where request_id not like 'lease:%'");
      const keys = await sql.query<{ reserved: number }>('select coalesce(sum(reserved), 0)::float8 as reserved from gw_api_keys');
      return { holds: holds.rows.map((r) => r.request_id), keyReserved: keys.rows[0].reserved };
    } finally {
      await sql.end();
    }
  };
  const NOTHING_HELD = { holds: [], keyReserved: 0 };

  it('gives back the hold of an admission the database took after A answered 503 (its reply lost)', async () => {
    expect((await chat(a, limitedKey)).status).toBe(200);
    await expect.poll(heldInDatabase, { timeout: 10_000, interval: 200 }).toEqual(NOTHING_HELD);
    // The admission reaches the database and commits; its answer never comes back.
    proxy.mute();
    let refused: Response;
    let heldWhileAway: unknown[];
    try {
      refused = await chat(a, limitedKey);
      // Read before A can reach the database again: once it can, it gives the hold back (what
      // this case asserts next), so a read after unmuting raced it on a loaded machine.
      heldWhileAway = (await heldInDatabase()).holds;
    } finally {
      proxy.unmute();
    }
    const requestId = refused.headers.get('x-request-id');
    expect([refused.status, ((await refused.json()) as { error: { code: string } }).error.code]).toEqual([503, 'service_unavailable']);
    expect(heldWhileAway).toEqual([requestId]);
    // Before, that hold stayed for as long as A lived (a live instance's holds are never swept):
    // the key's spend limit and the balance counted credits no request used.
    await expect.poll(heldInDatabase, { timeout: 20_000, interval: 250 }).toEqual(NOTHING_HELD);
    expect(a.stdout() + a.stderr()).toContain('gave back the holds of admissions that failed');
    expect((await chat(a, limitedKey)).status).toBe(200);
  }, 60_000);

  it('gives back a hold whose release could not reach the database once it answers again', async () => {
    await expect.poll(heldInDatabase, { timeout: 10_000, interval: 200 }).toEqual(NOTHING_HELD);
    const failing = fetch(`${a.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${limitedKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'flaky/echo', messages: [{ role: 'user', content: 'a prompt' }], max_tokens: 4 }),
    });
    // Admitted (its hold in the database), then the database goes away while the upstream works.
    await expect.poll(async () => (await heldInDatabase()).holds.length, { timeout: 10_000, interval: 50 }).toBe(1);
    proxy.cut();
    try {
      expect((await failing).status).toBe(400);
      await expect.poll(() => a.stderr() + a.stdout(), { timeout: 10_000, interval: 100 }).toContain('releasing a hold failed');
    } finally {
      proxy.restore();
    }
    // Before, the hold stayed counted for as long as A lived ('given back by the sweep once this instance stops').
    await expect.poll(heldInDatabase, { timeout: 20_000, interval: 250 }).toEqual(NOTHING_HELD);
  }, 60_000);

  it('stops an admission on the server too when A gives up on it (queryTimeoutMs), so it cannot commit later', async () => {
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    try {
      // Another transaction holds the account's row: gw_reserve waits for it past A's query timeout (2 s).
      await locker.query('begin');
      await locker.query("select 1 from gw_accounts where email = 'away@example.test' for update");
      const refused = await chat(a, limitedKey);
      expect(refused.status).toBe(503);
      // The server ends the waiting statement itself (statement_timeout); before, it kept waiting
      // and, once the row was free, took a hold for a request already answered 503. Only a
      // statement waiting on the row's lock counts: a backend of an earlier case's dropped
      // connection can show as active on its reply (ClientWrite) without waiting for anything.
      const waiting = async () =>
        (
          await locker.query<{ query: string }>(
            "select left(query, 60) as query, state, wait_event_type, now() - query_start as running from pg_stat_activity where datname = current_database() and query like '%gw_reserve%' and state = 'active' and wait_event_type = 'Lock' and pid <> pg_backend_pid()",
          )
        ).rows;
      await expect.poll(waiting, { timeout: 15_000, interval: 200 }).toEqual([]);
    } finally {
      await locker.query('rollback').catch(() => undefined);
      await locker.end();
    }
    await expect.poll(heldInDatabase, { timeout: 20_000, interval: 250 }).toEqual(NOTHING_HELD);
    await expect.poll(async () => (await chat(a, limitedKey)).status, { timeout: 15_000, interval: 200 }).toBe(200);
  }, 60_000);

  // A load balancer takes an instance whose /health says 503 out of service. Its notification connection
  // ended from the server (pg_terminate_backend, a pooler recycling it) and opened again at once is no outage;
  // before, each instance said 503 unavailable for about a second (until its next probe).
  it('stays 200 ok on /health while its notification connection, ended from the server, listens again', async () => {
    // The previous case's query timeout marked A away until its next probe.
    for (const g of [a, b]) await expect.poll(() => healthOf(g), { timeout: 15_000, interval: 200 }).toEqual(UP);
    const reloaded = (g: SpawnedGateway) => (g.stdout() + g.stderr()).split('cache reloaded').length - 1;
    const before = [reloaded(a), reloaded(b)];
    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    try {
      const { rows } = await sql.query("select pg_terminate_backend(pid, 5000) as ended from pg_stat_activity where datname = current_database() and query like 'listen %'");
      expect(rows.filter((row) => row.ended)).toHaveLength(2);
    } finally {
      await sql.end();
    }
    const seen: unknown[] = [];
    const deadline = Date.now() + 15_000;
    while ((reloaded(a) === before[0] || reloaded(b) === before[1]) && Date.now() < deadline) seen.push(await healthOf(a), await healthOf(b));
    expect([reloaded(a), reloaded(b)]).toEqual([before[0] + 1, before[1] + 1]);
    seen.push(await healthOf(a), await healthOf(b));
    expect(seen.filter((health) => JSON.stringify(health) !== JSON.stringify(UP))).toEqual([]);
  }, 30_000);
});
