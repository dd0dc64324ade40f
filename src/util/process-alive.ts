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

/** Linux's USER_HZ, the unit of /proc/<pid>/stat's start time: 100 on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;

let bootTimeMs: number | null | undefined;

/** When this machine booted (/proc/stat's `btime`, whole seconds); null where the system does not say. */
function bootedAt(): number | null {
  if (bootTimeMs === undefined) {
    try {
      const match = /^btime (\d+)$/m.exec(fs.readFileSync('/proc/stat', 'utf8'));
      bootTimeMs = match ? Number(match[1]) * 1000 : null;
    } catch {
      bootTimeMs = null;
    }
  }
  return bootTimeMs;
}

/**
 * When the process with this pid started (ms since the epoch, to within a second: the boot time
 * is in whole seconds), read from /proc/<pid>/stat; undefined where there is no /proc, or no such
 * process. Tells a pid's holder from a later process that was given the same pid.
 */
export function processStartedAt(pid: number): number | undefined {
  const boot = bootedAt();
  if (boot === null || !Number.isInteger(pid) || pid <= 0 || !startsReadRight()) return undefined;
  return readStart(boot, pid);
}

let checked: boolean | undefined;

/**
 * Whether /proc tells this process's own start to within a few seconds of when Node says it
 * started: not so under a time namespace whose boot clock is offset, or a USER_HZ other than 100.
 */
function startsReadRight(): boolean {
  if (checked === undefined) {
    const own = readStart(bootedAt()!, process.pid);
    checked = own !== undefined && Math.abs(own - performance.timeOrigin) < 5000;
  }
  return checked;
}

function readStart(boot: number, pid: number): number | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces or parentheses itself.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[19]); // field 22, starttime: clock ticks after boot
  return Number.isFinite(ticks) ? boot + (ticks * 1000) / TICKS_PER_SECOND : undefined;
}

/**
 * How much later than a record it wrote a process may seem to have started and still be the
 * record's writer: the boot time is in whole seconds, and a file's time comes from its file
 * system's clock (an NFS server's may be behind ours). A pid comes again only after the pids
 * wrapped, long after its first holder died, so a wide margin loses little.
 */
const START_SLACK_MS = 60_000;

/**
 * Whether the process that has `pid` now started after `writtenAt` (ms since the epoch), so it
 * cannot be the process that wrote a record naming that pid then: the writer died and its pid
 * came again (pids wrap within a boot). False when it cannot tell.
 */
export function pidCameAgainSince(pid: number, writtenAt: number): boolean {
  const started = processStartedAt(pid);
  return started !== undefined && Number.isFinite(writtenAt) && started > writtenAt + START_SLACK_MS;
}
