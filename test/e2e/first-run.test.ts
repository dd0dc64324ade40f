import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import net from 'node:net';
import { BIN, runCli, spawnGateway, tempDir, writeConfig } from '../helpers/spawn-gateway.ts';

/** `gateway serve --port 0` in `cwd` until it prints its ready line (or exits). */
async function serveIn(cwd: string, args: string[] = [], env: Record<string, string> = {}) {
  const child = execa(process.execPath, [BIN, ...args, 'serve', '--port', '0'], { cwd, env, reject: false, buffer: false });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line.\nstdout:\n${out}\nstderr:\n${err}`)), 20_000);
    child.stdout?.on('data', () => {
      const match = /gateway listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}.\nstdout:\n${out}\nstderr:\n${err}`));
    });
  });
  return {
    url,
    stdout: () => out,
    stderr: () => err,
    key: () => /^\s+(sk-gw-\S+)\s*$/m.exec(out)?.[1],
    stop: async () => {
      child.kill('SIGTERM');
      return (await child).exitCode;
    },
  };
}

/** An empty project directory (a package.json stops the config search there). */
function emptyProject(): string {
  const dir = tempDir('gw-first-run-');
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "my-app", "private": true }\n');
  return dir;
}

describe('first run', () => {
  it('with no config file, serve runs the offline mock provider and says so', async () => {
    const dir = emptyProject();
    const gw = await serveIn(dir);
    try {
      expect(gw.stdout()).toMatch(/No config file found from .*: serving the built-in offline mock provider/);
      expect(gw.stdout()).toContain('gateway init');
      expect(gw.stdout()).not.toMatch(/^config: /m);
      expect(gw.stdout()).toMatch(/^store: files in \S+ \(this process only\)$/m);
      expect(gw.stdout()).toMatch(/^limits: in memory \(this process only\)$/m);
      // Which providers serve, so a provider left out (an API key not in the environment) is seen at start, not from a 404.
      expect(gw.stdout()).toMatch(/^providers: mock \(9 models\)$/m);
      const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key()!, maxRetries: 0 });
      const done = await client.chat.completions.create({ model: 'mock/echo', messages: [{ role: 'user', content: 'hello, first run' }] });
      expect(done.choices[0].message.content).toBe('hello, first run');
      expect(fs.existsSync(path.join(dir, '.gateway', 'db.json'))).toBe(true);
      // An app's own model id, as a newcomer's first call sends it: the 404 names the providers there are (before: only
      // "does not exist or is not served by any configured provider", nothing saying only mock was on).
      const theirs = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
      expect(theirs).toBeInstanceOf(OpenAI.NotFoundError);
      expect((theirs as Error).message).toContain("The model 'gpt-4o-mini' does not exist or is not served by any configured provider: no provider lists it (configured: mock).");
    } finally {
      expect(await gw.stop()).toBe(0);
    }
  });

  it('a config with no providers warns, and serves', async () => {
    const dir = emptyProject();
    writeConfig(dir, { server: { port: 8787 } });
    const gw = await serveIn(dir);
    try {
      expect(gw.stderr()).toContain('gateway.config.json configures no providers: every model request will answer 404 model_not_found');
    } finally {
      await gw.stop();
    }
  });

  it('typos in the config stop serve with the file, the key and a suggestion', async () => {
    const cases: Array<[string, string]> = [
      ['export default { provders: { mock: { plugin: "mock" } } };\n', 'gateway: gateway.config.ts: unknown key "provders" — did you mean "providers"?'],
      ['export default { server: { prot: 8080 } };\n', 'gateway: gateway.config.ts: unknown key "server.prot" — did you mean "server.port"?'],
      ['export default { providers: { mock: { plugin: "mock", modles: ["echo"] } } };\n', 'gateway: gateway.config.ts: unknown key "providers.mock.modles" — did you mean "providers.mock.models"?'],
      ['export default {\n  server: { port: 8787 }\n  providers: {},\n};\n', 'gateway: gateway.config.ts:3:2: syntax error: Unexpected token, expected ","'],
    ];
    for (const [source, expected] of cases) {
      const dir = emptyProject();
      fs.writeFileSync(path.join(dir, 'gateway.config.ts'), source);
      const result = await runCli(['serve', '--port', '0'], { cwd: dir });
      expect(result.exitCode).toBe(1);
      expect(String(result.stderr).trim()).toBe(expected);
      expect(fs.existsSync(path.join(dir, '.gateway', 'db.json'))).toBe(false);
    }
  });

  it('gateway init writes a config that loads, refuses to overwrite it, and --force replaces it', async () => {
    const dir = emptyProject();
    const init = await runCli(['init'], { cwd: dir, env: { npm_command: '' } });
    expect(init.exitCode).toBe(0);
    expect(String(init.stdout)).toContain('Wrote gateway.config.ts');
    expect(String(init.stdout)).toContain('\nNext: gateway serve ');
    const file = path.join(dir, 'gateway.config.ts');
    const written = fs.readFileSync(file, 'utf8');
    expect(written).toMatch(/^\s*\/\/ /m); // commented
    expect(written).toContain("import { defineConfig } from 'gateway';");

    const again = await runCli(['init'], { cwd: dir });
    expect(again.exitCode).toBe(1);
    expect(String(again.stderr).trim()).toBe('gateway: a config already exists: gateway.config.ts (use --force to write gateway.config.ts anyway)');
    fs.writeFileSync(file, '// mine\nexport default {};\n');
    // Started by npx (npm sets npm_command=exec), as README's 'Installing the package' runs it: `gateway` is not on
    // the PATH there, so the next command to type is `npx gateway serve` (found by a newcomer; before: `gateway serve`).
    const forced = await runCli(['init', '--force'], { cwd: dir, env: { npm_command: 'exec' } });
    expect(forced.exitCode).toBe(0);
    expect(String(forced.stdout)).toContain('\nNext: npx gateway serve ');
    expect(fs.readFileSync(file, 'utf8')).toBe(written);

    // It loads from a directory that does not have the gateway installed: mock alone, then with the env keys.
    const models = await runCli(['models', 'ls', '--json'], { cwd: dir, env: { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' } });
    expect(models.exitCode).toBe(0);
    expect((JSON.parse(String(models.stdout)) as Array<{ id: string }>).map((m) => m.id)).toEqual(['mock/echo', 'mock/image', 'mock/tts', 'mock/whisper', 'mock/video', 'mock/music', 'mock/3d', 'mock/embed', 'mock/omni-moderation-latest']);
    const withKeys = await runCli(['models', 'ls', '--json'], { cwd: dir, env: { OPENAI_API_KEY: 'sk-test', ANTHROPIC_API_KEY: 'sk-ant-test' } });
    const ids = (JSON.parse(String(withKeys.stdout)) as Array<{ id: string }>).map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining(['mock/echo', 'openai/gpt-4o-mini', 'openai/gpt-4.1', 'anthropic/claude-sonnet-4-5']));

    // And serves, from a folder below the project too, naming the config it found there.
    const below = path.join(dir, 'src', 'deeper');
    fs.mkdirSync(below, { recursive: true });
    // Its openai pointed at an OpenAI-compatible server (OPENAI_BASE_URL, as the template says; never called here).
    const gw = await serveIn(below, [], { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', ANTHROPIC_API_KEY: '' });
    try {
      expect(gw.stdout()).not.toContain('No config file found');
      expect(gw.stdout()).toContain(`\nconfig: ${fs.realpathSync(file)}\nstore: files in ${fs.realpathSync(dir)}${path.sep}.gateway (this process only)\n`);
      // The template's openai is on (OPENAI_API_KEY set), its anthropic off (ANTHROPIC_API_KEY empty): said at start.
      expect(gw.stdout()).toMatch(/^providers: mock \(9 models\), openai \(5 models\)$/m);
      const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key()!, maxRetries: 0 });
      expect((await client.models.list()).data.map((m) => m.id)).toContain('mock/echo');
      // That server's own model, asked as openai/<id>, is not in the template's list: the 404 says which list lacks it
      // (before: only "does not exist or is not served by any configured provider"), and the template says how to add it.
      const missing = await client.chat.completions.create({ model: 'openai/llama3.2', messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
      expect((missing as Error).message).toContain("provider 'openai' does not list 'llama3.2' among its models");
      expect(written).toContain("put your upstream's own there (e.g. 'llama3.2'), or '*' for any id");
    } finally {
      await gw.stop();
    }
  });

  it('gateway init refuses when another config file is there, and writes to --config', async () => {
    const dir = emptyProject();
    writeConfig(dir, { providers: { mock: { plugin: 'mock' } } });
    const refused = await runCli(['init'], { cwd: dir });
    expect(refused.exitCode).toBe(1);
    expect(String(refused.stderr)).toContain('a config already exists: gateway.config.json');
    const custom = await runCli(['--config', 'config/gw.config.ts', 'init'], { cwd: dir });
    expect(custom.exitCode).toBe(0);
    expect(fs.existsSync(path.join(dir, 'config', 'gw.config.ts'))).toBe(true);
    const models = await runCli(['--config', 'config/gw.config.ts', 'models', 'ls'], { cwd: dir });
    expect(models.exitCode).toBe(0);
  });

  // Before: "(Unable to find a random port …): is another server using it? Pick another with --port", the wrong advice.
  it('a --host that is no address of this machine says so and names --host, not another server on the port', async () => {
    const dir = tempDir();
    const file = writeConfig(dir, { providers: { mock: { plugin: 'mock' } } });
    const args = ['--config', file, '--data-dir', path.join(dir, 'data')];
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): never an address of a test machine.
    const failed = await runCli([...args, 'serve', '--host', '192.0.2.1', '--port', '0']);
    expect(failed.exitCode).toBe(1);
    expect(String(failed.stderr).trim()).toBe(
      'gateway: cannot listen on 192.0.2.1:0: 192.0.2.1 is not an address of this machine (EADDRNOTAVAIL). Pick another with --host (127.0.0.1, or 0.0.0.0 for every interface).',
    );
    expect(String(failed.stdout)).not.toContain('sk-gw-');
  });

  // Before: "gateway listening on http://0.0.0.0:…  (OpenAI base URL: http://0.0.0.0:…/v1 …)", an address clients on
  // Windows and macOS cannot connect to. The ready line keeps its format and shows the loopback address.
  it('serve --host 0.0.0.0 prints a base URL a client can connect to, and says every interface listens', async () => {
    const gw = await spawnGateway({ args: ['--host', '0.0.0.0'] });
    try {
      expect(gw.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(gw.stdout()).toContain(`gateway listening on ${gw.url}  (OpenAI base URL: ${gw.url}/v1, Anthropic and Google base URL: ${gw.url})`);
      expect(gw.stdout()).not.toContain('http://0.0.0.0');
      expect(gw.stdout()).toMatch(/^host 0\.0\.0\.0: every interface of this machine listens; other machines use one of its addresses/m);
      expect((await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${gw.key}` } })).status).toBe(200);
    } finally {
      expect(await gw.stop()).toBe(0);
    }
  });

  // os.networkInterfaces() throws on some systems (Android 10+ under Termux: "uv_interface_addresses returned Unknown
  // system error 13"). The addresses line is a hint: a machine that cannot list its interfaces still serves on 0.0.0.0.
  it('serve --host 0.0.0.0 starts where the machine cannot list its network interfaces', async () => {
    const preload = path.join(tempDir(), 'no-interfaces.mjs');
    fs.writeFileSync(
      preload,
      "import os from 'node:os';\nimport { syncBuiltinESMExports } from 'node:module';\nos.networkInterfaces = () => { throw new Error('uv_interface_addresses returned Unknown system error 13'); };\nsyncBuiltinESMExports();\n",
    );
    const gw = await spawnGateway({ args: ['--host', '0.0.0.0'], env: { NODE_OPTIONS: `--import=${pathToFileURL(preload).href}` } });
    try {
      expect(gw.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(gw.stdout()).toMatch(/^host 0\.0\.0\.0: every interface of this machine listens; other machines use one of its addresses$/m);
      expect((await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${gw.key}` } })).status).toBe(200);
    } finally {
      expect(await gw.stop()).toBe(0);
    }
  });

  it('a start that cannot bind its port creates no account; the next start prints the first key', async () => {
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as net.AddressInfo).port;
    const dir = tempDir();
    const file = writeConfig(dir, { providers: { mock: { plugin: 'mock' } } });
    const dataDir = path.join(dir, 'data');
    const args = ['--config', file, '--data-dir', dataDir];
    try {
      const failed = await runCli([...args, 'serve', '--port', String(port)]);
      expect(failed.exitCode).toBe(1);
      expect(String(failed.stderr).trim()).toMatch(new RegExp(`^gateway: cannot listen on 127\\.0\\.0\\.1:${port} \\(.*\\): is another server using it\\? Pick another with --port`));
      expect(String(failed.stdout)).not.toContain('sk-gw-');
    } finally {
      busy.close();
    }
    expect(JSON.parse(String((await runCli([...args, 'accounts', 'ls', '--json'])).stdout))).toEqual([]);

    const gw = await spawnGateway({ configFile: file, dataDir });
    try {
      expect(gw.key).toMatch(/^sk-gw-/);
      expect((await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${gw.key}` } })).status).toBe(200);
      const [first] = JSON.parse(String((await runCli([...args, 'keys', 'ls', '--json'])).stdout)) as Array<{ id: string }>;
      expect((await runCli([...args, 'keys', 'revoke', first.id])).exitCode).toBe(0);
    } finally {
      expect(await gw.stop()).toBe(0);
    }

    // Every key revoked: the next start says how to make one.
    const again = await spawnGateway({ configFile: file, dataDir });
    try {
      expect(again.key).toBeUndefined();
      expect(again.stdout()).toContain('No usable API key in this data dir (none, or all revoked or expired): create one with `gateway keys create`');
    } finally {
      await again.stop();
    }
  });
});
