import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInPty } from '../helpers/run-in-pty.ts';
import { BIN, runCli, spawnGateway, tempDir, writeConfig } from '../helpers/spawn-gateway.ts';

const noStack = /\n\s+at |\bError:|^\s*\[/m;

describe('CLI error messages', () => {
  it('a validation error prints the field and the problem, without the server and with one', async () => {
    const dir = tempDir();
    const file = writeConfig(dir, { providers: { mock: { plugin: 'mock' } } });
    const args = ['--config', file, '--data-dir', path.join(dir, 'data')];
    const local = await runCli([...args, 'accounts', 'create', '--email', 'bad']);
    expect(local.exitCode).toBe(1);
    expect(String(local.stderr).trim()).toBe('gateway: --email: must be an email address');

    const gw = await spawnGateway({ configFile: file, dataDir: path.join(dir, 'data') });
    try {
      const remote = await runCli([...args, 'accounts', 'create', '--email', 'bad', '--password', 'short']);
      expect(remote.exitCode).toBe(1);
      const line = String(remote.stderr).trim();
      expect(line).toMatch(/^gateway: --email: must be an email address; --password: .*8 characters$/);
      expect(line).not.toMatch(noStack);
    } finally {
      await gw.stop();
    }
  });

  // Before: a header row and nothing else, so a command run from the wrong directory (a data dir of its own) looked
  // like a gateway with no keys; batches, videos and media ls already said "No …".
  it("store migrate's help names every kind it copies, conversations included", async () => {
    const help = String((await runCli(['store', 'migrate', '--help'])).stdout).replace(/\s+/g, ' ');
    for (const kind of ['accounts', 'responses', 'conversations', 'files', 'batches']) expect(help).toContain(kind);
  });

  it('status\'s help (and the command list) names the fallbacks it prints (before: open circuits and latest requests only)', async () => {
    const help = String((await runCli(['status', '--help'])).stdout).replace(/\s+/g, ' ');
    expect(help).toContain('fallbacks');
    const list = String((await runCli(['--help'])).stdout).replace(/\s+/g, ' ');
    expect(list).toMatch(/status \[options\] the running server's live figures: [^:]*fallbacks/);
  });

  // Found by a newcomer: with config/openrouter.config.ts's aggregator (models: ['*', …]) models ls listed the named ids
  // only, with no word that any other id pinned to that provider is served too.
  it('models ls says which providers take any model id, pinned', async () => {
    const dir = tempDir();
    const file = writeConfig(dir, { providers: { mock: { plugin: 'mock' }, orr: { plugin: 'mock', models: ['*', 'anthropic/claude-sonnet-4.5'] } } });
    const run = await runCli(['--config', file, '--data-dir', path.join(dir, 'data'), 'models', 'ls']);
    expect(run.exitCode).toBe(0);
    expect(String(run.stdout)).toContain("Any other model id pinned to provider 'orr' is served too (its models include '*'): ask for orr/<model id>, e.g. orr/google/gemini-2.5-pro.");
    const plain = await runCli(['--config', writeConfig(tempDir(), { providers: { mock: { plugin: 'mock' } } }), '--data-dir', path.join(dir, 'data2'), 'models', 'ls']);
    expect(String(plain.stdout)).not.toContain('Any other model id');
  });

  it('keys ls, accounts ls and usage on an empty data dir name the data dir and say what makes one; --json stays []', async () => {
    const dir = tempDir();
    const file = writeConfig(dir, { providers: { mock: { plugin: 'mock' } } });
    const dataDir = path.join(dir, 'data');
    fs.mkdirSync(dataDir);
    const args = ['--config', file, '--data-dir', dataDir];
    const out = async (...command: string[]) => {
      const run = await runCli([...args, ...command]);
      expect(run.exitCode).toBe(0);
      return String(run.stdout).trim();
    };
    expect(await out('keys', 'ls')).toBe(`No API keys in ${dataDir}: \`gateway keys create\` makes one (the first \`gateway serve\` on an empty data dir does too).`);
    const noAccounts = `No accounts in ${dataDir}: \`gateway accounts create --email …\` makes one (the first \`gateway serve\` on an empty data dir makes local@localhost).`;
    expect(await out('accounts', 'ls')).toBe(noAccounts);
    expect(await out('usage')).toBe(noAccounts);
    expect(JSON.parse(await out('keys', 'ls', '--json'))).toEqual([]);
    expect(JSON.parse(await out('accounts', 'ls', '--json'))).toEqual([]);
    expect((await out('accounts', 'create', '--email', 'a@example.com')).split('\n')).toHaveLength(1);
    expect(await out('accounts', 'ls')).toMatch(/^ID +EMAIL .*\n.*a@example\.com/);
  });

  it('a listing piped into a reader that stops early (| head -1, | true) ends quietly with exit 0, not with an EPIPE stack trace', async () => {
    const dir = tempDir();
    for (const command of [['models', 'ls', '--json'], ['models', 'ls'], ['keys', 'ls', '--json']]) {
      const child = spawn(process.execPath, [BIN, ...command], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.destroy(); // the reader is gone before the first line is written
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += String(chunk)));
      const exitCode = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(stderr, command.join(' ')).toBe('');
      expect(exitCode, command.join(' ')).toBe(0);
    }
  });

  // Before: a read-only command run where no gateway lives made a .gateway/ there, and then said the records were empty.
  it('read-only commands on a data dir that does not exist create none, say where they looked and what makes one, and exit 0', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "elsewhere", "private": true }\n');
    const dataDir = path.join(dir, '.gateway');
    const run = (...command: string[]) => runCli(command, { cwd: dir });
    const out = async (...command: string[]) => {
      const result = await run(...command);
      expect(result.exitCode).toBe(0);
      return String(result.stdout).trim();
    };
    const missing = `${fs.realpathSync(dir)}${path.sep}.gateway (no data dir there: run this where the gateway serves, or name its data dir with --data-dir)`;
    expect(await out('keys', 'ls')).toBe(`No API keys in ${missing}: \`gateway keys create\` makes one (the first \`gateway serve\` on an empty data dir does too).`);
    const noAccounts = `No accounts in ${missing}: \`gateway accounts create --email …\` makes one (the first \`gateway serve\` on an empty data dir makes local@localhost).`;
    expect(await out('accounts', 'ls')).toBe(noAccounts);
    expect(await out('usage')).toBe(noAccounts);
    expect(await out('media', 'ls')).toBe(`No media generations in ${missing}.`);
    expect(await out('videos', 'ls')).toBe(`No video jobs in ${missing}.`);
    expect(await out('batches', 'ls')).toBe(`No batches in ${missing}.`);
    const models = await out('models', 'ls');
    expect(models).toContain('mock/echo');
    // `gateway models` ("list models" in --help) lists them too, rather than printing its help and exiting 1.
    expect(await out('models')).toBe(models);
    // `list` is every `ls`'s other name (what `gateway models list` and the like type): "too many arguments for 'ls'" before.
    expect(await out('models', 'list')).toBe(models);
    for (const group of ['keys', 'accounts', 'media', 'videos', 'batches']) expect(await out(group, 'list')).toBe(await out(group, 'ls'));
    // Every group alone lists too (`gateway keys`, what people type first): its help on stderr and exit 1 before.
    for (const group of ['keys', 'accounts', 'media', 'videos', 'batches']) expect(await out(group), group).toBe(await out(group, 'ls'));
    expect(JSON.parse(await out('keys', '--json'))).toEqual([]);
    // A typo is an unknown command naming the group's commands; for models it was "too many arguments for 'ls'".
    for (const [group, commands] of [['models', 'ls'], ['keys', 'create, ls, revoke, set']]) {
      const typo = await run(group, 'lst');
      expect(typo.exitCode).toBe(1);
      expect(String(typo.stderr).trim()).toBe(`gateway: unknown command 'lst' for 'gateway ${group}' (Did you mean ls? its commands: ${commands}) (run with --help for usage)`);
    }
    // Nothing close enough: the commands alone.
    expect(String((await run('keys', 'rotate')).stderr).trim()).toBe("gateway: unknown command 'rotate' for 'gateway keys' (its commands: create, ls, revoke, set) (run with --help for usage)");
    // Job models are priced per second or per job: their zero token prices say nothing, their price is shown.
    expect(models).toMatch(/mock\/video\s+video_generation\s+-\s+-\s+-\s+0\.1\/s\s/);
    expect(models).toMatch(/mock\/music\s+music_generation\s+-\s+-\s+-\s+0\.002\/s\s/);
    expect(models).toMatch(/mock\/3d\s+threed_generation\s+-\s+-\s+-\s+0\.05\/job\s/);
    expect(JSON.parse(await out('keys', 'ls', '--json'))).toEqual([]);
    expect(JSON.parse(await out('accounts', 'ls', '--json'))).toEqual([]);
    expect(JSON.parse(await out('usage', '--json'))).toEqual({ accounts: [] });
    for (const list of ['media', 'videos', 'batches']) expect(JSON.parse(await out(list, 'ls', '--json'))).toMatchObject({ data: [] });
    const shown = await run('media', 'show', 'gen_x');
    expect(shown.exitCode).toBe(1);
    expect(String(shown.stderr).trim()).toBe("gateway: No media generation with id 'gen_x'.");
    expect(fs.existsSync(dataDir)).toBe(false);
    // A command that writes makes it.
    expect((await run('keys', 'create', '--json')).exitCode).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'db.json'))).toBe(true);
    expect(await out('keys', 'ls')).toMatch(/^ID +/);
  });

  // Before: run from the wrong directory, these made an empty .gateway/ there and then said only
  // "No account with email local@localhost." (or "No API key with id …"), though the account was in the real data dir.
  it('commands that change an existing record, on a data dir that does not exist, create none and say where they looked', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "elsewhere", "private": true }\n');
    const dataDir = path.join(fs.realpathSync(dir), '.gateway');
    const expected = `gateway: no data dir at ${dataDir}: run this where the gateway serves, or name its data dir with --data-dir. Nothing was changed.`;
    const commands = [
      ['accounts', 'set', 'local@localhost', '--password', 'hunter2hunter2'],
      ['accounts', 'reset-password', 'local@localhost'],
      ['accounts', 'credits', 'local@localhost', '--add', '5'],
      ['keys', 'revoke', 'key_abc'],
      ['keys', 'set', 'key_abc', '--rpm', '5'],
      ['media', 'rm', 'gen_x'],
      ['batches', 'cancel', 'batch_x'],
      ['videos', 'cancel', 'video_x'],
    ];
    for (const command of commands) {
      const run = await runCli(command, { cwd: dir });
      expect({ command, exitCode: run.exitCode, stderr: String(run.stderr).trim() }).toEqual({ command, exitCode: 1, stderr: expected });
      expect(fs.existsSync(dataDir)).toBe(false);
    }
  });

  it('keys create refuses a past --expires; keys ls shows a key past its expiry as expired', async () => {
    const dir = tempDir();
    const file = writeConfig(dir, { providers: { mock: { plugin: 'mock' } } });
    const args = ['--config', file, '--data-dir', path.join(dir, 'data')];
    const past = await runCli([...args, 'keys', 'create', '--expires', '2020-01-01']);
    expect(past.exitCode).toBe(1);
    expect(String(past.stderr).trim()).toBe("gateway: --expires must be in the future, got '2020-01-01' (2020-01-01T00:00:00Z, already past): the key would never work.");
    const bad = await runCli([...args, 'keys', 'create', '--expires', 'someday']);
    expect(bad.exitCode).toBe(1);
    expect(String(bad.stderr).trim()).toBe('gateway: --expires: must be an ISO date such as 2027-01-31 or 2027-01-31T12:00:00Z');

    const soon = await runCli([...args, 'keys', 'create', '--name', 'short-lived', '--expires', new Date(Date.now() + 60_000).toISOString(), '--json']);
    expect(soon.exitCode).toBe(0);
    const lasting = await runCli([...args, 'keys', 'create', '--name', 'lasting', '--expires', '2999-01-01', '--json']);
    expect(lasting.exitCode).toBe(0);
    // Two minutes later by the gateway's clock (GATEWAY_CLOCK_OFFSET_MS, as the server's expiry check reads it), not after a real wait.
    const later = { env: { GATEWAY_CLOCK_OFFSET_MS: '120000' } };
    const ls = String((await runCli([...args, 'keys', 'ls'], later)).stdout);
    expect(ls).toMatch(/short-lived .* expired\s*$/m);
    expect(ls).toMatch(/lasting .* active\s*$/m);
    const json = JSON.parse(String((await runCli([...args, 'keys', 'ls', '--json'], later)).stdout)) as Array<{ name: string; status: string }>;
    expect(json.find((k) => k.name === 'short-lived')?.status).toBe('expired');
    expect(json.find((k) => k.name === 'lasting')?.status).toBe('active');
  });

  it('keys create says every setting it was given, as keys set does (--rpm and --expires too)', async () => {
    const dir = tempDir();
    const file = writeConfig(dir, { providers: { mock: { plugin: 'mock' } } });
    const args = ['--config', file, '--data-dir', path.join(dir, 'data')];
    const created = await runCli([...args, 'keys', 'create', '--name', 'capped', '--rpm', '5', '--expires', '2999-01-01']);
    expect(created.exitCode).toBe(0);
    const lines = String(created.stdout).trim().split('\n');
    expect(lines[0]).toMatch(/^Created key key_\w+ \(capped\) for local@localhost\. It is shown once; store it now:$/);
    expect(lines[1]).toMatch(/^ {2}sk-gw-\w{40}$/);
    // Before, a key's rate limit and expiry went unconfirmed (only a scope or spend limit had this line).
    expect(lines.slice(2)).toEqual(['Settings: rpm 5/min; scope all; limit none; expires 2999-01-01T00:00:00Z.']);
    const scoped = await runCli([...args, 'keys', 'create', '--models', 'mock/*', '--limit', '100', '--limit-reset', 'monthly']);
    expect(String(scoped.stdout).trim().split('\n').slice(2)).toEqual([
      'Settings: rpm from the account (tier, endpoint or default); scope models mock/*; limit 100 credits monthly (0 used); expires never.',
    ]);
    const plain = await runCli([...args, 'keys', 'create']);
    expect(String(plain.stdout).trim().split('\n')).toHaveLength(2);
  });

  // Found by a newcomer: the first run shows only a key's secret, so `keys revoke sk-gw-…` is a natural first try. Before:
  // "No API key with id sk-gw-<the whole secret>." (the secret echoed to the terminal, and no word of which id to use).
  it('keys revoke and keys set given a key\'s secret say it is not an id and name the key\'s id, never echoing the secret', async () => {
    const dir = tempDir();
    const file = writeConfig(dir, { providers: { mock: { plugin: 'mock' } } });
    const dataDir = path.join(dir, 'data');
    const args = ['--config', file, '--data-dir', dataDir];
    const created = JSON.parse(String((await runCli([...args, 'keys', 'create', '--name', 'laptop', '--json'])).stdout)) as { id: string; key: string };
    const unknownSecret = `sk-gw-${'x'.repeat(40)}`;
    const check = async (cmd: string[]) => {
      const run = await runCli([...args, ...cmd]);
      expect(run.exitCode).toBe(1);
      const line = String(run.stderr).trim();
      expect(line.split('\n')).toHaveLength(1);
      expect(line).not.toContain(cmd[2]);
      return line;
    };
    // Without a server (the CLI on the data dir) and through a running one's admin procedures.
    expect(await check(['keys', 'revoke', created.key])).toBe(`gateway: That is an API key's secret, not its id: this key's id is ${created.id} (laptop); \`gateway keys ls\` lists the ids.`);
    const gw = await spawnGateway({ configFile: file, dataDir });
    try {
      expect(await check(['keys', 'set', created.key, '--rpm', '5'])).toBe(`gateway: That is an API key's secret, not its id: this key's id is ${created.id} (laptop); \`gateway keys ls\` lists the ids.`);
      expect(await check(['keys', 'revoke', unknownSecret])).toBe("gateway: That is an API key's secret, not its id, and no active key has it: ids look like key_…; `gateway keys ls` lists them.");
      const plain = await runCli([...args, 'keys', 'revoke', 'key_nope']);
      expect(String(plain.stderr).trim()).toBe('gateway: No API key with id key_nope.');
      // The key was left as it was.
      const res = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${created.key}` } });
      expect(res.status).toBe(200);
    } finally {
      await gw.stop();
    }
  });

  // Found by a newcomer: \`gateway status\` run from another folder than the one serving said "no server is running on
  // <that folder>/.gateway (start one with gateway serve)", though that folder had no data dir at all: starting one there
  // would make a second gateway with new records (and find the port taken). It now says there is no data dir there.
  it('status and dashboard where there is no data dir say so and how to name one; with a data dir and no server, to start one', async () => {
    const dir = tempDir();
    const file = writeConfig(dir, { providers: { mock: { plugin: 'mock' } } });
    const dataDir = path.join(dir, 'data');
    for (const command of ['status', 'dashboard']) {
      const run = await runCli(['--config', file, '--data-dir', dataDir, command]);
      expect(run.exitCode).toBe(1);
      expect(String(run.stderr).trim()).toBe(`gateway: no server is running on ${dataDir} (no data dir there: run this where the gateway serves, or name its data dir with --data-dir)`);
      expect(fs.existsSync(dataDir)).toBe(false);
    }
    fs.mkdirSync(dataDir);
    for (const command of ['status', 'dashboard']) {
      const run = await runCli(['--config', file, '--data-dir', dataDir, command]);
      expect(String(run.stderr).trim()).toBe(`gateway: no server is running on ${dataDir} (start one with gateway serve)`);
    }
  });

  // Found by a newcomer: with \`gateway tui\` open and no server (it holds the data dir until it quits), \`gateway keys ls\`
  // in another terminal waited 10 s, then said only "the data dir … is in use by process N (gateway tui)".
  it('a command on a data dir the TUI holds (no server) is refused at once, saying to quit the TUI; after q it runs', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const file = writeConfig(dir, { providers: { mock: { plugin: 'mock' } } });
    const dataDir = path.join(dir, 'data');
    const args = ['--config', file, '--data-dir', dataDir];
    expect((await runCli([...args, 'keys', 'create', '--name', 'before-tui'])).exitCode).toBe(0);
    const tui = runInPty([...args, 'tui', '--refresh', '0'], { cwd: dir });
    try {
      await tui.waitFor('this TUI holds the data dir lock');
      const started = Date.now();
      const refused = await runCli([...args, 'keys', 'ls']);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(refused.exitCode).toBe(1);
      const pid = Number(fs.readFileSync(path.join(dataDir, 'gateway.lock'), 'utf8').split('\n')[0]);
      expect(String(refused.stderr).trim()).toBe(
        `gateway: the data dir ${dataDir} is in use by process ${pid} (gateway tui, which works on it without a server and holds it until it quits): quit the TUI (q) and run this again; with \`gateway serve\` running, the TUI and every command go through the server together`,
      );
      tui.type('q');
      expect((await tui.child).exitCode).toBe(0);
    } finally {
      tui.child.kill();
    }
    const after = await runCli([...args, 'keys', 'ls']);
    expect(after.exitCode).toBe(0);
    expect(String(after.stdout)).toContain('before-tui');
  });

  // Found by a newcomer: \`gateway keys create\` run from another folder than the one serving (no config there, so the data
  // dir is the cwd's) made a new data dir and account and printed a key the running server answered 401 to, with no word
  // that it was a new data dir.
  it('keys create and accounts create that make the data dir say so on stderr; stdout (--json too) is unchanged', async () => {
    const dir = tempDir();
    const file = writeConfig(dir, { providers: { mock: { plugin: 'mock' } } });
    const note = (dataDir: string, what: string) =>
      `gateway: note: there was no data dir at ${dataDir}, so this made one: a gateway serving another data dir will not know this ${what} (run this where it serves, or name its data dir with --data-dir)`;
    const keysDir = path.join(dir, 'keys-data');
    const first = await runCli(['--config', file, '--data-dir', keysDir, 'keys', 'create', '--json']);
    expect(first.exitCode).toBe(0);
    expect(String(first.stderr).trim()).toBe(note(keysDir, 'key'));
    expect(JSON.parse(String(first.stdout))).toMatchObject({ key: expect.stringMatching(/^sk-gw-/) });
    const second = await runCli(['--config', file, '--data-dir', keysDir, 'keys', 'create']);
    expect(second.exitCode).toBe(0);
    expect(String(second.stderr)).toBe('');
    const accountsDir = path.join(dir, 'accounts-data');
    const account = await runCli(['--config', file, '--data-dir', accountsDir, 'accounts', 'create', '--email', 'new@example.com']);
    expect(account.exitCode).toBe(0);
    expect(String(account.stderr).trim()).toBe(note(accountsDir, 'account'));
    expect(String(account.stdout)).toMatch(/^Created account new@example\.com /);
  });

  it('a command whose server does not answer (it stopped mid-command) says which server, and that the change may or may not be made; a server.json whose pid came again (another start) is no server', async () => {
    const dir = tempDir();
    const file = writeConfig(dir, { providers: { mock: { plugin: 'mock' } } });
    const dataDir = path.join(dir, 'data');
    const args = ['--config', file, '--data-dir', dataDir];
    expect((await runCli([...args, 'accounts', 'create', '--email', 'gone@example.test'])).exitCode).toBe(0);
    // A port nothing listens on: one taken and let go.
    const { createServer } = await import('node:net');
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: taken } = server.address() as { port: number };
        server.close(() => resolve(taken));
      });
    });
    const url = `http://127.0.0.1:${port}`;
    // The pid of a live process (this test's), with no start beside it (or its own): a server that stopped answering.
    fs.writeFileSync(path.join(dataDir, 'server.json'), JSON.stringify({ pid: process.pid, url, adminToken: 'gwa_x', startedAt: 1 }), { mode: 0o600 });
    const result = await runCli([...args, 'keys', 'create', '--account', 'gone@example.test']);
    expect(result.exitCode).toBe(1);
    const lines = String(result.stderr).split('\n').filter((l) => l.trim());
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toMatch(noStack);
    expect(lines[0]).toMatch(new RegExp(`^gateway: the gateway serving ${dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} at ${url} \\(pid ${process.pid}, server\\.json\\) did not answer \\(ECONNREFUSED\\)`));
    expect(lines[0]).toContain('may or may not');

    // Written by a server whose start was another (the ticks after boot /proc/<pid>/stat says): that server died and
    // its pid came again (pids wrap). It is no server; the command makes the change itself.
    fs.writeFileSync(path.join(dataDir, 'server.json'), JSON.stringify({ pid: process.pid, url, adminToken: 'gwa_x', startedAt: Date.now(), pidStart: '1' }), { mode: 0o600 });
    const reused = await runCli([...args, 'keys', 'create', '--account', 'gone@example.test', '--json']);
    expect(reused.exitCode, String(reused.stderr)).toBe(0);
    expect(JSON.parse(String(reused.stdout))).toMatchObject({ key: expect.stringMatching(/^sk-gw-/) });
  });
});
