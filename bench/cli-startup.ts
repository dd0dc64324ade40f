/**
 * What CLI commands cost to start, run by hand (issue 13 asked for `--help` under 150 ms):
 *   node --import tsx bench/cli-startup.ts [--rounds 15] [--against <other checkout>/bin/gateway] [--only <name>,…]
 * Alternating, round after round: a bare `node -e 0` (Node's own start-up, the floor), then each
 * command: `--help`, `keys create --help`, the data-dir commands (`keys ls`, `media ls`, `usage`,
 * `accounts ls`) on a temp project (a JSON config with the mock provider, one account and key),
 * and `serve` up to its ready line (then stopped). CPU (user + system; from bash's `time`, for
 * serve from /proc at the ready line) and wall time per run; reports the least and the median of
 * each, and the median ÷ node's. With --against, every command also runs under that build, in the
 * same rounds, and the ratio other ÷ this is printed (the before/after of a change: a checkout or
 * `git archive` of the older commit, built). test/e2e/cli-startup.test.ts checks what the commands
 * load; this measures what that costs on this machine.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const rounds = Number(arg('--rounds')) || 15;
const against = arg('--against');
const only = arg('--only')?.split(',');

type Run = { cpuMs: number; wallMs: number };

/** One run under bash's `time` (it counts the child's user and system time): CPU and wall in ms. */
function runOnce(args: string[], cwd: string): Promise<Run> {
  const command = `TIMEFORMAT="%U %S %R"; time "${process.execPath}" ${args.map((a) => `'${a}'`).join(' ')} > /dev/null`;
  return new Promise((resolve, reject) => {
    execFile('bash', ['-c', command], { cwd }, (error, _stdout, stderr) => {
      if (error) return reject(new Error(`${args.join(' ')}: ${stderr}`));
      const [user, system, real] = stderr.trim().split(/\s+/).slice(-3).map(Number);
      resolve({ cpuMs: (user + system) * 1000, wallMs: real * 1000 });
    });
  });
}

/** `serve --port 0` until its ready line: wall to that line, CPU the process had used by then (/proc, Linux). */
function serveOnce(bin: string, cwd: string, dataDir: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [bin, '--config', 'gateway.config.json', '--data-dir', dataDir, 'serve', '--port', '0'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk;
      if (!out.includes('gateway listening on')) return;
      const wallMs = performance.now() - started;
      const fields = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime, in clock ticks (100 a second)
      child.kill('SIGTERM');
      child.once('exit', () => resolve({ cpuMs: ticks * 10, wallMs }));
    });
    child.once('exit', (code) => (out.includes('gateway listening on') ? undefined : reject(new Error(`serve exited ${code}: ${out}`))));
  });
}

// A project like a user's: a config with the mock provider, one account and one key in its data dir.
const project = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-cli-bench-'));
process.on('exit', () => fs.rmSync(project, { recursive: true, force: true }));
fs.writeFileSync(path.join(project, 'gateway.config.json'), JSON.stringify({ providers: { mock: { plugin: 'mock' } } }));
const builds: Record<string, string> = { this: path.join(ROOT, 'bin/gateway'), ...(against ? { other: path.resolve(against) } : {}) };
const dataDirOf = (build: string) => path.join(project, `data-${build}`);
for (const [build, bin] of Object.entries(builds)) {
  const base = [bin, '--config', 'gateway.config.json', '--data-dir', dataDirOf(build)];
  await runOnce([...base, 'accounts', 'create', '--email', 'bench@example.com', '--credits', '100'], project);
  await runOnce([...base, 'keys', 'create', '--account', 'bench@example.com', '--name', 'bench'], project);
}

const COMMANDS: Record<string, string[] | 'serve'> = {
  '--help': ['--help'],
  'keys create --help': ['keys', 'create', '--help'],
  'keys ls': ['keys', 'ls'],
  'media ls': ['media', 'ls'],
  usage: ['usage'],
  'accounts ls': ['accounts', 'ls'],
  serve: 'serve',
};
const names = Object.keys(COMMANDS).filter((name) => !only || only.includes(name));
const runs = new Map<string, Run[]>([['node -e 0', []]]);
for (let i = 0; i < rounds; i++) {
  runs.get('node -e 0')!.push(await runOnce(['-e', '0'], project));
  for (const name of names) {
    for (const [build, bin] of Object.entries(builds)) {
      const command = COMMANDS[name];
      const key = `${name} [${build}]`;
      if (!runs.has(key)) runs.set(key, []);
      const flags = ['--config', 'gateway.config.json', '--data-dir', dataDirOf(build)];
      runs.get(key)!.push(command === 'serve' ? await serveOnce(bin, project, dataDirOf(build)) : await runOnce(name === '--help' ? [bin, ...command] : [bin, ...flags, ...command], project));
    }
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const stat = (key: string, pick: (r: Run) => number) => ({ min: Math.min(...runs.get(key)!.map(pick)), median: median(runs.get(key)!.map(pick)) });
const cpu = (r: Run) => r.cpuMs;
const wall = (r: Run) => r.wallMs;
console.log(`${rounds} rounds, alternating, node ${process.version}, load average ${os.loadavg()[0].toFixed(1)} at the end`);
const floor = stat('node -e 0', cpu).median;
for (const key of runs.keys()) {
  const c = stat(key, cpu);
  const w = stat(key, wall);
  const overNode = key === 'node -e 0' ? '' : `; CPU ÷ node ${(c.median / floor).toFixed(2)}×`;
  console.log(`${key.padEnd(30)} CPU min ${c.min.toFixed(0).padStart(4)} ms, median ${c.median.toFixed(0).padStart(4)} ms; wall min ${w.min.toFixed(0).padStart(4)} ms, median ${w.median.toFixed(0).padStart(4)} ms${overNode}`);
}
if (against) {
  console.log('other ÷ this (medians):');
  for (const name of names) {
    const ratio = (pick: (r: Run) => number) => (stat(`${name} [other]`, pick).median / stat(`${name} [this]`, pick).median).toFixed(2);
    console.log(`${name.padEnd(30)} CPU ${ratio(cpu)}×, wall ${ratio(wall)}×`);
  }
}
