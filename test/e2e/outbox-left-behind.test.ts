import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, REPO_ROOT, spawnGateway, tempDir, writeConfig } from '../helpers/spawn-gateway.ts';

/**
 * A data dir that ran on PostgreSQL keeps answered charges in its settlement outbox until they
 * reach the database. Started on the file store (store.postgres taken out of the config, e.g.
 * while the database is away), nothing would ever send them: the gateway must not start over
 * them without a word.
 */
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const line = (seq: number, id: string) =>
  JSON.stringify({ seq, ts: Date.now(), request_id: id, account_id: 'acct_1', key_id: 'key_1', model: 'mock/echo', provider: 'mock', endpoint: '/v1/chat/completions', input_tokens: 1, output_tokens: 4, reasoning_tokens: 0, cached_tokens: 0, cost_credits: 4, estimated: false, aborted: false, charged_credits: 4 }) + '\n';

describe('a settlement outbox left in a data dir', () => {
  it('the file store refuses to serve over unsent settlements with one line naming the file, and serves once they are all sent', async () => {
    const dir = tempDir('gw-obl-');
    dirs.push(dir);
    const dataDir = path.join(dir, 'data');
    fs.mkdirSync(dataDir, { mode: 0o700 });
    const configFile = writeConfig(dir, { providers: { mock: { plugin: 'mock', models: [{ id: 'echo', pricing: { input: 0, output: 1000 } }] } } });
    // Three lines, the first one sent (the checkpoint says 1): two were answered and never reached the database.
    fs.writeFileSync(path.join(dataDir, 'settlements.jsonl'), line(1, 'req_a') + line(2, 'req_b') + line(3, 'req_c'), { mode: 0o600 });
    fs.writeFileSync(path.join(dataDir, 'settlements.shipped'), '1\n', { mode: 0o600 });
    const refused = await execa(process.execPath, [BIN, '--config', configFile, '--data-dir', dataDir, 'serve', '--port', '0'], { cwd: REPO_ROOT, reject: false, timeout: 20_000 });
    expect(refused.timedOut, 'it served').toBe(false);
    expect(refused.exitCode).not.toBe(0);
    const stderr = String(refused.stderr);
    expect(stderr).toContain('settlements.jsonl');
    expect(stderr).toMatch(/2 settlement/);
    expect(stderr.trim().split('\n').filter((l) => /settlement/.test(l))).toHaveLength(1);
    // The file is kept as it was.
    expect(fs.readFileSync(path.join(dataDir, 'settlements.jsonl'), 'utf8').split('\n').filter(Boolean)).toHaveLength(3);
    // All sent (the checkpoint at the last line): nothing is owed, the file store serves.
    fs.writeFileSync(path.join(dataDir, 'settlements.shipped'), '3\n');
    const g = await spawnGateway({ configFile, dataDir });
    await g.stop();
  }, 60_000);
});
