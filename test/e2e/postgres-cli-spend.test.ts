/**
 * The CLI on a machine where no server runs, against the PostgreSQL store the servers share
 * (the operator's usual place with a shared store): the spend it shows is the shared ledger's,
 * not that of a ledger file in its own data dir (it has none).
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chatOnce, FIVE_CHARS, PER_TOKEN } from '../helpers/credit-holds.ts';
import { connectTestDatabase, type TestDatabaseWithClient } from '../helpers/pg-database.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

let db: TestDatabaseWithClient | undefined;
let gw: SpawnedGateway | undefined;
afterAll(async () => {
  await gw?.stop();
  await db?.drop();
});

describe('the CLI without a server on a PostgreSQL store (real CLI)', () => {
  it("keys ls and accounts ls show the key's limit used and the account's month spend from the shared ledger", async () => {
    db = await connectTestDatabase();
    const dir = tempDir('gw-pgcli-');
    const configFile = writeConfig(dir, { store: { postgres: db.url }, providers: { mock: { plugin: 'mock', models: [{ id: 'echo', pricing: PER_TOKEN }] } } });
    gw = await spawnGateway({ configFile, dataDir: path.join(dir, 'server') });
    const served = (args: string[]) => runCli(['--config', configFile, '--data-dir', gw!.dataDir, ...args]);
    expect((await served(['accounts', 'create', '--email', 'pgcli@example.test', '--credits', '1000', '--tier', 'enterprise'])).exitCode).toBe(0);
    const { key, id } = JSON.parse(String((await served(['keys', 'create', '--account', 'pgcli@example.test', '--limit', '500', '--json'])).stdout)) as { key: string; id: string };
    // One request bills 5 input tokens and 2 output tokens: 7 credits.
    expect((await chatOnce(gw.url, key, { content: FIVE_CHARS, max_tokens: 4 })).status).toBe(200);
    await expect.poll(async () => (await db!.sql.query('select 1 from gw_ledger')).rowCount, { timeout: 10_000, interval: 50 }).toBe(1);
    const keyOf = async (run: typeof served) => (JSON.parse(String((await run(['keys', 'ls', '--json'])).stdout)) as Array<{ id: string; limit_used: number | null }>).find((k) => k.id === id);
    const accountOf = async (run: typeof served) => (JSON.parse(String((await run(['accounts', 'ls', '--json'])).stdout)) as Array<{ email: string; month_spent: number | null }>).find((a) => a.email === 'pgcli@example.test');
    expect(await keyOf(served)).toMatchObject({ limit_used: 7 });
    expect(await accountOf(served)).toMatchObject({ month_spent: 7 });
    // The operator's own machine: another data dir, no server there, the same database.
    const local = (args: string[]) => runCli(['--config', configFile, '--data-dir', path.join(dir, 'operator'), ...args]);
    expect(await keyOf(local)).toMatchObject({ limit_used: 7 });
    expect(await accountOf(local)).toMatchObject({ month_spent: 7 });
  }, 60_000);
});
