import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContentCache, type FetchedContent } from '../../src/jobs/index.ts';
import { tempDir } from '../helpers/spawn-gateway.ts';

const RECORD = '0b3f6a52-6a4e-4c3e-9c1e-0f5a7f1d2e3b';

/** A provider fetch the test ends by hand, counting how often it was started and whether it was stopped. */
function heldFetch() {
  const calls: AbortSignal[] = [];
  let finish!: (content: FetchedContent) => void;
  let fail!: (error: unknown) => void;
  const fetch = (signal: AbortSignal) => {
    calls.push(signal);
    return new Promise<FetchedContent>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
  };
  return { fetch, calls, finish: (c: FetchedContent) => finish(c), fail: (e: unknown) => fail(e) };
}

const until = async (what: () => boolean) => {
  while (!what()) await new Promise((resolve) => setImmediate(resolve));
};

describe('ContentCache.read: downloads that ask at once share one provider fetch', () => {
  it('four downloads of one item at once make one fetch and all get its bytes', async () => {
    const cache = new ContentCache(path.join(tempDir(), 'data'), 0); // nothing fits: every download would fetch
    const held = heldFetch();
    const reads = Array.from({ length: 4 }, () => cache.read(RECORD, 'video', 'video/mp4', held.fetch, new AbortController().signal));
    await until(() => held.calls.length > 0);
    held.finish({ data: Buffer.from('mp4 bytes'), contentType: 'video/mp4' });
    const got = await Promise.all(reads);
    expect(held.calls).toHaveLength(1);
    for (const r of got) expect(r).toEqual({ data: Buffer.from('mp4 bytes'), contentType: 'video/mp4' });
    // Once it ended, a later download fetches again (the item did not fit the cache).
    const again = heldFetch();
    const later = cache.read(RECORD, 'video', 'video/mp4', again.fetch, new AbortController().signal);
    await until(() => again.calls.length > 0);
    again.finish({ data: Buffer.from('x'), contentType: 'video/mp4' });
    await later;
    // Another variant is another item.
    const thumb = heldFetch();
    const other = cache.read(RECORD, 'thumbnail', 'image/jpeg', thumb.fetch, new AbortController().signal);
    await until(() => thumb.calls.length > 0);
    thumb.finish({ data: Buffer.from('jpg'), contentType: 'image/jpeg' });
    expect(await other).toMatchObject({ contentType: 'image/jpeg' });
  });

  it('a download that leaves stops waiting; the fetch stops only when the last one left', async () => {
    const cache = new ContentCache(path.join(tempDir(), 'data'), 0);
    const held = heldFetch();
    const a = new AbortController();
    const b = new AbortController();
    const first = cache.read(RECORD, 'video', 'video/mp4', held.fetch, a.signal);
    const second = cache.read(RECORD, 'video', 'video/mp4', held.fetch, b.signal);
    await until(() => held.calls.length > 0);
    a.abort(new Error('client a left'));
    await expect(first).rejects.toThrow('client a left');
    expect(held.calls[0].aborted).toBe(false);
    b.abort(new Error('client b left'));
    await expect(second).rejects.toThrow('client b left');
    expect(held.calls[0].aborted).toBe(true);
    held.fail(held.calls[0].reason);
    // The stopped fetch is not shared with a download that comes after it.
    const next = heldFetch();
    const third = cache.read(RECORD, 'video', 'video/mp4', next.fetch, new AbortController().signal);
    await until(() => next.calls.length > 0);
    next.finish({ data: Buffer.from('ok'), contentType: 'video/mp4' });
    expect((await third).data.toString()).toBe('ok');
  });

  it('a failed fetch fails every download waiting for it', async () => {
    const cache = new ContentCache(path.join(tempDir(), 'data'), 0);
    const held = heldFetch();
    const reads = [0, 1, 2].map(() => cache.read(RECORD, 'video', 'video/mp4', held.fetch, new AbortController().signal));
    await until(() => held.calls.length > 0);
    held.fail(new Error('provider said 500'));
    for (const r of reads) await expect(r).rejects.toThrow('provider said 500');
    expect(held.calls).toHaveLength(1);
  });

  it('a kept item is read from the cache, without a fetch', async () => {
    const cache = new ContentCache(path.join(tempDir(), 'data'), 1024);
    await cache.put(RECORD, 'video', Buffer.from('kept'));
    const held = heldFetch();
    const read = await cache.read(RECORD, 'video', 'video/mp4', held.fetch, new AbortController().signal);
    expect(held.calls).toHaveLength(0);
    expect(read).toEqual({ data: Buffer.from('kept'), contentType: 'video/mp4' });
  });
});
