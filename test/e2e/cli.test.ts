import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, spawnGateway, tempDir, writeConfig } from '../helpers/spawn-gateway.ts';

describe('CLI', () => {
  it('--help and --version answer quickly and load neither the server nor Ink', async () => {
    const help = await runCli(['--help'], { env: { NODE_DEBUG: '' } });
    expect(help.exitCode).toBe(0);
    expect(String(help.stdout)).toContain('serve');
    const version = await runCli(['--version']);
    expect(String(version.stdout).trim()).toMatch(/^\d+\.\d+\.\d+$/);
    // --help must not load the server or Ink: follow the static (non-type) imports from the
    // CLI entry; commands import their modules only when they run.
    const seen = new Set<string>();
    const heavy: string[] = [];
    const walk = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const source = fs.readFileSync(file, 'utf8');
      for (const [, spec] of source.matchAll(/^import (?!type )[^;]*? from '([^']+)';$/gm)) {
        if (spec.startsWith('.')) walk(path.resolve(path.dirname(file), spec));
        else if (/^(h3|listhen|ink|react|undici|lowdb|ioredis|@trpc\/)/.test(spec)) heavy.push(`${path.relative(REPO_ROOT, file)} -> ${spec}`);
      }
    };
    walk(path.join(REPO_ROOT, 'src/cli/main.ts'));
    expect(heavy).toEqual([]);
    // What runs is the build: the bundler may put a module the entry needs into a chunk that
    // also imports the server. Follow dist/cli.mjs's static imports too: only commander outside.
    const chunks = new Set<string>();
    const packages = new Set<string>();
    const walkDist = (file: string) => {
      if (chunks.has(file)) return;
      chunks.add(file);
      for (const [, spec] of fs.readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s+(?:[^;'"]*?\s+from\s+)?["']([^"']+)["'];?$/gm)) {
        if (spec.startsWith('.')) walkDist(path.resolve(path.dirname(file), spec));
        else if (!spec.startsWith('node:')) packages.add(spec);
      }
    };
    walkDist(path.join(REPO_ROOT, 'dist/cli.mjs'));
    expect([...packages]).toEqual(['commander']);
  });

  it('loads no TypeScript loader (jiti) unless a config or plugin is a JS/TS file', async () => {
    // A resolve hook that names every module the CLI loads.
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'hooks.mjs'), "export async function resolve(s, c, next) { const r = await next(s, c); process._rawDebug('RESOLVED ' + r.url); return r; }\n");
    fs.writeFileSync(path.join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify(new URL(`file://${path.join(dir, 'hooks.mjs')}`).href)});\n`);
    const loaded = async (configFile: string) => {
      const result = await runCli(['--config', configFile, '--data-dir', path.join(dir, 'data'), 'models', 'ls'], { cwd: dir, env: { NODE_OPTIONS: `--import=${path.join(dir, 'register.mjs')}` } });
      expect(result.exitCode, String(result.stderr)).toBe(0);
      return String(result.stderr).split('\n').filter((line) => line.startsWith('RESOLVED ') && line.includes('/node_modules/jiti/'));
    };
    expect(await loaded(writeConfig(dir, { providers: { mock: { plugin: 'mock' } } }))).toEqual([]);
    fs.writeFileSync(path.join(dir, 'gateway.config.ts'), "export default { providers: { mock: { plugin: 'mock' as const } } };\n");
    expect((await loaded(path.join(dir, 'gateway.config.ts'))).length).toBeGreaterThan(0);
  });

  it('a bad flag exits non-zero with one clear line', async () => {
    const result = await runCli(['serve', '--port', 'abc']);
    expect(result.exitCode).not.toBe(0);
    expect(String(result.stderr)).toContain("--port must be a port number from 0 to 65535, got 'abc'");
    expect(String(result.stderr)).not.toMatch(/\n\s+at /);
    // The README's promise holds for what commander refuses too (before: 'error: …' and a second line).
    const choice = await runCli(['media', 'ls', '--type', 'picture']);
    expect(choice.exitCode).toBe(1);
    expect(String(choice.stderr)).toBe("gateway: option '--type <t>' argument 'picture' is invalid. Allowed choices are image, video, music, threed. (run with --help for usage)");
    const unknown = await runCli(['keys', 'craete']);
    expect(unknown.exitCode).toBe(1);
    expect(String(unknown.stderr)).toBe("gateway: unknown command 'craete' for 'gateway keys' (Did you mean create? its commands: create, ls, revoke, set) (run with --help for usage)");
    // `npm start --port 8788`: npm keeps --port and passes 8788 on, so serve sees an argument (as npm sets the variable).
    const npm = await runCli(['serve', '8788'], { env: { npm_lifecycle_event: 'start' } });
    expect(npm.exitCode).toBe(1);
    expect(String(npm.stderr)).toBe(
      "gateway: too many arguments for 'serve'. Expected 0 arguments but got 1. (run with --help for usage; npm passes a script's flags only after --: npm start -- --port 8788)",
    );
  });

  it("a bad value is the one line the README shows (\"Every CLI error is one line …\")", async () => {
    const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const shown = /Every CLI error is one line on stderr with a non-zero exit \(`([^`]+)`\)/.exec(readme)?.[1].replace(/\s+/g, ' ');
    const dir = tempDir();
    const result = await runCli(['--data-dir', path.join(dir, 'data'), 'accounts', 'create', '--email', 'nope'], { cwd: dir });
    expect(result.exitCode).not.toBe(0);
    expect(String(result.stderr).trim()).toBe(shown);
  });

  it('a bad config names the file and the field, without a stack trace', async () => {
    const dir = tempDir();
    const file = writeConfig(dir, { server: { port: 'eighty' } });
    const result = await runCli(['--config', file, 'models', 'ls'], { cwd: dir });
    expect(result.exitCode).toBe(1);
    // Run from the config's directory: the file is named relative to it.
    expect(String(result.stderr)).toMatch(/^gateway: gateway\.config\.json: server\.port: /);
    expect(String(result.stderr)).not.toMatch(/\n\s+at /);
    const missing = await runCli(['--config', path.join(dir, 'nope.ts'), 'models', 'ls'], { cwd: dir });
    expect(String(missing.stderr)).toMatch(/nope\.ts: file not found/);
  });

  it('a plugin that fails to load is named', async () => {
    const dir = tempDir();
    const file = writeConfig(dir, { providers: { broken: { plugin: './missing-plugin.ts' } } });
    const result = await runCli(['--config', file, '--data-dir', path.join(dir, 'd'), 'models', 'ls'], { cwd: dir });
    expect(result.exitCode).toBe(1);
    expect(String(result.stderr)).toContain("provider 'broken': cannot load plugin './missing-plugin.ts'");
  });

  it('accounts and keys work without a server, keys never show secrets in ls', async () => {
    const dir = tempDir();
    const file = writeConfig(dir, { providers: { mock: { plugin: 'mock' } } });
    const args = ['--config', file, '--data-dir', path.join(dir, 'data')];
    const acct = await runCli([...args, 'accounts', 'create', '--email', 'ann@example.com', '--tier', 'pro', '--credits', '50', '--json']);
    expect(acct.exitCode).toBe(0);
    expect(JSON.parse(String(acct.stdout))).toMatchObject({ email: 'ann@example.com', tier: 'pro', credits: 50 });
    const dup = await runCli([...args, 'accounts', 'create', '--email', 'ann@example.com']);
    expect(dup.exitCode).toBe(1);
    expect(String(dup.stderr)).toContain('already exists');
    const key = await runCli([...args, 'keys', 'create', '--account', 'ann@example.com', '--name', 'ci', '--rpm', '30', '--json']);
    const created = JSON.parse(String(key.stdout)) as { id: string; key: string; account: string; name: string };
    expect(created).toMatchObject({ account: 'ann@example.com', name: 'ci' });
    expect(created.key).toMatch(/^sk-gw-/);
    const ls = await runCli([...args, 'keys', 'ls']);
    expect(String(ls.stdout)).toContain(created.id);
    expect(String(ls.stdout)).not.toContain(created.key);
    const lsJson = JSON.parse(String((await runCli([...args, 'keys', 'ls', '--json'])).stdout)) as Array<{ rpm: number }>;
    expect(lsJson[0].rpm).toBe(30);
    // One account's keys (`--account`); an unknown email is refused, not an empty list.
    await runCli([...args, 'accounts', 'create', '--email', 'bob@example.com']);
    const bobKey = JSON.parse(String((await runCli([...args, 'keys', 'create', '--account', 'bob@example.com', '--name', 'bobs', '--json'])).stdout)) as { id: string };
    const annOnly = JSON.parse(String((await runCli([...args, 'keys', 'ls', '--account', 'ann@example.com', '--json'])).stdout)) as Array<{ id: string; account: string }>;
    expect(annOnly.map((k) => [k.id, k.account])).toEqual([[created.id, 'ann@example.com']]);
    const bobTable = String((await runCli([...args, 'keys', 'ls', '--account', 'bob@example.com'])).stdout);
    expect(bobTable).toContain(bobKey.id);
    expect(bobTable).not.toContain(created.id);
    const nobody = await runCli([...args, 'keys', 'ls', '--account', 'nobody@example.com']);
    expect(nobody.exitCode).toBe(1);
    expect(String(nobody.stderr)).toContain('No account with email nobody@example.com.');
    const db = fs.readFileSync(path.join(dir, 'data', 'db.json'), 'utf8');
    expect(db).not.toContain(created.key);
    const accounts = await runCli([...args, 'accounts', 'ls']);
    expect(String(accounts.stdout)).toMatch(/ann@example\.com\s+pro\s+50/);
    const models = await runCli([...args, 'models', 'ls', '--json']);
    expect((JSON.parse(String(models.stdout)) as Array<{ id: string }>).map((m) => m.id)).toContain('mock/echo');
  });

  it('a key created while the server runs is usable at once and survives a restart', async () => {
    const gw = await spawnGateway();
    const args = ['--config', gw.configFile, '--data-dir', gw.dataDir];
    const results = await Promise.all([1, 2, 3, 4].map((i) => runCli([...args, 'keys', 'create', '--name', `k${i}`, '--json'])));
    const keys = results.map((r) => JSON.parse(String(r.stdout)) as { key: string });
    for (const k of keys) {
      const res = await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${k.key}` } });
      expect(res.status).toBe(200);
    }
    expect(await gw.stop()).toBe(0);
    const listed = JSON.parse(String((await runCli([...args, 'keys', 'ls', '--json'])).stdout)) as unknown[];
    expect(listed).toHaveLength(5);
    const again = await spawnGateway({ configFile: gw.configFile, dataDir: gw.dataDir });
    try {
      expect(again.key).toBeUndefined();
      const res = await fetch(`${again.url}/v1/models`, { headers: { authorization: `Bearer ${keys[3].key}` } });
      expect(res.status).toBe(200);
    } finally {
      await again.stop();
    }
  });

  it('starts once a CLI command holding the data dir for a moment lets go (gateway usage from a cron job), instead of refusing at once', async () => {
    const dir = tempDir();
    const configFile = writeConfig(dir, { providers: { mock: { plugin: 'mock' } } });
    const dataDir = path.join(dir, 'data');
    const { acquireLock } = await import('../../src/store/index.ts');
    const held = await acquireLock(dataDir, 0, 'gateway usage');
    const release = setTimeout(() => held.release(), 700);
    try {
      const gw = await spawnGateway({ configFile, dataDir });
      await gw.stop();
    } finally {
      clearTimeout(release);
      held.release();
    }
  });

  it('refuses a second server on the same data dir', async () => {
    const gw = await spawnGateway();
    try {
      const second = await runCli(['--config', gw.configFile, '--data-dir', gw.dataDir, 'serve', '--port', '0']);
      expect(second.exitCode).toBe(1);
      expect(String(second.stderr).trim()).toMatch(new RegExp(`^gateway: cannot serve: the data dir \\S+ is in use by process \\d+, a gateway already serving at ${gw.url}\\. Stop it, or give this one its own --data-dir$`));
    } finally {
      await gw.stop();
    }
  });
});
