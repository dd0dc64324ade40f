import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const running: SpawnedGateway[] = [];
afterAll(async () => {
  for (const g of running) await g.kill();
});

const CONFIG = { providers: { mock: { plugin: 'mock', models: [{ id: 'echo', pricing: { input: 1000, output: 1000 } }] } } };

function setup() {
  const dir = tempDir();
  const dataDir = path.join(dir, 'data');
  const configFile = writeConfig(dir, CONFIG);
  const cli = async (args: string[]) => {
    const result = await runCli(['--config', configFile, '--data-dir', dataDir, ...args]);
    return { code: result.exitCode, out: String(result.stdout), err: String(result.stderr) };
  };
  return { dataDir, configFile, cli };
}

async function call(g: SpawnedGateway, key: string, pathname = '/v1/chat/completions'): Promise<Response> {
  const init: RequestInit =
    pathname === '/v1/chat/completions'
      ? { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'mock/echo', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }) }
      : { headers: { authorization: `Bearer ${key}` } };
  return fetch(`${g.url}${pathname}`, init);
}

describe('account CLI without a server', () => {
  it('credits, set, keys set and usage work on the data dir directly', async () => {
    const { cli } = setup();
    expect((await cli(['accounts', 'create', '--email', 'off@example.com', '--credits', '10'])).code).toBe(0);
    const added = await cli(['accounts', 'credits', 'off@example.com', '--add', '32.5']);
    expect(added.code).toBe(0);
    expect(added.out).toContain('balance 42.5 credits');
    const set = await cli(['accounts', 'set', 'off@example.com', '--tier', 'fellow', '--quota', '5000', '--suspended', '--json']);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.out)).toMatchObject({ tier: 'fellow', monthly_token_quota: 5000, suspended: true, credits: 42.5 });
    const keyJson = JSON.parse((await cli(['keys', 'create', '--account', 'off@example.com', '--json'])).out) as { id: string };
    const keySet = await cli(['keys', 'set', keyJson.id, '--rpm', '9', '--json']);
    expect(JSON.parse(keySet.out)).toMatchObject({ id: keyJson.id, rpm: 9 });
    const usage = await cli(['usage', '--json']);
    expect(usage.code).toBe(0);
    expect(JSON.parse(usage.out).accounts).toEqual([
      { email: 'off@example.com', tier: 'fellow', balance: 42.5, spent_credits: 0, requests: 0, month_tokens: 0, month_web_search_requests: 0, monthly_token_quota: 5000, suspended: true },
    ]);
    const table = await cli(['usage']);
    expect(table.out).toMatch(/off@example\.com\s+fellow\s+42\.5/);
  });

  it('reports unknown accounts and keys with one line and a non-zero exit', async () => {
    const { cli } = setup();
    // A data dir that is there (one that is not is its own message: test/e2e/cli-messages.test.ts).
    expect((await cli(['accounts', 'create', '--email', 'known@example.com'])).code).toBe(0);
    const missing = await cli(['accounts', 'credits', 'ghost@example.com', '--add', '1']);
    expect(missing.code).not.toBe(0);
    expect(missing.err.trim().split('\n')).toHaveLength(1);
    expect(missing.err).toContain('No account with email ghost@example.com');
    expect((await cli(['keys', 'set', 'key_nope', '--rpm', '3'])).code).not.toBe(0);
    expect((await cli(['accounts', 'credits', 'x@example.com'])).code).not.toBe(0);
  });
});

describe('account CLI against a running server', () => {
  it('changes take effect on the next request', async () => {
    const { cli, configFile, dataDir } = setup();
    expect((await cli(['accounts', 'create', '--email', 'on@example.com', '--tier', 'pro', '--credits', '100'])).code).toBe(0);
    const created = JSON.parse((await cli(['keys', 'create', '--account', 'on@example.com', '--json'])).out) as { id: string; key: string };
    const g = await spawnGateway({ configFile, dataDir });
    running.push(g);
    const key = created.key;

    // Credits: the server sees the grant at once.
    expect((await cli(['accounts', 'credits', 'on@example.com', '--add', '900'])).code).toBe(0);
    const balance = ((await (await call(g, key, '/v1/credits')).json()) as { data: { credits: { balance: number } } }).data.credits.balance;
    expect(balance).toBe(1000);

    // Key RPM: one request a minute.
    expect((await cli(['keys', 'set', created.id, '--rpm', '1'])).code).toBe(0);
    expect((await call(g, key)).status).toBe(200);
    const limited = await call(g, key);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-ratelimit-limit')).toBe('1');
    expect((await cli(['keys', 'set', created.id, '--rpm', '0'])).code).toBe(0);
    expect((await call(g, key)).status).toBe(200);

    // Suspension and its lifting.
    expect((await cli(['accounts', 'set', 'on@example.com', '--suspended'])).code).toBe(0);
    const suspended = await call(g, key);
    expect(suspended.status).toBe(403);
    expect(((await suspended.json()) as { error: { code: string } }).error.code).toBe('account_suspended');
    expect((await cli(['accounts', 'set', 'on@example.com', '--no-suspended'])).code).toBe(0);
    expect((await call(g, key)).status).toBe(200);

    // Quota: none left.
    expect((await cli(['accounts', 'set', 'on@example.com', '--quota', '1'])).code).toBe(0);
    const quota = await call(g, key);
    expect(quota.status).toBe(429);
    expect(((await quota.json()) as { error: { code: string } }).error.code).toBe('quota_exceeded');
    expect((await cli(['accounts', 'set', 'on@example.com', '--quota', 'none', '--tier', 'free'])).code).toBe(0);
    const free = await call(g, key);
    expect(free.status).toBe(200);
    expect(free.headers.get('x-ratelimit-limit')).toBe('10');

    // Usage: the server's ledger, through the CLI.
    await new Promise((r) => setTimeout(r, 50));
    const usage = JSON.parse((await cli(['usage', '--account', 'on@example.com', '--json'])).out) as {
      accounts: Array<{ requests: number; balance: number; spent_credits: number }>;
      activity: Array<{ model: string; requests: number }>;
    };
    expect(usage.accounts[0].requests).toBe(4);
    expect(usage.accounts[0].balance).toBe(1000 - usage.accounts[0].spent_credits);
    expect(usage.activity).toEqual([expect.objectContaining({ model: 'mock/echo', requests: 4 })]);
    const served = ((await (await call(g, key, '/v1/credits')).json()) as { data: { credits: { balance: number } } }).data.credits.balance;
    expect(served).toBe(usage.accounts[0].balance);
    await g.stop();
  }, 60_000);
});
