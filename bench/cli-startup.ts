/**
 * What `gateway --help` costs, run by hand (issue 13 asked for under 150 ms):
 *   node --import tsx bench/cli-startup.ts [--rounds 15]
 * Same run, alternating: a bare `node -e 0` (Node's own start-up, the floor) and
 * `node bin/gateway --help`. CPU (user + system, from bash's `time`) and wall time per run; reports the
 * least and the median of each, and gateway ÷ node. test/e2e/installed-package.test.ts checks
 * what --help loads (the CLI entry and commander); this measures what that costs on this machine.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 15;

/** One run under bash's `time` (it counts the child's user and system time): CPU and wall in ms. */
function runOnce(args: string[]): Promise<{ cpuMs: number; wallMs: number }> {
  const command = `TIMEFORMAT="%U %S %R"; time "${process.execPath}" ${args.map((a) => `'${a}'`).join(' ')} > /dev/null`;
  return new Promise((resolve, reject) => {
    execFile('bash', ['-c', command], (error, _stdout, stderr) => {
      if (error) return reject(error);
      const [user, system, real] = stderr.trim().split(/\s+/).slice(-3).map(Number);
      resolve({ cpuMs: (user + system) * 1000, wallMs: real * 1000 });
    });
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const TARGETS = { 'node -e 0': ['-e', '0'], 'gateway --help': [path.join(ROOT, 'bin/gateway'), '--help'] } as const;
const runs: Record<string, Array<{ cpuMs: number; wallMs: number }>> = { 'node -e 0': [], 'gateway --help': [] };
for (let i = 0; i < rounds; i++) for (const [name, args] of Object.entries(TARGETS)) runs[name].push(await runOnce([...args]));

const line = (name: string) => {
  const cpu = runs[name].map((r) => r.cpuMs);
  const wall = runs[name].map((r) => r.wallMs);
  return `${name.padEnd(16)} CPU min ${Math.min(...cpu).toFixed(0)} ms, median ${median(cpu).toFixed(0)} ms; wall min ${Math.min(...wall).toFixed(0)} ms, median ${median(wall).toFixed(0)} ms`;
};
console.log(`${rounds} rounds, alternating, node ${process.version}`);
for (const name of Object.keys(TARGETS)) console.log(line(name));
const ratio = (pick: (r: { cpuMs: number; wallMs: number }) => number) => median(runs['gateway --help'].map(pick)) / median(runs['node -e 0'].map(pick));
console.log(`gateway --help ÷ node -e 0: CPU ${ratio((r) => r.cpuMs).toFixed(2)}×, wall ${ratio((r) => r.wallMs).toFixed(2)}×`);
