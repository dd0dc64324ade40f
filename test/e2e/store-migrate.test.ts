import fs from 'node:fs';
import path from 'node:path';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, databaseUrl } from '../helpers/pg-database.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

/**
 * `gateway store migrate --to` on a data dir filled through the real server (an account with
 * credit and some usage, keys, a session, a media record, a stored response, files and a
 * finished batch), then `gateway serve` on PostgreSQL with a fresh data dir serves the same
 * keys, balances and records. `gateway store check` on both sides.
 */
const PASSWORD = 'pw-never-printed-4711';
const PROVIDERS = { mock: { plugin: 'mock', models: [{ id: 'echo', pricing: { input: 1000, output: 1000 } }] } };

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let urlWithPassword: string;
let dir: string;
let fileConfig: string;
let pgConfig: string;
let dataDir: string;
let gw: SpawnedGateway | undefined;
let pgGw: SpawnedGateway | undefined;
let key: string;
let sessionToken: string;
const before: { usage?: number; balance?: number; responseId?: string; fileId?: string; fileText?: string; batchId?: string; outputFileId?: string; mediaId?: string } = {};

const cli = async (config: string, data: string, args: string[]) => {
  const result = await runCli(['--config', config, '--data-dir', data, ...args]);
  return { code: result.exitCode, out: String(result.stdout), err: String(result.stderr) };
};

const credits = async (url: string, apiKey: string) => {
  const res = await fetch(`${url}/v1/credits`, { headers: { authorization: `Bearer ${apiKey}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { credits: { balance: number } } }).data.credits.balance;
};

beforeAll(async () => {
  db = await createTestDatabase();
  // Trust auth accepts any password: one in the URL shows that it is never printed.
  const u = new URL(databaseUrl(db.name));
  u.username = u.username || 'postgres';
  u.password = PASSWORD;
  urlWithPassword = u.toString();
  dir = tempDir('gw-migrate-');
  dataDir = path.join(dir, 'data');
  fileConfig = writeConfig(dir, { providers: PROVIDERS }, 'file.config.json');
  pgConfig = writeConfig(dir, { providers: PROVIDERS, store: { postgres: urlWithPassword } }, 'pg.config.json');

  expect((await cli(fileConfig, dataDir, ['accounts', 'create', '--email', 'move@example.com', '--password', 'correct horse', '--tier', 'enterprise', '--credits', '100000'])).code).toBe(0);
  key = (JSON.parse((await cli(fileConfig, dataDir, ['keys', 'create', '--account', 'move@example.com', '--name', 'old', '--json'])).out) as { key: string }).key;
  gw = await spawnGateway({ configFile: fileConfig, dataDir });
  const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });

  // Some usage (priced model: the balance drops), a stored response, a file, a finished batch.
  for (let i = 0; i < 3; i++) await client.chat.completions.create({ model: 'mock/echo', messages: [{ role: 'user', content: `hello ${i}` }] });
  const stored = await client.responses.create({ model: 'mock/echo', input: 'remember me' });
  before.responseId = stored.id;
  before.fileText = '{"note":"a user file"}\n';
  before.fileId = (await client.files.create({ file: await toFile(Buffer.from(before.fileText), 'notes.jsonl'), purpose: 'user_data' })).id;
  const lines = Array.from({ length: 4 }, (_, i) => JSON.stringify({ custom_id: `line-${i}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'mock/echo', messages: [{ role: 'user', content: `batch ${i}` }] } }));
  const input = await client.files.create({ file: await toFile(Buffer.from(lines.join('\n') + '\n'), 'batch.jsonl'), purpose: 'batch' });
  const batch = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
  let done = batch;
  for (const started = Date.now(); !['completed', 'failed'].includes(done.status) && Date.now() - started < 20_000; ) {
    await new Promise((r) => setTimeout(r, 100));
    done = await client.batches.retrieve(batch.id);
  }
  expect(done.status).toBe('completed');
  before.batchId = done.id;
  before.outputFileId = done.output_file_id!;

  // A dashboard session and a Media Library record.
  const login = await fetch(`${gw.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'move@example.com', password: 'correct horse' }) });
  sessionToken = ((await login.json()) as { token: string }).token;
  const media = await fetch(`${gw.url}/v1/media/generations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sessionToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ media_type: 'video', model: 'veo-3', prompt: 'a wave' }),
  });
  expect(media.status).toBe(201);
  before.mediaId = ((await media.json()) as { id: string }).id;
  before.balance = await credits(gw.url, key);
  expect(before.balance).toBeLessThan(100_000);
}, 90_000);

