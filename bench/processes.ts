/**
 * Child processes of the benchmark: start one and wait for its ready line, read its CPU time
 * and peak RSS from /proc, and make sure every one of them is gone when the bench ends.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

export interface Child {
  name: string;
  proc: ChildProcess;
  pid: number;
  /** Every stdout line so far. */
  lines: string[];
  /** The last stderr output (for error messages). */
  stderrTail: () => string;
  /** Resolves with the exit code when the process ends. */
  exited: Promise<number | null>;
}

const live = new Set<ChildProcess>();

/**
 * Starts `node <args>` and waits until a stdout line matches `ready`. `launcher` runs node under
 * another program (e.g. `['valgrind', '--tool=callgrind']`: `<launcher…> node <args>`).
 */
export async function startChild(
  name: string,
  args: string[],
  ready: RegExp,
  options: { cwd: string; timeoutMs?: number; env?: NodeJS.ProcessEnv; launcher?: string[] },
): Promise<{ child: Child; match: RegExpMatchArray }> {
  const [command, ...prefix] = options.launcher?.length ? [...options.launcher, process.execPath] : [process.execPath];
  const proc = spawn(command, [...prefix, ...args], { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(proc);
  const lines: string[] = [];
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  void exited.then(() => live.delete(proc));
  proc.stderr!.setEncoding('utf8').on('data', (part: string) => (stderr = (stderr + part).slice(-4000)));
  const child: Child = { name, proc, pid: proc.pid ?? -1, lines, stderrTail: () => stderr.trim().split('\n').slice(-8).join('\n'), exited };

  const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => fail(`did not print its ready line within ${options.timeoutMs ?? 30_000} ms`), options.timeoutMs ?? 30_000);
    const fail = (why: string) => {
      clearTimeout(timer);
      reject(new Error(`${name} ${why}${child.stderrTail() ? `\n--- ${name} stderr ---\n${child.stderrTail()}` : ''}`));
    };
    proc.stdout!.setEncoding('utf8').on('data', (part: string) => {
      buffered += part;
      const complete = buffered.split('\n');
      buffered = complete.pop() ?? '';
      for (const line of complete) {
        lines.push(line);
        const m = line.match(ready);
        if (m) {
          clearTimeout(timer);
          resolve(m);
        }
      }
    });
    proc.once('error', (error) => fail(`failed to start: ${error.message}`));
    void exited.then((code) => fail(`exited with code ${code} before it was ready`));
  });
  return { child, match };
}

/** Stops a child: SIGTERM (or `signal`), then SIGKILL if it has not exited after `graceMs`. */
export async function stopChild(child: Child, signal: NodeJS.Signals = 'SIGTERM', graceMs = 3_000): Promise<void> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return;
  child.proc.kill(signal);
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), graceMs);
  await child.exited;
  clearTimeout(timer);
}

/**
 * CPU sets for `--pin`: the measured targets on the last CPU, everything else on the others,
 * so a target is never preempted by the load generator or the fake upstream. Undefined on a
 * one-CPU machine or where taskset is missing.
 */
export function pinSets(): { target: string; rest: string } | undefined {
  const cpus = availableParallelism();
  if (cpus < 2) return undefined;
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  return { target: String(cpus - 1), rest: cpus === 2 ? '0' : `0-${cpus - 2}` };
}

/** Binds a process and all its threads (those it starts later inherit it) to a CPU set. */
export function pinProcess(pid: number, cpus: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
}

/** Kills every child still running (synchronous, so it also works from an `exit` handler). */
export function killAllChildren(): void {
  for (const proc of live) {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  }
  live.clear();
}

/** Registers a forked process (e.g. the load generator) so killAllChildren covers it. */
export function track(proc: ChildProcess): void {
  live.add(proc);
  proc.once('exit', () => live.delete(proc));
}

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** The process's user+system CPU time in ms (all threads), or undefined where /proc is missing. */
export function readCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of the whole line)
    return (ticks * 1000) / clockTicks();
  } catch {
    return undefined;
  }
}

/** Peak resident set size (VmHWM) in MB, or undefined where /proc is missing. */
export function readPeakRssMb(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = status.match(/^VmHWM:\s+(\d+)\s+kB/m);
    return kb ? Number(kb[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}
