import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLock, lockHolder, readServerInfo } from '../../src/store/index.ts';
import { processStartTicks } from '../../src/util/index.ts';
import { tempDir } from '../helpers/spawn-gateway.ts';

describe('the data dir lock', () => {
  it('an empty lock file is a holder still writing its pid: held, not taken over', async () => {
    const dir = tempDir('gw-lock-');
    const file = path.join(dir, 'gateway.lock');
    // What a holder's lock looks like between its creation and its pid's write (older versions wrote it so).
    fs.writeFileSync(file, '', { mode: 0o600 });
    await expect(acquireLock(dir, 0)).rejects.toThrow(`the data dir ${dir} is in use by another process (its lock file is still being written)`);
    expect(fs.readFileSync(file, 'utf8')).toBe('');
  });

  it('an empty lock file older than the grace is a crashed writer\'s: taken over', async () => {
    const dir = tempDir('gw-lock-');
    const file = path.join(dir, 'gateway.lock');
    fs.writeFileSync(file, '', { mode: 0o600 });
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(file, old, old);
    const lock = await acquireLock(dir, 0, 'gateway usage');
    expect(fs.readFileSync(file, 'utf8')).toBe(`${process.pid}\ngateway usage\n${processStartTicks(process.pid)}`);
    lock.release();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("a lock an earlier process with this process's pid left is taken over (a container's gateway is pid 1 at every start: after a kill -9 it refused to start, 'in use by process 1')", async () => {
    const dir = tempDir('gw-lock-');
    const file = path.join(dir, 'gateway.lock');
    fs.writeFileSync(file, String(process.pid), { mode: 0o600 });
    fs.writeFileSync(path.join(dir, 'gateway.lock.takeover'), String(process.pid), { mode: 0o600 });
    const lock = await acquireLock(dir, 0);
    expect(fs.readFileSync(file, 'utf8')).toBe(String(process.pid));
    // Held by this process now: a second take in it is still refused.
    await expect(acquireLock(dir, 0)).rejects.toThrow(`is in use by process ${process.pid}`);
    lock.release();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('a server.json written in an earlier boot, and the lock of the server it names, are stale, whatever process has their pid now (after a power loss the pid is often another service\'s)', async () => {
    const dir = tempDir('gw-lock-');
    const file = path.join(dir, 'gateway.lock');
    // The parent of this process is alive: the pid an earlier boot's gateway had, taken by another process since.
    fs.writeFileSync(file, String(process.ppid), { mode: 0o600 });
    fs.writeFileSync(path.join(dir, 'server.json'), JSON.stringify({ pid: process.ppid, url: 'http://127.0.0.1:1', adminToken: 'gwa_x', startedAt: 1, boot: '00000000-0000-4000-8000-000000000000' }), { mode: 0o600 });
    expect(readServerInfo(dir)).toBeUndefined();
    expect(lockHolder(dir)).toBeUndefined();
    const lock = await acquireLock(dir, 0);
    expect(fs.readFileSync(file, 'utf8').split('\n')[0]).toBe(String(process.pid));
    lock.release();
    // Without a server.json of an earlier boot naming it, the same pid is a live holder.
    fs.rmSync(path.join(dir, 'server.json'));
    fs.writeFileSync(file, String(process.ppid), { mode: 0o600 });
    expect(lockHolder(dir)).toBe(process.ppid);
    await expect(acquireLock(dir, 0)).rejects.toThrow(`is in use by process ${process.ppid}`);
  });

  it('the lock file appears with its pid in it, and no side file is left', async () => {
    const dir = tempDir('gw-lock-');
    const lock = await acquireLock(dir, 0);
    expect(fs.readdirSync(dir)).toEqual(['gateway.lock']);
    expect(fs.readFileSync(path.join(dir, 'gateway.lock'), 'utf8')).toBe(String(process.pid));
    await expect(acquireLock(dir, 0)).rejects.toThrow(`is in use by process ${process.pid}`);
    expect(fs.readdirSync(dir)).toEqual(['gateway.lock']);
    lock.release();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('a dead process\'s lock is not taken over while another process is taking it over', async () => {
    const dir = tempDir('gw-lock-');
    const file = path.join(dir, 'gateway.lock');
    const deadPid = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }));
    fs.writeFileSync(file, String(deadPid), { mode: 0o600 });
    // A live process (the test runner's parent) between judging the lock abandoned and placing its own:
    // before, this process removed the file too, and whichever placed second removed the other's lock.
    fs.writeFileSync(`${file}.takeover`, String(process.ppid), { mode: 0o600 });
    await expect(acquireLock(dir, 0)).rejects.toThrow(`is in use by another process (taking over the lock process ${deadPid} left)`);
    expect(fs.readFileSync(file, 'utf8')).toBe(String(deadPid));
    // A taker that died mid-way leaves its guard behind: reclaimed, and the lock taken over.
    fs.writeFileSync(`${file}.takeover`, String(deadPid), { mode: 0o600 });
    const lock = await acquireLock(dir, 0);
    expect(fs.readFileSync(file, 'utf8')).toBe(String(process.pid));
    lock.release();
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("a lock or server.json naming a pid that a later process got (its holder died, the pids wrapped) is stale; the holder's own is not, whatever the wall clock did", async () => {
    const dir = tempDir('gw-lock-');
    const file = path.join(dir, 'gateway.lock');
    // A live process that has the pid a dead holder wrote, with that holder's start beside it (not this process's).
    const later = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    try {
      const pid = later.pid!;
      const own = processStartTicks(pid)!;
      expect(own).toMatch(/^\d+$/);
      const earlier = String(Number(own) - 1);
      fs.writeFileSync(file, `${pid}\ngateway usage\n${earlier}`, { mode: 0o600 });
      expect(lockHolder(dir)).toBeUndefined();
      const lock = await acquireLock(dir, 0, 'gateway keys');
      expect(fs.readFileSync(file, 'utf8')).toBe(`${process.pid}\ngateway keys\n${processStartTicks(process.pid)}`);
      lock.release();
      // A server's lock is its pid alone; its start is in server.json.
      fs.writeFileSync(file, String(pid), { mode: 0o600 });
      fs.writeFileSync(path.join(dir, 'server.json'), JSON.stringify({ pid, url: 'http://127.0.0.1:1', adminToken: 'gwa_x', startedAt: Date.now(), pidStart: earlier }), { mode: 0o600 });
      expect(readServerInfo(dir)).toBeUndefined();
      expect(lockHolder(dir)).toBeUndefined();

      // Written by that process itself: held, also after the wall clock jumped (file times and startedAt an hour off).
      const hourAgo = new Date(Date.now() - 3_600_000);
      fs.writeFileSync(file, `${pid}\ngateway usage\n${own}`, { mode: 0o600 });
      fs.utimesSync(file, hourAgo, hourAgo);
      expect(lockHolder(dir)).toBe(pid);
      await expect(acquireLock(dir, 0)).rejects.toThrow(`is in use by process ${pid} (gateway usage)`);
      fs.writeFileSync(file, String(pid), { mode: 0o600 });
      fs.utimesSync(file, hourAgo, hourAgo);
      fs.writeFileSync(path.join(dir, 'server.json'), JSON.stringify({ pid, url: 'http://127.0.0.1:1', adminToken: 'gwa_x', startedAt: hourAgo.getTime(), pidStart: own }), { mode: 0o600 });
      expect(readServerInfo(dir)?.pid).toBe(pid);
      expect(lockHolder(dir)).toBe(pid);
      // Without a start beside the pid (older versions), the pid stands for its holder, as before.
      fs.writeFileSync(path.join(dir, 'server.json'), JSON.stringify({ pid, url: 'http://127.0.0.1:1', adminToken: 'gwa_x', startedAt: 1 }), { mode: 0o600 });
      expect(readServerInfo(dir)?.pid).toBe(pid);
      await expect(acquireLock(dir, 0)).rejects.toThrow(`is in use by process ${pid}`);
    } finally {
      later.kill();
    }
  });
});
