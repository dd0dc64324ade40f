/**
 * Files the store writes outside its logs reach the disk before they count: the file's bytes
 * (fsync/fdatasync) and, for a new name, its directory entry (an fsync of the directory).
 * Seen through node's fs calls: a power loss cannot be staged in a test.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FileResponsesRepo } from '../../src/store/file/index.ts';
import { markMigrated, readInstanceId } from '../../src/store/index.ts';
import { migratedTo } from '../../src/store/migrated-marker.ts';
import { keepRejectedLines } from '../../src/util/index.ts';
import { tempDir } from '../helpers/spawn-gateway.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

/** The paths fsync'd (sync calls): each descriptor opened is remembered by its path. */
function watchSyncs(): string[] {
  const opened = new Map<number, string>();
  const synced: string[] = [];
  const open = fs.openSync;
  vi.spyOn(fs, 'openSync').mockImplementation(((file: fs.PathLike, ...rest: unknown[]) => {
    const fd = (open as (...a: unknown[]) => number)(file, ...rest);
    opened.set(fd, String(file));
    return fd;
  }) as typeof fs.openSync);
  const fsync = fs.fsyncSync;
  vi.spyOn(fs, 'fsyncSync').mockImplementation((fd: number) => {
    synced.push(opened.get(fd) ?? `fd ${fd}`);
    fsync(fd);
  });
  return synced;
}

/** Spies on FileHandle's datasync and sync (the class is reached through a handle). */
async function watchHandleSyncs(dir: string) {
  const probe = await fs.promises.open(path.join(dir, 'probe'), 'w');
  const proto = Object.getPrototypeOf(probe) as { datasync(): Promise<void>; sync(): Promise<void> };
  await probe.close();
  await fs.promises.rm(path.join(dir, 'probe'));
  return { datasync: vi.spyOn(proto, 'datasync'), sync: vi.spyOn(proto, 'sync') };
}

describe('durable writes off the logs', () => {
  it("keepRejectedLines fsyncs a new side file's directory, before its lines are cut from the data file", () => {
    const dir = tempDir('gw-rejected-');
    const file = path.join(dir, 'usage.jsonl');
    const synced = watchSyncs();
    const side = keepRejectedLines(file, [{ file: 'usage.jsonl', line: -1, offset: 0, text: '{"torn', torn: true }]);
    expect(synced).toEqual([side, dir]);
  });

  it('a new instance-id is written whole (a side file fsynced, renamed) and the data dir fsynced', () => {
    const dir = tempDir('gw-instance-');
    const synced = watchSyncs();
    const id = readInstanceId(dir);
    expect(synced).toEqual([expect.stringMatching(/instance-id\.\d+\.[0-9a-f]{12}$/), dir]);
    expect(fs.readdirSync(dir)).toEqual(['instance-id']);
    expect(fs.readFileSync(path.join(dir, 'instance-id'), 'utf8')).toBe(`${id}\n`);
    expect(fs.statSync(path.join(dir, 'instance-id')).mode & 0o777).toBe(0o600);
  });

  it('markMigrated writes the marker whole (a side file fdatasynced, renamed) and fsyncs the data dir', async () => {
    const dir = tempDir('gw-marker-');
    const { datasync, sync } = await watchHandleSyncs(dir);
    await markMigrated(dir, 'postgres://db/gateway', 1_700_000_000_000);
    expect(migratedTo(dir)).toEqual({ to: 'postgres://db/gateway', at: 1_700_000_000_000 });
    expect(fs.readdirSync(dir)).toEqual(['migrated-to-postgres.json']);
    expect(datasync).toHaveBeenCalledTimes(1);
    expect(sync).toHaveBeenCalledTimes(1);
  });

  it('a stored response is fdatasynced and its directory fsynced (after save resolves: the answer never waits on it)', async () => {
    const dir = tempDir('gw-responses-');
    const repo = new FileResponsesRepo(dir);
    const { datasync, sync } = await watchHandleSyncs(dir);
    await repo.save({ id: 'resp_durable', accountId: 'acct_1', createdAt: Date.now(), request: '{}', response: '{"id":"resp_durable"}' });
    await repo.flush();
    expect(datasync).toHaveBeenCalledTimes(1);
    expect(sync).toHaveBeenCalledTimes(1);
  });
});
