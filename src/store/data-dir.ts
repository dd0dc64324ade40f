import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensurePrivateDir, isProcessAlive, pidCameAgain, processStartTicks, syncDirNow } from '../util/index.ts';
import { newId } from '../util/index.ts';

/** What a running server publishes in its data dir so CLI commands can reach it. */
export interface ServerInfo {
  pid: number;
  url: string;
  /** Where the admin procedures answer, when not at `url` (a separate admin listener, or loopback for a wildcard host). */
  adminUrl?: string;
  adminToken: string;
  startedAt: number;
  /** The boot it was written in (Linux's boot_id): a pid of an earlier boot is no process of ours, whoever has it now. */
  boot?: string;
  /** Its process's start (processStartTicks): another process with its pid later in the same boot is not it. */
  pidStart?: string;
}

let bootId: string | null | undefined;

/** This boot's id (Linux); null where the system does not say. */
function thisBoot(): string | null {
  if (bootId === undefined) {
    try {
      bootId = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
    } catch {
      bootId = null;
    }
  }
  return bootId;
}

/** Whether server info was written in an earlier boot of this machine (after a power loss its pid is often another process's). */
function earlierBoot(info: Pick<ServerInfo, 'boot'>): boolean {
  const boot = thisBoot();
  return Boolean(info.boot && boot && info.boot !== boot);
}

/** server.json as written, whatever its process's state. */
function readServerFile(dataDir: string): ServerInfo | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, SERVER), 'utf8')) as ServerInfo;
  } catch {
    return undefined;
  }
}

/**
 * Whether `pid` holds the lock of `dataDir`: alive, not named by a server.json of an earlier boot,
 * and the process that recorded its start (`pidStart`, the lock's or its server.json's), not a
 * later one given its pid after it died (pids wrap within a boot too). Starts are compared in
 * clock ticks after boot, which setting the wall clock does not move.
 */
function holderAlive(dataDir: string, pid: number, pidStart?: string): boolean {
  if (!isProcessAlive(pid)) return false;
  // The lock's own word on its holder's start decides (a start of an earlier boot differs too).
  if (pidStart !== undefined && processStartTicks(pid) !== undefined) return !pidCameAgain(pid, pidStart);
  const server = readServerFile(dataDir);
  return !(server && server.pid === pid && (earlierBoot(server) || pidCameAgain(pid, server.pidStart)));
}

const LOCK = 'gateway.lock';
const SERVER = 'server.json';

/** The running server owning `dataDir`, if any (stale files of dead processes are ignored). */
export function readServerInfo(dataDir: string): ServerInfo | undefined {
  const info = readServerFile(dataDir);
  return info?.pid && isProcessAlive(info.pid) && !earlierBoot(info) && !pidCameAgain(info.pid, info.pidStart) ? info : undefined;
}

export function writeServerInfo(dataDir: string, info: ServerInfo): void {
  const file = path.join(dataDir, SERVER);
  const boot = thisBoot();
  const pidStart = info.pid === process.pid ? processStartTicks(process.pid) : undefined;
  const written: ServerInfo = { ...info };
  if (boot) written.boot = boot;
  if (pidStart !== undefined) written.pidStart = pidStart;
  fs.writeFileSync(file + '.tmp', JSON.stringify(written), { mode: 0o600 });
  fs.renameSync(file + '.tmp', file);
}

export function removeServerInfo(dataDir: string): void {
  fs.rmSync(path.join(dataDir, SERVER), { force: true });
}

/** An exclusive hold on a data dir: one process writes its records at a time. */
export interface DataDirLock {
  release(): void;
}

/** A lock file's holder: its pid, what it is when it said, and its process's start when it said. */
interface LockHolder {
  pid: number;
  name?: string;
  pidStart?: string;
}

/**
 * The lock file's holder: its pid (the first line) and, when it said, what it is (`gateway tui`,
 * the second) and its process's start (processStartTicks, the third). A server's lock stays its
 * pid alone (scripts read it so: `kill $(cat gateway.lock)`); its start is in server.json.
 */
function readLock(file: string): LockHolder | undefined {
  try {
    const [pid, name, start] = fs.readFileSync(file, 'utf8').trim().split('\n');
    const pidStart = start?.trim();
    return { pid: Number(pid), name: name?.trim() || undefined, pidStart: pidStart && /^\d+$/.test(pidStart) ? pidStart : undefined };
  } catch {
    return undefined;
  }
}

/** The lock's live holder: its pid and what it is, when it said. */
function liveHolder(dataDir: string): LockHolder | undefined {
  const holder = readLock(path.join(dataDir, LOCK));
  return holder && holder.pid && holderAlive(dataDir, holder.pid, holder.pidStart) ? holder : undefined;
}

/** The pid holding the lock, if it is alive. */
export function lockHolder(dataDir: string): number | undefined {
  return liveHolder(dataDir)?.pid;
}

/** What holds the lock, when it said (`gateway usage`, `gateway tui`); undefined for a server (its pid alone) or nobody. */
export function lockHolderName(dataDir: string): string | undefined {
  return liveHolder(dataDir)?.name;
}

/**
 * How long a lock file with no pid in it counts as held: a holder of an older version creating
 * it and writing its pid after. Past that it is a crashed writer's and is taken over.
 */
const UNWRITTEN_LOCK_GRACE_MS = 5000;

/**
 * Puts the lock file in place with `content` already in it, or returns false when it exists:
 * the content goes to a side file first, linked into place (link() never replaces a file), so
 * no other process ever reads the lock without its pid.
 */
