/**
 * The third-party clients of test/clients (issue 24), installed on first use by
 * scripts/install-test-clients.mjs (idempotent; .ci/run calls it too), and an environment that
 * keeps them off the internet: no telemetry, updates, error reports or non-essential traffic,
 * a fresh HOME per run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa, execaNode } from 'execa';
import { REPO_ROOT, tempDir } from './spawn-gateway.ts';

export const CLIENTS_DIR = path.join(REPO_ROOT, 'test/clients');
const modules = path.join(CLIENTS_DIR, 'node_modules');

/** Installs test/clients when its lock file changed since the last install (minutes the first time). */
export async function ensureTestClients(): Promise<void> {
  await execaNode(path.join(REPO_ROOT, 'scripts/install-test-clients.mjs'), [], { stdio: 'inherit' });
}

/** Claude Code's native binary, from its platform package (what its postinstall would copy over bin/claude.exe). */
export function claudeBin(): string {
  const bin = path.join(modules, `@anthropic-ai/claude-code-${process.platform}-${process.arch}`, 'claude');
  if (!fs.existsSync(bin)) throw new Error(`Claude Code has no native binary for ${process.platform}-${process.arch} at ${bin}`);
  return bin;
}

/**
 * opencode's native binary, from its platform package (what its postinstall would copy over
 * bin/opencode.exe): the baseline build on an x64 processor without AVX2, as the postinstall picks.
 */
export function opencodeBin(): string {
  const avx2 = process.arch !== 'x64' || /(^|\s)avx2(\s|$)/i.test(fs.existsSync('/proc/cpuinfo') ? fs.readFileSync('/proc/cpuinfo', 'utf8') : '');
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  const bin = path.join(modules, `opencode-${os}-${process.arch}${avx2 ? '' : '-baseline'}`, 'bin', process.platform === 'win32' ? 'opencode.exe' : 'opencode');
  if (!fs.existsSync(bin)) throw new Error(`opencode has no native binary for ${process.platform}-${process.arch} at ${bin}`);
  return bin;
}

/** Qwen Code's entry script (a Node bundle). */
export const QWEN_JS = path.join(modules, '@qwen-code/qwen-code/cli-entry.js');

/** Codex's launcher script (it picks the platform package's binary). */
export const CODEX_JS = path.join(modules, '@openai/codex/bin/codex.js');

/** An import of a package installed in test/clients (the AI SDK, LangChain). */
export function clientModule(name: string): Promise<any> {
  const pkg = JSON.parse(fs.readFileSync(path.join(modules, name, 'package.json'), 'utf8')) as { exports?: any; module?: string; main?: string };
  // Node's own conditions: `node` before `import` (@google/genai's default entry is its cross-platform one, which has no Files API).
  const root = pkg.exports?.['.']?.node ?? pkg.exports?.['.'];
  const entry = (typeof root === 'string' ? root : (root?.import?.default ?? root?.import ?? root?.default)) ?? pkg.module ?? pkg.main ?? 'index.js';
  return import(pathToFileURL(path.join(modules, name, typeof entry === 'string' ? entry : entry.default)).href);
}

/** Environment for a client process: only what it needs, a private HOME, every phone-home switched off. */
export function clientEnv(extra: Record<string, string>): Record<string, string> {
  const home = tempDir('gw-client-home-');
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    TMPDIR: process.env.TMPDIR ?? '/tmp',
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
    CI: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    DISABLE_BUG_COMMAND: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY: '1',
    DISABLE_NON_ESSENTIAL_MODEL_CALLS: '1',
    CODEX_DISABLE_UPDATE_CHECK: '1',
    OTEL_SDK_DISABLED: 'true',
    ...extra,
  };
}

/**
 * The real Codex (`codex exec`, its provider the gateway's Responses face, no sandbox setup)
 * asked to say hi on `model`; its run and a report for failed expectations (`calls`: the
 * upstream's requests so far).
 */
export async function codexSaysHi(gateway: { url: string; key?: string }, model: string, calls?: { requests: unknown[] }) {
  const codexHome = path.join(tempDir('gw-codex-home-'), '.codex');
  fs.mkdirSync(codexHome, { recursive: true });
  const config = [`model = "${model}"`, 'model_provider = "gateway"', '[model_providers.gateway]', 'name = "gateway"', `base_url = "${gateway.url}/v1"`, 'env_key = "GATEWAY_API_KEY"', 'wire_api = "responses"', ''];
  fs.writeFileSync(path.join(codexHome, 'config.toml'), config.join('\n'));
  const started = Date.now();
  const run = await execa(process.execPath, [CODEX_JS, 'exec', '--skip-git-repo-check', '--color', 'never', 'Say hi'], {
    cwd: tempDir('gw-codex-'),
    env: clientEnv({ CODEX_HOME: codexHome, GATEWAY_API_KEY: gateway.key! }),
    extendEnv: false,
    reject: false,
    timeout: 120_000,
    stdin: 'ignore',
  });
  const report = `exit ${run.exitCode} after ${Date.now() - started} ms\nstdout: ${run.stdout.slice(-2000)}\nstderr: ${run.stderr.slice(-3000)}\nrequests: ${calls?.requests.length}`;
  return { run, report };
}
