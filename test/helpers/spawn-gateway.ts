import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
export const BIN = path.join(REPO_ROOT, 'bin/gateway');

/** A gateway started through the real CLI, as a user would. */
export interface SpawnedGateway {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  /** The first API key printed on a fresh data dir (undefined when the dir was not empty). */
  key?: string;
  dataDir: string;
  configFile: string;
  process: ResultPromise;
  stdout: () => string;
  stderr: () => string;
  /** SIGTERM and wait for exit; returns the exit code. */
  stop(): Promise<number | undefined>;
  /** SIGKILL (crash) and wait. */
  kill(): Promise<void>;
}

/** A fresh temporary directory, removed at process exit. */
export function tempDir(prefix = 'gw-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes a config module (JSON is valid TS) and returns its path. */
export function writeConfig(dir: string, config: Record<string, unknown>, name = 'gateway.config.json'): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

/** Runs `bin/gateway` with arguments and returns the result (never rejects on a non-zero exit). */
export function runCli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  return execa(process.execPath, [BIN, ...args], { cwd: options.cwd ?? REPO_ROOT, env: options.env, reject: false, timeout: 60_000 });
}

/**
 * Starts `bin/gateway serve --port 0` and waits for the "listening" line.
 * `config` is written to a fresh temp dir unless `configFile` is given.
 */
export async function spawnGateway(options: {
  config?: Record<string, unknown>;
  configFile?: string;
  dataDir?: string;
  env?: Record<string, string>;
  /** Only `env` reaches the gateway: none of the variables of the machine running the tests. */
  onlyEnv?: boolean;
  args?: string[];
  timeoutMs?: number;
  /** The Node binary to run the gateway with (default: the one running the tests). */
  nodeBinary?: string;
  /** The command that runs the gateway, e.g. `['npx', 'gateway']` in an installed project (default: `bin/gateway` under `nodeBinary`). */
  command?: string[];
  /** Working directory (default: the repo root). */
  cwd?: string;
} = {}): Promise<SpawnedGateway> {
  const dir = tempDir();
  const dataDir = options.dataDir ?? path.join(dir, 'data');
  const configFile = options.configFile ?? writeConfig(dir, options.config ?? { providers: { mock: { plugin: 'mock' } } });
  const [file, ...prefix] = options.command ?? [options.nodeBinary ?? process.execPath, BIN];
  const child = execa(file, [...prefix, '--config', configFile, '--data-dir', dataDir, 'serve', '--port', '0', ...(options.args ?? [])], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...options.env },
    extendEnv: !options.onlyEnv,
    reject: false,
    buffer: false,
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start in time.\nstdout:\n${out}\nstderr:\n${err}`)), options.timeoutMs ?? 20_000);
    const check = () => {
      const match = /gateway listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code} before listening.\nstdout:\n${out}\nstderr:\n${err}`));
    });
  });
  const key = /^\s+(sk-gw-\S+)\s*$/m.exec(out)?.[1];
  let exited: Promise<number | undefined> | undefined;
  const exit = () => (exited ??= new Promise<number | undefined>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code ?? undefined));
  }));
  return {
    url,
    key,
    dataDir,
    configFile,
    process: child,
    stdout: () => out,
    stderr: () => err,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exit();
    },
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exit();
    },
  };
}
