import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeCreateBody, decodePatchBody } from '../../src/media/decode-media-request.ts';
import { createMedia, libraryUsage, listMedia, recordCompletedImage, updateMedia } from '../../src/media/library.ts';
import { MEDIA_LIMITS } from '../../src/media/media-limits.ts';
import { GatewayError } from '../../src/errors/index.ts';
import { FileStore } from '../../src/store/file/file-store.ts';
import { createTurns } from '../../src/util/index.ts';
import type { MediaLibraryWriter } from '../../src/media/index.ts';
import { TestClock } from './in-process-app.ts';

function fieldsOf(run: () => unknown): Record<string, string> {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('validation_error');
    return (error as GatewayError).details!.fields as Record<string, string>;
  }
  throw new Error('expected a 422');
}

async function codeOf(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    return (error as GatewayError).code;
  }
  return 'ok';
}

describe('Media Library limits', () => {
  let dir: string;
  let store: FileStore;
  let deps: MediaLibraryWriter & { clock: TestClock };

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-lib-limits-'));
    store = await FileStore.open(dir);
    deps = { store, clock: new TestClock(), accountTurns: createTurns() };
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('bounds every field of a create body', () => {
    const ok = { media_type: 'video', model: 'veo' };
    expect(Object.keys(fieldsOf(() => decodeCreateBody({ ...ok, model: 'm'.repeat(257) })))).toEqual(['model']);
    expect(Object.keys(fieldsOf(() => decodeCreateBody({ ...ok, prompt: 'p'.repeat(MEDIA_LIMITS.promptChars + 1) })))).toEqual(['prompt']);
    expect(Object.keys(fieldsOf(() => decodeCreateBody({ ...ok, provider_task_id: 't'.repeat(257) })))).toEqual(['provider_task_id']);
    expect(fieldsOf(() => decodeCreateBody({ ...ok, parameters: { blob: 'x'.repeat(MEDIA_LIMITS.parametersBytes) } })).parameters).toMatch(/at most 16384 bytes/);
    let deep: unknown = 1;
    for (let i = 0; i < 100; i += 1) deep = [deep];
    expect(fieldsOf(() => decodeCreateBody({ ...ok, parameters: { deep } })).parameters).toMatch(/64 levels/);
    expect(decodeCreateBody({ ...ok, prompt: 'p'.repeat(MEDIA_LIMITS.promptChars), parameters: { a: 'x'.repeat(16_000) } }).prompt).toHaveLength(MEDIA_LIMITS.promptChars);
  });

  it('bounds every field of a patch body', () => {
    expect(Object.keys(fieldsOf(() => decodePatchBody({ result_urls: Array.from({ length: 17 }, (_, i) => `https://x/${i}`) })))).toEqual(['result_urls']);
    expect(Object.keys(fieldsOf(() => decodePatchBody({ result_urls: [`https://x/${'a'.repeat(4_100)}`] })))).toEqual(['result_urls']);
    expect(Object.keys(fieldsOf(() => decodePatchBody({ primary_url: 'u'.repeat(4_097), error: 'e'.repeat(4_097) })))).toEqual(['primary_url', 'error']);
    expect(decodePatchBody({ error: 'e'.repeat(4_096), result_urls: ['https://x/1'] }).error).toHaveLength(4_096);
  });

  it('refuses a create once the account has its maximum number of live records (429 quota_exceeded), per account', async () => {
    for (let i = 0; i < MEDIA_LIMITS.recordsPerAccount; i += 1) await store.media.create(await recordLike('acct_a', i));
    expect(await codeOf(() => createMedia(deps, 'acct_a', { mediaType: 'image', model: 'm' }))).toBe('quota_exceeded');
    expect(await codeOf(() => createMedia(deps, 'acct_b', { mediaType: 'image', model: 'm' }))).toBe('ok');
    // Expired records do not count.
    deps.clock.advance(31 * 86_400_000);
    expect(await codeOf(() => createMedia(deps, 'acct_a', { mediaType: 'image', model: 'm' }))).toBe('ok');
  });

  it('refuses creates and growing patches past the bytes an account may keep, even when sent all at once', async () => {
    const big = { mediaType: 'video' as const, model: 'm', prompt: 'p'.repeat(MEDIA_LIMITS.promptChars), parameters: { a: 'x'.repeat(15_000) } };
    const attempts = await Promise.all(Array.from({ length: 250 }, () => codeOf(() => createMedia(deps, 'acct_a', big))));
    const usage = await libraryUsage(deps, 'acct_a');
    expect(usage.bytes).toBeLessThanOrEqual(MEDIA_LIMITS.bytesPerAccount);
    expect(usage.bytes).toBeGreaterThan(MEDIA_LIMITS.bytesPerAccount - 60_000);
    expect(attempts.filter((c) => c === 'ok')).toHaveLength(usage.records);
    expect(attempts.filter((c) => c === 'quota_exceeded').length).toBe(250 - usage.records);
    const small = await createMedia(deps, 'acct_c', { mediaType: 'video', model: 'm' });
    expect(await codeOf(() => updateMedia(deps, small.id, { error: 'e'.repeat(4_000) }))).toBe('ok');
    const { data } = await listMedia(deps, { accountId: 'acct_a', page: 1, pageSize: 1 });
    expect(await codeOf(() => updateMedia(deps, data[0].id, { result_urls: Array.from({ length: 16 }, () => `https://x/${'a'.repeat(4_000)}`) }))).toMatch(/quota_exceeded|request_too_large/);
  });

  it('makes room for a generation the gateway ran itself by dropping the oldest records', async () => {
    for (let i = 0; i < MEDIA_LIMITS.recordsPerAccount; i += 1) await store.media.create(await recordLike('acct_a', i));
    const first = (await listMedia(deps, { accountId: 'acct_a', page: 1, pageSize: 100 })).total;
    expect(first).toBe(MEDIA_LIMITS.recordsPerAccount);
    const record = await recordCompletedImage(deps, 'acct_a', { model: 'mock/image', prompt: 'cat', parameters: {}, urls: ['http://x/1.png'], width: 1, height: 1, fileSizeBytes: 10 });
    const after = await listMedia(deps, { accountId: 'acct_a', page: 1, pageSize: 1 });
    expect(after.total).toBe(MEDIA_LIMITS.recordsPerAccount);
    expect(after.data[0].id).toBe(record.id);
    expect(await store.media.get('old-0')).toBeUndefined();
    expect(await store.media.get('old-1')).toBeDefined();
  });

  it('never drops the record of a job still running (or not yet billed) to make room', async () => {
    const open = { open: true, lease: null, state: {} };
    for (let i = 0; i < MEDIA_LIMITS.recordsPerAccount; i += 1) await store.media.create({ ...(await recordLike('acct_a', i)), ...(i < 40 ? { job: open } : {}) });
    await recordCompletedImage(deps, 'acct_a', { model: 'mock/image', prompt: 'cat', parameters: {}, urls: ['http://x/1.png'], width: 1, height: 1, fileSizeBytes: 10 });
    // The job's runner finds its record gone and gives its hold back: the provider's work would go unbilled.
    for (let i = 0; i < 40; i += 1) expect(await store.media.get(`old-${i}`)).toBeDefined();
    expect(await store.media.get('old-40')).toBeUndefined();
    expect(await store.media.get('old-41')).toBeDefined();
    expect((await libraryUsage(deps, 'acct_a')).records).toBe(MEDIA_LIMITS.recordsPerAccount);
  });

  async function recordLike(accountId: string, i: number) {
    const created = deps.clock.now() / 1000 - 1_000 + i;
    return {
      id: `old-${i}`, accountId, media_type: 'image' as const, status: 'completed' as const, model: 'm', prompt: 'p', parameters: {}, result_urls: [],
      primary_url: null, preview_url: null, file_size_bytes: null, duration_seconds: null, width: null, height: null, error: null,
      created_at: Math.floor(created), completed_at: null, provider_task_id: null, input_tokens: null, output_tokens: null, cost_credits: null,
    };
  }
});
