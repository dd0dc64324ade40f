// A data dir removed right after gateway.close() once failed with ENOTEMPTY (create-account-guards.test.ts):
// close() resolved while work the gateway started in the background still ran on the data dir. The media jobs'
// first content sweep creates <dataDir>/media-content; its mkdir was still under way when close() resolved, on
// every start, so a removal that listed the dir before the mkdir landed could not remove the dir itself.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createGateway } from '../../src/app/create-gateway.ts';
import { parseConfig } from '../../src/config/index.ts';
import { StorageHealth } from '../../src/store/index.ts';
import { createLogger } from '../../src/util/logger.ts';
import { REPO_ROOT } from '../accounts/make-gateway.ts';

const OPERATIONS = ['mkdir', 'readdir', 'writeFile', 'appendFile', 'rename', 'open', 'rm', 'unlink', 'stat', 'readFile', 'copyFile', 'opendir'] as const;

/** Counts the fs operations under way on `dir` (by their first argument), naming each; `onIssue` hears each as it starts. */
function watchOperations(dir: string, onIssue: (entry: string) => void = () => undefined): Set<string> {
  const pending = new Set<string>();
  let seq = 0;
  for (const name of OPERATIONS) {
    const original = fsp[name] as (...args: unknown[]) => Promise<unknown>;
    vi.spyOn(fsp, name).mockImplementation(((...args: unknown[]) => {
      const target = String(args[0]);
      const result = original(...args);
      if (!target.startsWith(dir)) return result;
      const entry = `${name} ${path.relative(dir, target) || '.'} #${(seq += 1)}`;
      pending.add(entry);
      onIssue(entry);
      const done = () => pending.delete(entry);
      result.then(done, done);
      return result;
    }) as never);
  }
  return pending;
}

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('gateway.close()', () => {
  it('resolves only once no file operation it started on the data dir is still under way, the start-up sweeps included', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-close-'));
    dirs.push(dataDir);
    // What the start-up sweeps delete: an expired temporary image, and cached content whose record is gone.
    const expired = 'a'.repeat(40);
    fs.mkdirSync(path.join(dataDir, 'temp-images'));
    fs.writeFileSync(path.join(dataDir, 'temp-images', `${expired}.bin`), 'png');
    fs.writeFileSync(path.join(dataDir, 'temp-images', `${expired}.json`), JSON.stringify({ contentType: 'image/png', expiresAt: 1 }));
    fs.mkdirSync(path.join(dataDir, 'media-content'));
    fs.writeFileSync(path.join(dataDir, 'media-content', '00000000-0000-4000-8000-000000000000~video'), 'mp4');
    const pending = watchOperations(dataDir);
    const config = parseConfig({ providers: { mock: { plugin: 'mock' } } });
    const gateway = await createGateway({ config, configDir: REPO_ROOT, dataDir, log: createLogger('silent') });
    await gateway.close();
    expect([...pending]).toEqual([]);
    // The sweeps ran to their end before close resolved: what they delete is gone already.
    expect(fs.readdirSync(path.join(dataDir, 'temp-images'))).toEqual([]);
    expect(fs.readdirSync(path.join(dataDir, 'media-content'))).toEqual([]);
  });

  it('resolves only once the first content sweep has made its folder, on a fresh data dir (the ENOTEMPTY race)', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-close-'));
    dirs.push(dataDir);
    const pending = watchOperations(dataDir);
    const config = parseConfig({ providers: { mock: { plugin: 'mock' } } });
    const gateway = await createGateway({ config, configDir: REPO_ROOT, dataDir, log: createLogger('silent') });
    await gateway.close();
    expect([...pending]).toEqual([]);
    expect(fs.existsSync(path.join(dataDir, 'media-content'))).toBe(true);
  });

  // The same for the probe that writes and removes a file in the data dir while it cannot be written.
  it("waits for the storage probe under way, so its file is gone when the guards' close resolves", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-close-'));
    dirs.push(dataDir);
    let resolve = () => undefined as void;
    const probing = new Promise<void>((r) => (resolve = r));
    const pending = watchOperations(dataDir, (entry) => entry.startsWith('writeFile .storage-probe') && resolve());
    const storage = new StorageHealth(dataDir);
    storage.failed(Object.assign(new Error('no space'), { code: 'ENOSPC' }), 'a ledger line');
    await probing; // its write has started, not ended
    await storage.close();
    expect([...pending]).toEqual([]);
    expect(fs.readdirSync(dataDir)).toEqual([]);
  });
});