afterAll(async () => {
  await Promise.all([gw?.stop(), pgGw?.stop()]);
  await db?.drop();
});

describe('gateway store migrate --to <postgres url>', () => {
  it('refuses while a server runs on the data dir, with one line saying to stop it (store check still answers)', async () => {
    const result = await cli(fileConfig, dataDir, ['store', 'migrate', '--to', urlWithPassword]);
    expect(result.code).not.toBe(0);
    expect(result.err.trim().split('\n')).toHaveLength(1);
    expect(result.err).toMatch(/is using the data dir .*; stop it first/);
    expect(result.err + result.out).not.toContain(PASSWORD);
    // store check only reads: it answers beside the running server.
    const check = await cli(fileConfig, dataDir, ['store', 'check', '--json']);
    expect(check.code).toBe(0);
    expect((JSON.parse(check.out) as { counts: { accounts: number } }).counts.accounts).toBe(1);
    await gw!.stop();
    gw = undefined;
  });

  it('store check on the file store reports the backend, the schema and the counts', async () => {
    const result = await cli(fileConfig, dataDir, ['store', 'check', '--json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.out) as { backend: string; schema: { status: string }; counts: Record<string, number> };
    expect(report.backend).toBe('file');
    expect(report.schema.status).toBe('current');
    expect(report.counts).toMatchObject({ accounts: 1, sessions: 1, media: 1, responses: 1, batches: 1, credits: before.balance });
    // The first start made no key (accounts existed); ours, the batch's four lines and three chats billed.
    expect(report.counts.keys).toBe(1);
    expect(report.counts.files).toBe(3); // notes.jsonl, the batch input and its output (no error file)
    expect(report.counts.usage).toBeGreaterThanOrEqual(8); // three chats, the response, four batch lines
    before.usage = report.counts.usage;
  });

  it('copies everything into the empty database, verifies it and prints the summary without the password', async () => {
    const result = await cli(fileConfig, dataDir, ['store', 'migrate', '--to', urlWithPassword]);
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    expect(result.out).not.toContain(PASSWORD);
    expect(result.out).toContain(`postgres://postgres@127.0.0.1:5432/${db.name}`);
    expect(result.out).toMatch(/accounts\s+1\s+\(/);
    expect(result.out).toMatch(/stored responses\s+1/);
    expect(result.out).toMatch(/files\s+3/);
    expect(result.out).toMatch(/batches\s+1/);
    expect(result.out).toMatch(new RegExp(`usage ledger entries\\s+${before.usage}\\b`));
    expect(result.out).toMatch(/^verified/m);
  });

  it('refuses a database that is not empty (a second run), with one line, and changes nothing', async () => {
    const result = await cli(fileConfig, dataDir, ['store', 'migrate', '--to', urlWithPassword]);
    expect(result.code).not.toBe(0);
    expect(result.err.trim().split('\n')).toHaveLength(1);
    expect(result.err).toMatch(/is not empty \(gw_accounts: 1 rows/);
    expect(result.err).not.toContain(PASSWORD);
  });

  it('one clear line for an unreachable database, never the password', async () => {
    const result = await cli(fileConfig, dataDir, ['store', 'migrate', '--to', `postgres://postgres:${PASSWORD}@127.0.0.1:1/nowhere`]);
    expect(result.code).not.toBe(0);
    expect(result.err.trim().split('\n')).toHaveLength(1);
    expect(result.err).toMatch(/unreachable \(ECONNREFUSED\)/);
    // The store's start-up error is recognised (isPostgresStoreError) and speaks of the command's option.
    expect(result.err).toContain('check --to and that the server is up');
    expect(result.err).not.toContain(PASSWORD);
  });

  it('a record that cannot be copied stops the run with one line and leaves the database without records', async () => {
    const broken = path.join(dir, 'broken');
    fs.cpSync(dataDir, broken, { recursive: true });
    fs.rmSync(path.join(broken, 'files', before.fileId!));
    const second = await createTestDatabase();
    try {
      const result = await cli(fileConfig, broken, ['store', 'migrate', '--to', second.url]);
      expect(result.code).not.toBe(0);
      expect(result.err.trim().split('\n')).toHaveLength(1);
      expect(result.err).toContain(`file ${before.fileId} has a record but no contents`);
      const check = await cli(fileConfig, broken, ['store', 'check', '--url', second.url, '--json']);
      expect(check.code).toBe(0);
      const report = JSON.parse(check.out) as { counts: Record<string, number> };
      expect(report.counts).toMatchObject({ accounts: 0, keys: 0, files: 0, responses: 0 });
    } finally {
      await second.drop();
    }
  });

  it('accounts whose emails differ only in case stop the run with one line naming them (the database keeps one per email)', async () => {
    const twins = path.join(dir, 'twins');
    fs.cpSync(dataDir, twins, { recursive: true });
    const dbFile = path.join(twins, 'db.json');
    const data = JSON.parse(fs.readFileSync(dbFile, 'utf8')) as { accounts: Array<{ id: string; email: string }> };
    const original = data.accounts.find((a) => a.email === 'move@example.com')!;
    data.accounts.push({ ...original, id: 'acct_twin', email: 'Move@Example.com' });
    fs.writeFileSync(dbFile, JSON.stringify(data));
    const second = await createTestDatabase();
    try {
      const result = await cli(fileConfig, twins, ['store', 'migrate', '--to', second.url]);
      expect(result.code).not.toBe(0);
      expect(result.err.trim().split('\n')).toHaveLength(1);
      expect(result.err).toContain(`accounts share an email (ignoring case), which the database refuses: move@example.com (${original.id} <move@example.com>, acct_twin <Move@Example.com>)`);
    } finally {
      await second.drop();
    }
  });

  it('the copied data dir is refused on the file store from then on (serve and the CLI), with one line saying why and what to do', async () => {
    expect(fs.statSync(path.join(dataDir, 'migrated-to-postgres.json')).mode & 0o777).toBe(0o600);
    for (const args of [['keys', 'ls'], ['serve', '--port', '0']]) {
      const result = await cli(fileConfig, dataDir, args);
      expect(result.code, args.join(' ')).not.toBe(0);
      expect(result.err.trim().split('\n')).toHaveLength(1);
      expect(result.err).toContain(`was copied to postgres://postgres@127.0.0.1:5432/${db.name}`);
      expect(result.err).toContain('set store.postgres in the config');
      expect(result.err).not.toContain(PASSWORD);
    }
  });

  it('gateway serve on PostgreSQL (the same data dir) serves the same key, balance, response, files, batch, session and media', async () => {
    // The old data dir still holds usage.jsonl: its lines are in the database already and must not be charged again.
    pgGw = await spawnGateway({ configFile: pgConfig, dataDir });
    expect(pgGw.key).toBeUndefined(); // the database has keys: no bootstrap key
    expect(await credits(pgGw.url, key)).toBe(before.balance);
    const client = new OpenAI({ baseURL: `${pgGw.url}/v1`, apiKey: key, maxRetries: 0 });
    const chat = await client.chat.completions.create({ model: 'mock/echo', messages: [{ role: 'user', content: 'after the move' }] });
    expect(chat.choices[0].message.content).toBeTruthy();
    expect(await credits(pgGw.url, key)).toBeLessThan(before.balance!);
    expect((await client.responses.retrieve(before.responseId!)).id).toBe(before.responseId);
    expect(await (await client.files.content(before.fileId!)).text()).toBe(before.fileText);
    const batch = await client.batches.retrieve(before.batchId!);
    expect(batch).toMatchObject({ status: 'completed', request_counts: { total: 4, completed: 4, failed: 0 } });
    const output = (await (await client.files.content(before.outputFileId!)).text()).trim().split('\n');
    expect(output.map((l) => (JSON.parse(l) as { custom_id: string }).custom_id).sort()).toEqual(['line-0', 'line-1', 'line-2', 'line-3']);
    const media = await fetch(`${pgGw.url}/v1/media/generations/${before.mediaId}`, { headers: { authorization: `Bearer ${sessionToken}` } });
    expect(media.status).toBe(200);
  });

  it('store check on PostgreSQL reports the same counts', async () => {
    const result = await cli(pgConfig, path.join(dir, 'check'), ['store', 'check', '--json']);
    expect(result.code).toBe(0);
    expect(result.out).not.toContain(PASSWORD);
    const report = JSON.parse(result.out) as { backend: string; location: string; schema: { status: string; version: number }; counts: Record<string, number> };
    expect(report).toMatchObject({ backend: 'postgres', location: `postgres://postgres@127.0.0.1:5432/${db.name}`, schema: { status: 'current' } });
    expect(report.counts).toMatchObject({ accounts: 1, keys: 1, sessions: 1, media: 1, responses: 1, files: 3, batches: 1 });
    // The ledger as copied (the instance on PostgreSQL may have settled more since).
    expect(report.counts.usage).toBeGreaterThanOrEqual(before.usage!);
  });
});
