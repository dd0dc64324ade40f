import fs from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const running: SpawnedGateway[] = [];
afterAll(async () => {
  for (const g of running) await g.kill();
});

const root = tempDir('gw-trust-');
let counter = 0;

/** A fresh project dir with a config (mock, priced) and a data dir path inside it. */
function project(): { dir: string; dataDir: string; configFile: string; cli: (args: string[]) => ReturnType<typeof runCli> } {
  const dir = path.join(root, `p${++counter}`);
  fs.mkdirSync(dir);
  const dataDir = path.join(dir, 'data');
  const configFile = writeConfig(dir, { providers: { mock: { plugin: 'mock', models: [{ id: 'echo', pricing: { input: 1000, output: 1000 } }] } } });
  return { dir, dataDir, configFile, cli: (args) => runCli(['--config', configFile, '--data-dir', dataDir, ...args]) };
}

function backupsOf(dataDir: string): string[] {
  return fs
    .readdirSync(dataDir)
    .filter((n) => /^db\.json\.bak-\d{8}T\d{6}Z(-\d+)?$/.test(n))
    .map((n) => path.join(dataDir, n));
}

function lines(text: string): string[] {
  return text.split('\n').filter((l) => l.trim().length > 0);
}

const ACCOUNT = { id: 'acct_1', email: 'a@example.test', passwordHash: null, tier: 'free', credits: 5, monthlyTokenQuota: null, suspended: false, rpm: null, createdAt: 1 };
const EMPTY = { version: 2, accounts: [], apiKeys: [], sessions: [], files: [], batches: [] };

describe('a db.json that is not the expected shape stops the server, keeps the file and a copy', () => {
  it.each([
    { label: '[]', text: '[]', says: /found a list/ },
    { label: 'null', text: 'null', says: /found null/ },
    { label: '"accounts": "oops"', text: JSON.stringify({ ...EMPTY, accounts: 'oops' }), says: /accounts: expected array, received string/ },
    { label: 'a record with a wrong field', text: JSON.stringify({ ...EMPTY, accounts: [ACCOUNT, { ...ACCOUNT, id: 'acct_2', credits: 'lots' }] }), says: /accounts\[1\]\.credits: expected number, received string/ },
    { label: 'a newer schema', text: JSON.stringify({ ...EMPTY, version: 99 }), says: /newer gateway \(schema 99/ },
  ])('$label', async ({ text, says }) => {
    const { dataDir, configFile, cli } = project();
    fs.mkdirSync(dataDir);
    const file = path.join(dataDir, 'db.json');
    fs.writeFileSync(file, text);
    for (const run of [() => runCli(['--config', configFile, '--data-dir', dataDir, 'serve', '--port', '0']), () => cli(['accounts', 'ls'])]) {
      const result = await run();
      expect(result.exitCode).not.toBe(0);
      const stderr = lines(String(result.stderr));
      // One clear line naming the file and the problem, nothing else.
      expect(stderr).toHaveLength(1);
      expect(stderr[0]).toMatch(/^gateway: .*db\.json is not a gateway database: /);
      expect(stderr[0]).toMatch(says);
      expect(stderr[0]).toContain('left as it is');
      expect(fs.readFileSync(file, 'utf8')).toBe(text);
    }
    // A dated copy, once (a second failed start does not add another).
    const backups = backupsOf(dataDir);
    expect(backups).toHaveLength(1);
    expect(fs.readFileSync(backups[0], 'utf8')).toBe(text);
    expect(fs.statSync(backups[0]).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dataDir).filter((n) => n.startsWith('db.json.tmp'))).toEqual([]);
  });

  it('a db.json that is not JSON stops the same way (file left as it is)', async () => {
    const { dataDir, configFile } = project();
    fs.mkdirSync(dataDir);
    fs.writeFileSync(path.join(dataDir, 'db.json'), '{"version": 2, "accounts": [');
    const result = await runCli(['--config', configFile, '--data-dir', dataDir, 'serve', '--port', '0']);
    expect(result.exitCode).not.toBe(0);
    expect(lines(String(result.stderr))).toEqual([expect.stringMatching(/^gateway: cannot read .*db\.json: .*\(the file is left as it is\)$/)]);
    expect(fs.readFileSync(path.join(dataDir, 'db.json'), 'utf8')).toBe('{"version": 2, "accounts": [');
  });
});

describe('migration', () => {
  it('a schema-1 data dir (media inside db.json) is backed up, then migrated; nothing is lost', async () => {
    const { dataDir, configFile, cli } = project();
    fs.mkdirSync(dataDir, { mode: 0o755 });
    const media = {
      id: 'm1', accountId: 'acct_1', media_type: 'image', status: 'completed', model: 'mock/image', prompt: 'a lighthouse', parameters: { size: '1024x1024' },
      result_urls: ['http://x/1.png'], primary_url: 'http://x/1.png', preview_url: null, file_size_bytes: 10, duration_seconds: null, width: 1024, height: 1024,
      error: null, created_at: Math.floor(Date.now() / 1000), completed_at: Math.floor(Date.now() / 1000), provider_task_id: null, input_tokens: null, output_tokens: null, cost_credits: null,
    };
    const v1 = JSON.stringify({ version: 1, accounts: [{ ...ACCOUNT, tier: 'enterprise', credits: 1000 }], apiKeys: [], sessions: [], media: [media], files: [], batches: [] }, null, 2);
    fs.writeFileSync(path.join(dataDir, 'db.json'), v1, { mode: 0o644 });

    const listed = await cli(['media', 'ls', '--json']);
    expect(listed.exitCode).toBe(0);
    expect(JSON.stringify(JSON.parse(String(listed.stdout)))).toContain('"id":"m1"');
    const backups = backupsOf(dataDir);
    expect(backups).toHaveLength(1);
    expect(fs.readFileSync(backups[0], 'utf8')).toBe(v1);
    const db = JSON.parse(fs.readFileSync(path.join(dataDir, 'db.json'), 'utf8')) as Record<string, unknown>;
    expect(db).toMatchObject({ version: 2, accounts: [{ id: 'acct_1', credits: 1000 }] });
    expect(db.media).toBeUndefined();
    expect(fs.readFileSync(path.join(dataDir, 'media.jsonl'), 'utf8')).toContain('"id":"m1"');
    // Migrating again does nothing (no second backup).
    expect((await cli(['accounts', 'ls'])).exitCode).toBe(0);
    expect(backupsOf(dataDir)).toHaveLength(1);
  });
});