function placeLock(file: string, content: string): boolean {
  const side = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  try {
    fs.writeFileSync(side, content, { mode: 0o600, flag: 'wx' });
    fs.linkSync(side, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw cannotWrite(file, error);
  } finally {
    // Also when its write failed (a full disk): a start that fails leaves nothing behind.
    fs.rmSync(side, { force: true });
  }
}

/** A file write's error naming the file (a write(2)'s own message does not: 'ENOSPC: no space left on device, write'), its code kept. */
function cannotWrite(file: string, error: unknown): Error {
  const message = (error as Error)?.message ?? String(error);
  if (message.includes(file)) return error as Error;
  return Object.assign(new Error(`cannot write ${file} (${message})`, { cause: error }), { code: (error as NodeJS.ErrnoException)?.code, syscall: (error as NodeJS.ErrnoException)?.syscall });
}

/** The lock files this process holds (one it does not hold that names its pid was left by an earlier process with the same pid). */
const heldHere = new Set<string>();

/**
 * Whether a lock file without a live pid was left behind (its holder died, or never wrote its pid
 * and is long gone). One naming this process's pid that this process does not hold is an earlier
 * process's: pids come again, and a container's gateway is pid 1 at every start.
 */
function abandoned(file: string, holder: LockHolder | undefined): boolean {
  if (holder?.pid) return holder.pid === process.pid ? !heldHere.has(path.resolve(file)) : !holderAlive(path.dirname(file), holder.pid, holder.pidStart);
  try {
    return Date.now() - fs.statSync(file).mtimeMs >= UNWRITTEN_LOCK_GRACE_MS;
  } catch {
    return true; // gone already: try again
  }
}

/** Places `file` with our pid in it; one left by a dead process is removed first (by anyone: its holder is gone). */
function placeOrReclaim(file: string): boolean {
  if (placeLock(file, String(process.pid))) return true;
  if (!abandoned(file, readLock(file))) return false;
  fs.rmSync(file, { force: true });
  return placeLock(file, String(process.pid));
}

/**
 * Replaces a lock file left by a dead process with ours, under a guard file so that of several
 * processes taking it over at once exactly one wins: each removing the dead holder's file and
 * placing its own, one could remove the other's fresh lock and both would hold the data dir.
 * The guard is held for a few system calls; one whose taker died mid-way is reclaimed.
 */
function takeOver(file: string, content: string): boolean {
  if (!abandoned(file, readLock(file))) return false;
  const guard = `${file}.takeover`;
  if (!placeOrReclaim(guard)) return false;
  try {
    // Judged again under the guard: another process may have taken it over since.
    if (!abandoned(file, readLock(file))) return false;
    fs.rmSync(file, { force: true });
    return placeLock(file, content);
  } finally {
    fs.rmSync(guard, { force: true });
  }
}

/**
 * Takes the data dir's lock file (created with the pid in it, atomically), taking over one left
 * by a dead process and waiting up to `waitMs` for a live holder to let go. `name` (`gateway tui`)
 * goes in the file after the pid, so another process refused the lock can say what holds it.
 */
export async function acquireLock(dataDir: string, waitMs = 5000, name?: string): Promise<DataDirLock> {
  ensurePrivateDir(dataDir);
  const file = path.join(dataDir, LOCK);
  // A named holder (a CLI command, the TUI) also says its start; a server's start is in its server.json.
  const start = name ? processStartTicks(process.pid) : undefined;
  const content = name ? `${process.pid}\n${name}${start !== undefined ? `\n${start}` : ''}` : String(process.pid);
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (placeLock(file, content) || takeOver(file, content)) {
      let released = false;
      heldHere.add(path.resolve(file));
      return {
        release: () => {
          if (released) return;
          released = true;
          heldHere.delete(path.resolve(file));
          if (readLock(file)?.pid === process.pid) fs.rmSync(file, { force: true });
        },
      };
    }
    if (Date.now() >= deadline) {
      const holder = readLock(file);
      const who = !holder?.pid
        ? 'another process (its lock file is still being written)'
        : holderAlive(dataDir, holder.pid, holder.pidStart)
          ? `process ${holder.pid}${holder.name ? ` (${holder.name})` : ''}`
          : `another process (taking over the lock process ${holder.pid} left)`;
      throw new Error(`the data dir ${dataDir} is in use by ${who}`);
    }
    await sleep(50);
  }
}

const INSTANCE = 'instance-id';
const INSTANCE_ID = /^inst_[A-Za-z0-9]{6,64}$/;

/**
 * The id this data dir's gateway holds batch leases under, kept in `instance-id` (created 0600
 * on first use). The same after a restart, so a restarted gateway knows its own leases; each
 * data dir has its own, so instances sharing one database never take each other's.
 */
export function readInstanceId(dataDir: string, warn?: (message: string) => void): string {
  const file = path.join(dataDir, INSTANCE);
  try {
    const id = fs.readFileSync(file, 'utf8').trim();
    if (INSTANCE_ID.test(id)) return id;
    // Only lease ownership depends on it: a new id costs a wait for the old leases to lapse.
    warn?.(`${INSTANCE} in the data dir is not an instance id; a new one replaces it (batches this instance ran resume once their leases lapse)`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  ensurePrivateDir(dataDir);
  const id = newId('inst', 16);
  writeDurably(file, `${id}\n`);
  return id;
}

/**
 * Replaces `file` with `content` so that a power loss leaves the old file or the new one, never
 * an empty one: a side file written and fsynced, renamed into place, the directory fsynced.
 */
function writeDurably(file: string, content: string): void {
  const side = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  try {
    const fd = fs.openSync(side, 'wx', 0o600);
    try {
      fs.writeSync(fd, content);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(side, file);
  } catch (error) {
    fs.rmSync(side, { force: true });
    throw cannotWrite(file, error);
  }
  syncDirNow(path.dirname(file));
}
