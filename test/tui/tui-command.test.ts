import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runInPty } from '../helpers/run-in-pty.ts';
import { REPO_ROOT, runCli, spawnGateway, tempDir, writeConfig, type SpawnedGateway } from '../helpers/spawn-gateway.ts';

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
    // The Overview's live figures (fallbacks, open circuits) are `status` in a script; its Batches tab `batches ls` (before: neither named).
    expect(String(result.stderr).trim()).toBe(
      'gateway: tui needs an interactive terminal (stdin and stdout must be a TTY); in scripts use status (the live figures: fallbacks, open circuits, latest requests), accounts ls, keys ls, models ls, media ls, batches ls or usage, with --json',
    );
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
    const lock = fs.readFileSync(path.join(dataDir, 'gateway.lock'), 'utf8');
    expect(lock).toMatch(/^\d+\ngateway tui\n\d+$/);
    // A newcomer's npm start in another terminal: the refusal says what holds the data dir (before: only its pid).
    const serve = await runCli(['--config', config, '--data-dir', dataDir, 'serve', '--port', '0']);
    expect(serve.exitCode).toBe(1);
    expect(String(serve.stderr).trim()).toBe(`gateway: cannot serve: the data dir ${dataDir} is in use by process ${lock.split('\n')[0]} (gateway tui). Stop it, or give this one its own --data-dir`);
    tui.type('4');
    await tui.waitFor('mock/echo');
    tui.type('q');
    const result = await tui.child;
    expect(result.exitCode).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'gateway.lock'))).toBe(false);
  });

  it("talks to a running server: a key created in the TUI is there for the CLI, scoped to a plugin's format", { timeout: 90_000 }, async () => {
    // The server's config loads a plugin that brings its own wire format (the toy, from another directory).
    const project = tempDir('gw-tui-toy-');
    fs.cpSync(path.join(REPO_ROOT, 'test/formats/toy'), path.join(project, 'toy'), { recursive: true });
    const gateway: SpawnedGateway = await spawnGateway({ configFile: writeConfig(project, { providers: { mock: { plugin: 'mock' }, toy: { plugin: './toy/plugin.ts' } } }) });
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
    // Its endpoints: the toy format's group. The form checks them where the TUI runs, which learns the config's plugin formats too.
    tui.type('e');
    await tui.waitFor('Edit key');
    tui.type('\t\t\t\t');
    await tui.waitFor('a wrong name lists them all');
    tui.type('toy\r');
    await tui.waitFor('scope all models; toy');
    tui.type('q');
    expect((await tui.child).exitCode).toBe(0);

    const listed = await runCli(['--config', gateway.configFile, '--data-dir', gateway.dataDir, 'keys', 'ls', '--json']);
    const keys = JSON.parse(String(listed.stdout)) as Array<{ name: string; endpoints: string[] | null }>;
    expect(keys.find((k) => k.name === 'from-tui')?.endpoints).toEqual(['toy']);
    const models = await fetch(`${gateway.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } });
    expect(models.status).toBe(200);
  });

  it('against a server: edits a key, creates an account that logs in, filters and deletes media; the cursor follows the new key', { timeout: 120_000 }, async () => {
    const gateway: SpawnedGateway = await spawnGateway();
    cleanups.push(() => gateway.stop());
    const tui = runInPty(['--config', gateway.configFile, '--data-dir', gateway.dataDir, 'tui', '--refresh', '0'], {
      size: { columns: 140, rows: 40 },
      context: () => `gateway stderr:\n${gateway.stderr()}\ngateway stdout:\n${gateway.stdout()}`,
    });
    cleanups.push(async () => tui.child.kill());
    await tui.waitFor('(1 active)');

    // Keys: a new key, and the cursor is on it when the secret box closes.
    tui.type('3');
    await tui.waitFor('x revoke');
    tui.type('n');
    await tui.waitFor('New key: name');
    tui.type('pty-key\r');
    await tui.waitFor('owner account');
    tui.type('\r');
    await tui.waitFor('Store it now');
    const shown = tui.screen();
    const secret = /sk-gw-[A-Za-z0-9_-]{20,}/.exec(shown)![0];
    const id = /New API key (key_[A-Za-z0-9]+) \(pty-key\)/.exec(shown)![1];
    tui.type('\r');
    await tui.waitFor(new RegExp(`› ${id}\\s+pty-key`));

    // Edit its RPM and limit in the form.
    tui.type('e');
    await tui.waitFor(`Edit key ${id} (pty-key)`);
    tui.type('\t');
    await tui.waitFor('requests per minute');
    tui.type('7');
    // Tabs typed in one chunk are taken one key at a time.
    tui.type('\t\t\t\t');
    await tui.waitFor('spend limit; empty = none');
    tui.type('25');
    tui.type('\t');
    await tui.waitFor('‹ none ›');
    tui.type('m');
    await tui.waitFor('‹ monthly ›');
    tui.type('\r');
    await tui.waitFor(`✓ Key ${id} (pty-key): rpm 7`);
    const view = (await (await fetch(`${gateway.url}/v1/key`, { headers: { authorization: `Bearer ${secret}` } })).json()) as {
      data: { id: string; rate_limit: { requests: number }; limit_reset: string; limit_credits: { limit: number } };
    };
    expect(view.data).toMatchObject({ id, rate_limit: { requests: 7 }, limit_reset: 'monthly', limit_credits: { limit: 25 } });

    // Accounts: one with a tier, credits and a password, which then logs in.
    tui.type('2');
    await tui.waitFor('a new account');
    tui.type('a');
    await tui.waitFor('New account');
    tui.type('pty@example.test\t');
    await tui.waitFor('←/→ to choose');
    tui.type('\u001b[C');
    await tui.waitFor('‹ basic ›');
    tui.type('\t\u0015500\t');
    await tui.waitFor('for dashboard login');
    tui.type('pty-password-1\r');
    await tui.waitFor('✓ Created account pty@example.test (basic, 500 credits, can log in).');
    const login = await fetch(`${gateway.url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'pty@example.test', password: 'pty-password-1' }) });
    expect(login.status).toBe(200);
    const { token } = (await login.json()) as { token: string };

    // Media: two records of that account; filter to videos, delete the one shown after y.
    const create = async (body: Record<string, unknown>) => {
      const res = await fetch(`${gateway.url}/v1/media/generations`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status).toBe(201);
      return ((await res.json()) as { id: string }).id;
    };
    const image = await create({ media_type: 'image', model: 'flux-pro', prompt: 'a lighthouse' });
    const video = await create({ media_type: 'video', model: 'veo-3', prompt: 'surfers' });
    // Both records exist before the tab opens: its first load lists them.
    tui.type('5');
    await tui.waitFor('1–2 of 2 · type any');
    tui.type('t');
    await tui.waitFor('type image');
    tui.type('t');
    await tui.waitFor('1–1 of 1 · type video');
    tui.type('x');
    await tui.waitFor(`Delete media record ${video}?`);
    tui.type('y');
    await tui.waitFor(`✓ Deleted media record ${video}.`);
    const left = (await (await fetch(`${gateway.url}/v1/media/generations`, { headers: { authorization: `Bearer ${token}` } })).json()) as { data: Array<{ id: string }> };
    expect(left.data.map((m) => m.id)).toEqual([image]);

    tui.type('q');
    expect((await tui.child).exitCode).toBe(0);
  });
});