describe('the usage ledger at start-up', () => {
  it('reports lines it cannot replay (count, seq numbers, credits) and keeps them aside', async () => {
    const { dataDir, configFile, cli } = project();
    expect((await cli(['accounts', 'create', '--email', 'l@example.test', '--credits', '100'])).exitCode).toBe(0);
    const entry = (seq: number, credits: number) =>
      JSON.stringify({ seq, ts: Date.now(), request_id: `r${seq}`, account_id: 'acct_x', key_id: 'k', model: 'mock/echo', provider: 'mock', endpoint: '/v1/chat/completions', input_tokens: 1, output_tokens: 1, reasoning_tokens: 0, cached_tokens: 0, cost_credits: credits, charged_credits: credits, estimated: false, aborted: false });
    const garbage = '\u0000\u0000{"seq":2,"charged_credits":7.5,"acc';
    fs.writeFileSync(path.join(dataDir, 'usage.jsonl'), `${entry(1, 1)}\n${garbage}\n${entry(3, 2)}\n{"seq":4,"ts":`);
    const g = await spawnGateway({ configFile, dataDir });
    running.push(g);
    const stderr = g.stderr();
    expect(stderr).toMatch(/usage ledger: 2 line\(s\) cannot be replayed \(torn or garbage\).*kept aside in .*usage\.rejected\.jsonl/);
    expect(stderr).toMatch(/seqs=\[2,4\]/);
    expect(stderr).toMatch(/credits=7\.5/);
    const kept = lines(fs.readFileSync(path.join(dataDir, 'usage.rejected.jsonl'), 'utf8')).map((l) => JSON.parse(l) as { text: string });
    expect(kept.map((k) => k.text)).toEqual([garbage, '{"seq":4,"ts":']);
    expect(await g.stop()).toBe(0);
  });
});

describe('file modes', () => {
  it('the data dir is 0700 and every file in it 0600, including files from before (tightened at start)', async () => {
    const { dataDir, configFile } = project();
    // A data dir left loose by an older gateway.
    fs.mkdirSync(path.join(dataDir, 'responses'), { recursive: true, mode: 0o755 });
    fs.chmodSync(dataDir, 0o755);
    fs.writeFileSync(path.join(dataDir, 'db.json'), JSON.stringify(EMPTY), { mode: 0o644 });
    fs.writeFileSync(path.join(dataDir, 'usage.jsonl'), '', { mode: 0o644 });
    fs.writeFileSync(path.join(dataDir, 'responses', 'resp_old.json'), '{}', { mode: 0o644 });
    fs.chmodSync(path.join(dataDir, 'db.json'), 0o644);
    // Something of the user's that happens to sit there is not the gateway's to change.
    fs.writeFileSync(path.join(dataDir, 'notes.txt'), 'mine', { mode: 0o644 });
    fs.chmodSync(path.join(dataDir, 'notes.txt'), 0o644);

    const g = await spawnGateway({ configFile, dataDir });
    running.push(g);
    const client = new OpenAI({ baseURL: `${g.url}/v1`, apiKey: g.key!, maxRetries: 0 });
    await client.responses.create({ model: 'mock/echo', input: 'keep me' });
    await client.images.generate({ model: 'mock/image', prompt: 'a lighthouse' }).catch(() => undefined);
    await client.chat.completions.create({ model: 'mock/echo', messages: [{ role: 'user', content: 'bill me' }] });

    const seen: string[] = [];
    const walk = (dir: string): void => {
      expect({ dir, mode: (fs.statSync(dir).mode & 0o777).toString(8) }).toEqual({ dir, mode: '700' });
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.name === 'notes.txt') continue;
        if (entry.isDirectory()) walk(full);
        else {
          seen.push(path.relative(dataDir, full));
          expect({ file: full, mode: (fs.statSync(full).mode & 0o777).toString(8) }).toEqual({ file: full, mode: '600' });
        }
      }
    };
    walk(dataDir);
    for (const name of ['db.json', 'usage.jsonl', 'server.json', 'gateway.lock', 'responses/resp_old.json']) expect(seen).toContain(name);
    expect(seen.some((n) => /^responses\/resp_[0-9a-f]{48}\.json$/.test(n))).toBe(true);
    expect(fs.statSync(path.join(dataDir, 'notes.txt')).mode & 0o777).toBe(0o644);
    expect(await g.stop()).toBe(0);
  });
});
