import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInPty } from '../helpers/run-in-pty.ts';
import { REPO_ROOT, spawnGateway, tempDir, type SpawnedGateway } from '../helpers/spawn-gateway.ts';
import { expectUserProjectServes, writeUserProject } from '../helpers/user-project.ts';

/** The environment of a user's shell: none of the npm_* variables `npm test` sets for this repo. */
function userEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !/^npm_/i.test(name) && name !== 'INIT_CWD') env[name] = value;
  return env;
}

const npm = (args: string[], cwd: string) => execa('npm', args, { cwd, env: userEnv(), extendEnv: false, timeout: 120_000 });

/**
 * A new user: `npm pack` (dist/ is built by the global setup), then install the tarball into an
 * empty CommonJS project (`npm init -y`) with the registry's packages, and use it there with
 * `npx` as the README says: no TypeScript compiler or loader is installed.
 */
describe('the packed gateway installed into an empty CommonJS project', () => {
  let project: string;
  const npx = ['npx', '--no-install', 'gateway'];

  beforeAll(async () => {
    const dir = tempDir('gw-install-');
    const packed = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], REPO_ROOT);
    const tarball = path.join(dir, (JSON.parse(String(packed.stdout)) as Array<{ filename: string }>)[0].filename);
    project = path.join(dir, 'project');
    fs.mkdirSync(project);
    await npm(['init', '-y'], project);
    await npm(['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball], project);
    writeUserProject(project);
  }, 180_000);

  it('is a CommonJS project with no TypeScript compiler or loader installed', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(project, 'package.json'), 'utf8')) as { type?: string };
    expect(pkg.type ?? 'commonjs').toBe('commonjs');
    for (const name of ['typescript', 'tsx', 'esbuild', '@typescript']) expect(fs.existsSync(path.join(project, 'node_modules', name)), name).toBe(false);
    const shipped = fs.readdirSync(path.join(project, 'node_modules/gateway'), { recursive: true }).map(String);
    expect(shipped.filter((f) => /\.[cm]?tsx?$/.test(f) && !/\.d\.[cm]?ts$/.test(f))).toEqual([]);
  });

  it('npx gateway --help', async () => {
    const result = await execa(npx[0], [...npx.slice(1), '--help'], { cwd: project, env: userEnv(), extendEnv: false, reject: false });
    expect(result.exitCode).toBe(0);
    expect(String(result.stdout)).toMatch(/^Usage: gateway /);
    expect(String(result.stdout)).toContain('serve');
  });

  it('gateway --help from the install takes under 150 ms of CPU (issue 13; npx adds npm\'s own ~0.3 s on top)', async () => {
    // CPU (user + system, the shell's `time` counts the child), the least of five runs: steadier
    // than wall time on a shared machine. Node alone takes ~60 ms of it.
    const runs: number[] = [];
    for (let i = 0; i < 5; i++) {
      const timed = await execa('bash', ['-c', 'TIMEFORMAT="%U %S"; time node_modules/.bin/gateway --help > /dev/null'], { cwd: project, env: userEnv(), extendEnv: false });
      const [user, system] = String(timed.stderr).trim().split(/\s+/).map(Number);
      runs.push((user + system) * 1000);
    }
    expect(Math.min(...runs), runs.join(', ')).toBeLessThan(150);
  });

  it('the plugin kit loads from plain JavaScript: import (ESM) and require (CommonJS)', async () => {
    fs.writeFileSync(path.join(project, 'check.mjs'), "import { definePlugin, GatewayError } from 'gateway/plugin-kit';\nconsole.log(typeof definePlugin, typeof GatewayError);\n");
    fs.writeFileSync(path.join(project, 'check.js'), "const { definePlugin } = require('gateway/plugin-kit');\nconst { defineConfig } = require('gateway');\nconsole.log(typeof definePlugin, typeof defineConfig);\n");
    const esm = await execa(process.execPath, ['check.mjs'], { cwd: project });
    expect(String(esm.stdout)).toBe('function function');
    const cjs = await execa(process.execPath, ['check.js'], { cwd: project });
    expect(String(cjs.stdout)).toBe('function function');
  });

  it('a plain-JS third-party plugin runs the exported provider suite (gateway/plugin-kit/testing)', async () => {
    const dir = path.join(project, 'third-party');
    fs.mkdirSync(dir, { recursive: true });
    // An offline provider in plain ESM JavaScript: Chat Completions answers, streamed or not.
    fs.writeFileSync(
      path.join(dir, 'plugin.mjs'),
      `import { bodyFrom, definePlugin, GatewayError } from 'gateway/plugin-kit';
const answer = (model) => ({ id: 'c1', object: 'chat.completion', created: 1, model, choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } });
const chunk = (model, delta, finish) => 'data: ' + JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta, finish_reason: finish }] }) + '\\n\\n';
export default definePlugin({
  name: 'third-party',
  formats: ['chat'],
  setup: () => ({
    async chat(call) {
      if (call.signal.aborted) throw new GatewayError('client_closed', 'gone');
      if (call.model === 'missing') return { status: 404, headers: { 'content-type': 'application/json' }, body: bodyFrom(JSON.stringify({ error: { message: 'no such model', type: 'invalid_request_error' } })) };
      if (!call.stream) return { status: 200, headers: { 'content-type': 'application/json' }, body: bodyFrom(JSON.stringify(answer(call.model))) };
      const sse = chunk(call.model, { role: 'assistant', content: 'hi' }, null) + chunk(call.model, {}, 'stop') + 'data: [DONE]\\n\\n';
      return { status: 200, headers: { 'content-type': 'text/event-stream' }, body: bodyFrom(sse) };
    },
  }),
});
`,
    );
    fs.writeFileSync(
      path.join(dir, 'conformance.mjs'),
      `import { providerCases } from 'gateway/plugin-kit/testing';
import plugin from './plugin.mjs';
const results = [];
for (const c of providerCases(plugin, { model: 'tiny', failingModel: 'missing' })) {
  try { await c.run(); results.push({ name: c.name, ok: true }); } catch (error) { results.push({ name: c.name, ok: false, error: String(error) }); }
}
console.log(JSON.stringify(results));
`,
    );
    const run = await execa(process.execPath, ['conformance.mjs'], { cwd: dir });
    const results = JSON.parse(String(run.stdout)) as Array<{ name: string; ok: boolean; error?: string }>;
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(results.map((r) => r.name)).toEqual(expect.arrayContaining([expect.stringContaining("answers chat in 'chat', streamed"), expect.stringContaining('one convention')]));
  });

  describe('npx gateway serve', () => {
    let gw: SpawnedGateway;
    beforeAll(async () => {
      gw = await spawnGateway({ command: npx, cwd: project, configFile: path.join(project, 'gateway.config.ts'), dataDir: path.join(project, '.gateway'), env: userEnv() });
    });
    afterAll(async () => {
      // npm exec does not pass a SIGTERM on to the program it runs (it dies alone), so stop the
      // gateway itself, as a process manager would: its pid is in the data dir's lock.
      process.kill(Number(fs.readFileSync(path.join(gw.dataDir, 'gateway.lock'), 'utf8')), 'SIGTERM');
      expect((await gw.process).exitCode).toBe(0);
      expect(fs.existsSync(path.join(gw.dataDir, 'gateway.lock'))).toBe(false);
    });

    it('serves the mock, a TypeScript plugin and a CommonJS plugin', async () => {
      await expectUserProjectServes(gw.url, gw.key!);
    });

    it('npx gateway tui draws on a pseudo-terminal and talks to the server', { timeout: 60_000 }, async () => {
      const tui = runInPty(['--data-dir', gw.dataDir, 'tui', '--refresh', '0'], { cwd: project, command: npx });
      try {
        await tui.waitFor(`server ${gw.url}`);
        await tui.waitFor('(1 active)');
        tui.type('4');
        await tui.waitFor('shout/shout');
        tui.type('q');
        expect((await tui.child).exitCode).toBe(0);
      } finally {
        tui.child.kill();
      }
    });
  });
});
