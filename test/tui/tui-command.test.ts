import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runInPty } from '../helpers/run-in-pty.ts';
import { runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

describe('gateway tui', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('--help describes the command', async () => {
    const result = await runCli(['tui', '--help']);
    expect(result.exitCode).toBe(0);
    expect(String(result.stdout)).toContain('interactive admin TUI');
    expect(String(result.stdout)).toContain('--refresh <seconds>');
  });

  it('without a terminal exits 2 with one clear line and leaves the data dir alone', async () => {
    const dir = tempDir();
    const dataDir = path.join(dir, 'data');
    const result = await runCli(['--data-dir', dataDir, 'tui'], { cwd: dir });
    expect(result.exitCode).toBe(2);
    expect(String(result.stderr).trim()).toBe('gateway: tui needs an interactive terminal (stdin and stdout must be a TTY); in scripts use accounts ls, keys ls, models ls, media ls or usage, with --json');
    expect(fs.existsSync(dataDir)).toBe(false);
  });

  it('runs locally on a terminal, holds the data dir lock, and releases it on q', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const config = writeConfig(dir, { providers: { mock: { plugin: 'mock' } } });
    const dataDir = path.join(dir, 'data');
    const tui = runInPty(['--config', config, '--data-dir', dataDir, 'tui']);
    cleanups.push(async () => tui.child.kill());
    // Loaded (not just drawn): the app is mounted and reads keys.
    await tui.waitFor('(0 active)');
    expect(tui.screen()).toContain(`local ${dataDir}`);
    expect(fs.readFileSync(path.join(dataDir, 'gateway.lock'), 'utf8')).toMatch(/^\d+$/);
    tui.type('4');
    await tui.waitFor('mock/echo');
    tui.type('q');
    const result = await tui.child;
    expect(result.exitCode).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'gateway.lock'))).toBe(false);
  });

  it('talks to a running server: a key created in the TUI is there for the CLI', { timeout: 90_000 }, async () => {
    const gateway: SpawnedGateway = await spawnGateway();
    cleanups.push(() => gateway.stop());
    const tui = runInPty(['--config', gateway.configFile, '--data-dir', gateway.dataDir, 'tui', '--refresh', '0']);
    cleanups.push(async () => tui.child.kill());
    await tui.waitFor(`server ${gateway.url}`);
    await tui.waitFor('(1 active)');
    tui.type('3');
    await tui.waitFor('x revoke');
    tui.type('n');
    await tui.waitFor('New key: name');
    tui.type('from-tui\r');
    await tui.waitFor('owner account');
    tui.type('\r');
    await tui.waitFor('Store it now');
    const secret = /sk-gw-[A-Za-z0-9_-]{20,}/.exec(tui.screen())?.[0];
    expect(secret).toBeDefined();
    tui.type('\r');
    await tui.waitFor('x revoke');
    tui.type('q');
    expect((await tui.child).exitCode).toBe(0);

    const listed = await runCli(['--config', gateway.configFile, '--data-dir', gateway.dataDir, 'keys', 'ls', '--json']);
    const keys = JSON.parse(String(listed.stdout)) as Array<{ name: string }>;
    expect(keys.map((k) => k.name)).toContain('from-tui');
    const models = await fetch(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } });
    expect(models.status).toBe(200);
  });
});
