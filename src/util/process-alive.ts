import fs from 'node:fs';

/** Whether a process with this pid exists (one of another user's counts: EPERM). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * When the process with this pid started, as /proc/<pid>/stat says it (field 22: clock ticks
 * after boot), or undefined where there is no /proc or no such process. Counted from boot, so
 * setting the wall clock does not move it: the same process always reads the same value, and a
 * later process given the same pid reads another.
 */
export function processStartTicks(pid: number): string | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces or parentheses itself.
  const ticks = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  return ticks !== undefined && /^\d+$/.test(ticks) ? ticks : undefined;
}

/**
 * Whether the process that has `pid` now is not the one that recorded `recorded`, its own start
 * (processStartTicks, written beside the pid): the recorder died and its pid came again (pids
 * wrap). False when either is unknown: then the pid stands for its recorder, as before.
 */
export function pidCameAgain(pid: number, recorded: string | undefined): boolean {
  if (recorded === undefined) return false;
  const now = processStartTicks(pid);
  return now !== undefined && now !== recorded;
}
