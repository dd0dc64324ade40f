import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli, tempDir, writeConfig } from '../helpers/spawn-gateway.ts';

/**
 * What a CLI command loads is what its start costs (0.5-0.8 s a command when each one on a data
 * dir loaded the whole server; bench/cli-startup.ts measures it). Checked on what the built CLI
 * loads, not on time: a preload records every module the process reads, ESM through a load hook,
 * CommonJS (pg and undici are read with require on first use) from the require cache at exit.
 */
const dir = tempDir('gw-startup-');
const list = path.join(dir, 'loaded.txt');
const hooks = path.join(dir, 'hooks.mjs');
const preload = path.join(dir, 'record.cjs');
fs.writeFileSync(hooks, "import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) { appendFileSync(process.env.GW_LOADED, url + '\\n'); return next(url, context); }\n");
fs.writeFileSync(
  preload,
  `require('node:module').register(${JSON.stringify(pathToFileURL(hooks).href)});\n` +
    "process.on('exit', () => require('node:fs').appendFileSync(process.env.GW_LOADED, Object.keys(require.cache).map((f) => require('node:url').pathToFileURL(f).href + '\\n').join('')));\n",
);

const DIST = path.join(REPO_ROOT, 'dist');
/** The built chunks holding the server (src/server, the composition root src/app) or a plugin, by the sources the bundler names in them. */
const heavyChunks = () =>
  fs
    .readdirSync(DIST)
    .filter((name) => name.endsWith('.mjs') && /^\/\/#region (src\/server\/|src\/app\/|plugins\/)/m.test(fs.readFileSync(path.join(DIST, name), 'utf8')))
    .map((name) => path.join(DIST, name));
/** The packages only the server, the TUI, PostgreSQL or an upstream call (undici; Smithy's event streams, Bedrock's framing) need. */
const HEAVY_PACKAGES = /\/node_modules\/(h3|srvx|listhen|prom-client|busboy|@opentelemetry\/[^/]+|pg|undici|@smithy\/[^/]+|@aws-crypto\/[^/]+|ink|react)\//;

const configFile = writeConfig(dir, { providers: { mock: { plugin: 'mock' } } });
const dataDir = path.join(dir, 'data');

/** Runs the CLI on the data dir: its output, every file it read, and what it should not have (server or plugin chunks, heavy packages). */
async function heavyLoads(args: string[]): Promise<{ stdout: string; files: string[]; heavy: string[] }> {
  fs.rmSync(list, { force: true });
  const result = await runCli(['--config', configFile, '--data-dir', dataDir, ...args], { cwd: dir, env: { NODE_OPTIONS: `--require=${preload}`, GW_LOADED: list } });
  expect(result.exitCode, String(result.stderr)).toBe(0);
  const files = fs
    .readFileSync(list, 'utf8')
    .split('\n')
    .filter((url) => url.startsWith('file:'))
    .map((url) => fileURLToPath(url));
  expect(files.some((f) => f.startsWith(DIST))).toBe(true);
  const chunks = new Set(heavyChunks());
  return { stdout: String(result.stdout), files, heavy: [...new Set(files.filter((f) => chunks.has(f) || HEAVY_PACKAGES.test(f)).map((f) => path.relative(REPO_ROOT, f)))] };
}

describe('what a CLI command loads', () => {
  beforeAll(async () => {
    // The check can fail: the build names its sources, and the server is one of them.
    expect(heavyChunks().length).toBeGreaterThan(1);
    const created = await runCli(['--config', configFile, '--data-dir', dataDir, 'accounts', 'create', '--email', 'start@example.com', '--credits', '10']);
    expect(created.exitCode, String(created.stderr)).toBe(0);
  });

  it.each(['keys ls', 'accounts ls', 'media ls', 'usage', 'accounts credits start@example.com --add 1'])('`gateway %s` on a data dir loads neither the server, nor a plugin, nor pg, undici or Smithy', async (command) => {
    expect((await heavyLoads(command.split(' '))).heavy).toEqual([]);
  });

  it.each(['serve --help', 'accounts create --help', 'media ls --help'])('`gateway %s` loads the CLI entry and commander only', async (command) => {
    const { stdout, files } = await heavyLoads(command.split(' '));
    expect(stdout).toMatch(/^Usage: gateway /);
    // The entry's static imports (dist/cli.mjs and the chunks it names), no command module.
    const entry = new Set<string>();
    const walk = (file: string) => {
      if (entry.has(file)) return;
      entry.add(file);
      for (const [, spec] of fs.readFileSync(file, 'utf8').matchAll(/^import\s+(?:[^;'"]*?\s+from\s+)?["'](\.[^"']+)["'];?$/gm)) walk(path.resolve(path.dirname(file), spec));
    };
    walk(path.join(DIST, 'cli.mjs'));
    const bin = path.join(REPO_ROOT, 'bin/gateway');
    expect(files.filter((f) => f !== bin && f !== preload && !entry.has(f) && !/\/node_modules\/commander\//.test(f))).toEqual([]);
  });

  it('`keys create --help` lists the endpoint groups without loading the server', async () => {
    const { stdout, heavy } = await heavyLoads(['keys', 'create', '--help']);
    expect(stdout).toContain('chat, responses, messages');
    expect(heavy).toEqual([]);
  });
});
