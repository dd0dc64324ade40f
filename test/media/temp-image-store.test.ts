import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TempImageStore } from '../../src/media/temp-image-store.ts';
import { readPngSize } from '../../src/media/read-image-size.ts';
import { encodePng } from '../../plugins/mock/png.ts';
import { TestClock } from './in-process-app.ts';

describe('temporary image store', () => {
  it('keeps bytes under an unguessable name until the TTL passes, then sweeps them', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-tmpimg-'));
    const clock = new TestClock();
    const store = new TempImageStore(dir, clock, 60_000);
    const a = await store.put(Buffer.from('png-bytes'), 'image/png');
    const b = await store.put(Buffer.from('jpeg-bytes'), 'image/jpeg');
    expect(a.name).toMatch(/^[A-Za-z0-9]{40}\.png$/);
    expect(b.name).toMatch(/\.jpg$/);
    expect(a.name).not.toBe(b.name);
    expect((await store.get(a.name))?.data.toString()).toBe('png-bytes');
    expect((await store.get(a.name.slice(0, 40)))?.contentType).toBe('image/png');
    expect(await store.get('../../etc/passwd')).toBeUndefined();
    expect(await store.get('A'.repeat(40))).toBeUndefined();
    // A restart (new instance) still finds them.
    expect((await new TempImageStore(dir, clock, 60_000).get(b.name))?.contentType).toBe('image/jpeg');
    clock.advance(60_000);
    expect(await store.get(a.name)).toBeUndefined();
    expect(await store.sweep()).toBe(1); // a was removed on access; b by the sweep
    expect(fs.readdirSync(store.dir)).toEqual([]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads a PNG size from IHDR and nothing else', () => {
    expect(readPngSize(encodePng({ width: 3, height: 5, rgba: new Uint8Array(60).fill(255) }))).toEqual({ width: 3, height: 5 });
    expect(readPngSize(Buffer.from('not a png, just some text here'))).toBeUndefined();
  });
});
