import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createMedia, deleteMedia, getMedia, listMedia, MEDIA_RETENTION_SECONDS, purgeExpiredMedia, recordCompletedImage, updateMedia, viewMedia,
} from '../../src/media/library.ts';
import { FileStore } from '../../src/store/file/file-store.ts';
import { createTurns } from '../../src/util/index.ts';
import type { MediaLibraryWriter } from '../../src/media/index.ts';
import { TestClock } from './in-process-app.ts';

const SPEC_FIELDS = [
  'id', 'media_type', 'status', 'model', 'prompt', 'parameters', 'result_urls', 'primary_url', 'preview_url',
  'file_size_bytes', 'duration_seconds', 'width', 'height', 'error', 'created_at', 'completed_at',
];

describe('Media Library service', () => {
  let dir: string;
  let store: FileStore;
  let clock: TestClock;
  let deps: MediaLibraryWriter;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-lib-'));
    store = await FileStore.open(dir);
    clock = new TestClock();
    deps = { store, clock, accountTurns: createTurns() };
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('creates pending records with a UUID and shows exactly the §2.1 fields', async () => {
    const record = await createMedia(deps, 'acct_a', { mediaType: 'video', model: 'veo', prompt: 'waves', providerTaskId: 'task-1', parameters: { duration: 8 } });
    expect(record.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(record).toMatchObject({ status: 'pending', provider_task_id: 'task-1', created_at: Math.floor(clock.now() / 1000), completed_at: null, result_urls: [] });
    const view = viewMedia(record);
    expect(Object.keys(view)).toEqual(SPEC_FIELDS);
    expect(view).not.toHaveProperty('accountId');
    expect(view).not.toHaveProperty('provider_task_id');
  });

  it('stamps completed_at on completed and failed, and clears it when moved back', async () => {
    const record = await createMedia(deps, 'acct_a', { mediaType: 'music', model: 'm' });
    clock.advance(5000);
    const processing = await updateMedia(deps, record.id, { status: 'processing' }, 'acct_a');
    expect(processing.completed_at).toBeNull();
    clock.advance(5000);
    const done = await updateMedia(deps, record.id, { status: 'completed', primary_url: 'https://x/y.mp3', duration_seconds: 31.5, cost_credits: 12 }, 'acct_a');
    expect(done.completed_at).toBe(Math.floor(clock.now() / 1000));
    expect(done.completed_at! - done.created_at).toBe(10);
    expect(done.cost_credits).toBe(12);
    const back = await updateMedia(deps, record.id, { status: 'pending' }, 'acct_a');
    expect(back.completed_at).toBeNull();
    clock.advance(1000);
    const failed = await updateMedia(deps, record.id, { status: 'failed', error: 'upstream said no' }, 'acct_a');
    expect(failed.completed_at).toBe(Math.floor(clock.now() / 1000));
    const untouched = await updateMedia(deps, record.id, { width: 10 }, 'acct_a');
    expect(untouched.completed_at).toBe(failed.completed_at);
  });

  it('hides other accounts\' records behind 404 for get, update and delete', async () => {
    const record = await createMedia(deps, 'acct_a', { mediaType: 'image', model: 'm' });
    for (const run of [() => getMedia(deps, record.id, 'acct_b'), () => updateMedia(deps, record.id, { status: 'failed' }, 'acct_b'), () => deleteMedia(deps, record.id, 'acct_b')]) {
      await expect(run()).rejects.toMatchObject({ code: 'not_found', status: 404 });
    }
    await expect(getMedia(deps, 'nope', 'acct_a')).rejects.toMatchObject({ status: 404 });
    expect((await getMedia(deps, record.id)).id).toBe(record.id); // operators see every account
    await deleteMedia(deps, record.id, 'acct_a');
    await expect(getMedia(deps, record.id, 'acct_a')).rejects.toMatchObject({ status: 404 });
  });

  it('lists newest first with filters and paging counts', async () => {
    for (const [i, type] of (['image', 'video', 'image', 'music', 'image'] as const).entries()) {
      await createMedia(deps, 'acct_a', { mediaType: type, model: `m${i}` });
      clock.advance(1000);
    }
    await createMedia(deps, 'acct_b', { mediaType: 'image', model: 'other' });
    const all = await listMedia(deps, { accountId: 'acct_a', page: 1, pageSize: 20 });
    expect(all.data.map((r) => r.model)).toEqual(['m4', 'm3', 'm2', 'm1', 'm0']);
    expect(all).toMatchObject({ total: 5, page: 1, page_size: 20, has_more: false });
    const images = await listMedia(deps, { accountId: 'acct_a', mediaType: 'image', page: 1, pageSize: 2 });
    expect(images).toMatchObject({ total: 3, has_more: true });
    expect(images.data.map((r) => r.model)).toEqual(['m4', 'm2']);
    const last = await listMedia(deps, { accountId: 'acct_a', mediaType: 'image', page: 2, pageSize: 2 });
    expect(last).toMatchObject({ total: 3, has_more: false });
    expect(last.data.map((r) => r.model)).toEqual(['m0']);
    const beyond = await listMedia(deps, { accountId: 'acct_a', page: 9, pageSize: 2 });
    expect(beyond).toMatchObject({ data: [], total: 5, page: 9, has_more: false });
    expect((await listMedia(deps, { page: 1, pageSize: 20 })).total).toBe(6);
  });

  it('keeps records of the same second newest first (insertion order), stable across pages', async () => {
    for (const model of ['first', 'second', 'third']) await createMedia(deps, 'acct_c', { mediaType: 'image', model });
    const one = await listMedia(deps, { accountId: 'acct_c', page: 1, pageSize: 2 });
    const two = await listMedia(deps, { accountId: 'acct_c', page: 2, pageSize: 2 });
    expect([...one.data, ...two.data].map((r) => r.model)).toEqual(['third', 'second', 'first']);
  });

  it('expires records after 30 days: not listed, not retrievable, then purged', async () => {
    const old = await createMedia(deps, 'acct_a', { mediaType: 'threed', model: 'm' });
    clock.advance(1000);
    const young = await recordCompletedImage(deps, 'acct_a', { model: 'mock/image', prompt: 'p', parameters: {}, urls: ['u1', 'u2'], width: 8, height: 8, fileSizeBytes: 99 });
    expect(young).toMatchObject({ status: 'completed', primary_url: 'u1', result_urls: ['u1', 'u2'], completed_at: young.created_at });
    clock.advance(MEDIA_RETENTION_SECONDS * 1000 - 1000);
    // Exactly 30 days after creation the first record is gone; the second (1 s younger) is not.
    expect((await listMedia(deps, { accountId: 'acct_a', page: 1, pageSize: 20 })).data.map((r) => r.id)).toEqual([young.id]);
    await expect(getMedia(deps, old.id, 'acct_a')).rejects.toMatchObject({ status: 404 });
    await expect(updateMedia(deps, old.id, { status: 'completed' }, 'acct_a')).rejects.toMatchObject({ status: 404 });
    expect(await purgeExpiredMedia(deps)).toBe(1);
    expect(await store.media.get(old.id)).toBeUndefined();
    expect(await store.media.get(young.id)).toBeDefined();
  });
});
