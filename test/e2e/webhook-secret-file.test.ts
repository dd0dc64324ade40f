/**
 * `<dataDir>/webhook-secret` is the master every account's webhook signing secret derives from.
 * A file that holds no secret (empty: its making cut short by a crash or a power loss before its
 * bytes reached the disk; a character or two) must never become the HMAC key: every account's
 * secret would then be computable from its account id alone, and anyone could forge webhooks.
 */
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

const running: SpawnedGateway[] = [];
afterAll(async () => {
  for (const g of running) await g.kill();
});

/** A data dir made by a first start (account, key, webhook-secret), the gateway stopped. */
async function madeDataDir(): Promise<{ dataDir: string; configFile: string; key: string; accountId: string }> {
  const dir = tempDir('gw-whsecret-');
  const configFile = writeConfig(dir, { providers: { mock: { plugin: 'mock' } } });
  const dataDir = path.join(dir, 'data');
  const first = await spawnGateway({ configFile, dataDir });
  expect(await first.stop()).toBe(0);
  const db = JSON.parse(fs.readFileSync(path.join(dataDir, 'db.json'), 'utf8')) as { accounts: Array<{ id: string }> };
  return { dataDir, configFile, key: first.key!, accountId: db.accounts[0].id };
}

describe('the webhook-secret file', () => {
  it('an empty one is made again (and said so), never used as an empty key', async () => {
    const { dataDir, configFile, key, accountId } = await madeDataDir();
    const file = path.join(dataDir, 'webhook-secret');
    fs.writeFileSync(file, '');
    const g = await spawnGateway({ configFile, dataDir });
    running.push(g);
    const { secret } = (await (await fetch(`${g.url}/v1/webhooks/secret`, { headers: { authorization: `Bearer ${key}` } })).json()) as { secret: string };
    // What anyone who knows the account id could compute with an empty master.
    const forgeable = `whsec_${createHmac('sha256', '').update(`webhook:${accountId}`).digest('base64')}`;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(forgeable);
    const made = fs.readFileSync(file, 'utf8');
    expect(made).toMatch(/^[A-Za-z0-9_-]{43}\n$/);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(g.stderr()).toMatch(/webhook-secret .*empty/);
    // No temp file is left beside it.
    expect(fs.readdirSync(dataDir).filter((n) => n.startsWith('webhook-secret'))).toEqual(['webhook-secret']);
    expect(await g.stop()).toBe(0);
  });

  it('one too short to be a secret stops the start with one line naming the file, and is left as it is', async () => {
    const { dataDir, configFile } = await madeDataDir();
    const file = path.join(dataDir, 'webhook-secret');
    fs.writeFileSync(file, 'x\n');
    const result = await runCli(['--config', configFile, '--data-dir', dataDir, 'serve', '--port', '0']);
    expect(result.exitCode).not.toBe(0);
    const lines = String(result.stderr).split('\n').filter((l) => l.trim());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^gateway: .*webhook-secret .*too (few|short)/);
    expect(lines[0]).toContain('media.jobs.webhookSecret');
    expect(fs.readFileSync(file, 'utf8')).toBe('x\n');
  });
});
