import { randomUUID } from 'node:crypto';
import { GatewayError } from '../errors/index.ts';
import type { Store } from '../store/index.ts';
import type { MediaRecord } from '../store/index.ts';
import { unixSeconds, type Clock } from '../util/index.ts';
import type { Turns } from '../util/index.ts';
import type { MediaCreateInput, MediaListQuery, MediaPatch } from './decode-media-request.ts';
import { checkRecordSize, fitsLibrary, libraryFull, recordBytes, type LibraryUsage } from './media-limits.ts';

/** Spec §8.2: a Media Library record lives 30 days. */
export const MEDIA_RETENTION_SECONDS = 30 * 24 * 60 * 60;

/** A record exactly as spec §2.1 lists it (no owner, no update-only fields). */
export type MediaView = Omit<MediaRecord, 'accountId' | 'provider_task_id' | 'input_tokens' | 'output_tokens' | 'cost_credits'>;

/** Spec §2.2. */
export interface MediaListEnvelope {
  data: MediaView[];
  total: number;
  page: number;
  page_size: number;
  has_more: boolean;
}

export interface MediaLibraryDeps {
  store: Store;
  clock: Clock;
}

/** What changes the library: its deps and the queue per account its changes take turns in (one per gateway: MediaRuntime.library). */
export interface MediaLibraryWriter extends MediaLibraryDeps {
  accountTurns: Turns;
}

/** The §2.1 output shape of a stored record. */
export function viewMedia(r: MediaRecord): MediaView {
  return {
    id: r.id,
    media_type: r.media_type,
    status: r.status,
    model: r.model,
    prompt: r.prompt,
    parameters: r.parameters,
    result_urls: r.result_urls,
    primary_url: r.primary_url,
    preview_url: r.preview_url,
    file_size_bytes: r.file_size_bytes,
    duration_seconds: r.duration_seconds,
    width: r.width,
    height: r.height,
    error: r.error,
    created_at: r.created_at,
    completed_at: r.completed_at,
  };
}

/** Oldest `created_at` (Unix s) still alive at `nowMs`: records are gone once 30 days old. */
export function oldestAlive(nowMs: number): number {
  return unixSeconds(nowMs) - MEDIA_RETENTION_SECONDS + 1;
}

function notFound(id: string): GatewayError {
  return new GatewayError('not_found', `No media generation with id '${id}'.`, { details: { generation_id: id } });
}

/** One page of stored records, newest first, with the envelope's counts; `accountId` undefined = every account. */
export async function listMediaRecords(
  deps: MediaLibraryDeps,
  query: MediaListQuery & { accountId?: string },
): Promise<Omit<MediaListEnvelope, 'data'> & { records: MediaRecord[] }> {
  const { data, total } = await deps.store.media.list({
    accountId: query.accountId,
    mediaType: query.mediaType,
    status: query.status,
    notBefore: oldestAlive(deps.clock.now()),
    offset: (query.page - 1) * query.pageSize,
    limit: query.pageSize,
  });
  return { records: data, total, page: query.page, page_size: query.pageSize, has_more: query.page * query.pageSize < total };
}

/** One page of the §2.2 list envelope. */
export async function listMedia(deps: MediaLibraryDeps, query: MediaListQuery & { accountId?: string }): Promise<MediaListEnvelope> {
  const { records, ...counts } = await listMediaRecords(deps, query);
  return { data: records.map(viewMedia), ...counts };
}

/**
 * A live record of the caller. Missing, expired and other accounts' records are all 404
 * (spec §5 rule 3), so ids of other accounts cannot be probed.
 */
export async function getMedia(deps: MediaLibraryDeps, id: string, accountId?: string): Promise<MediaRecord> {
  const record = await deps.store.media.get(id);
  if (!record || (accountId !== undefined && record.accountId !== accountId) || record.created_at < oldestAlive(deps.clock.now())) {
    throw notFound(id);
  }
  return record;
}

/**
 * Runs the changes of one account's library one at a time, so concurrent requests cannot all
 * pass the size check before any of them is stored (/v1/media is not rate limited).
 */
function oneAtATime<T>(deps: MediaLibraryWriter, accountId: string, work: () => Promise<T>): Promise<T> {
  return deps.accountTurns(accountId, work);
}

/** How much of the Media Library limits an account uses (docs/limits.md): counted by the store, no record read. */
export function libraryUsage(deps: MediaLibraryDeps, accountId: string): Promise<LibraryUsage> {
  return deps.store.media.usage(accountId, oldestAlive(deps.clock.now()));
}

/** The account's oldest live records, oldest first (at most `count`). */
async function oldestRecords(deps: MediaLibraryDeps, accountId: string, total: number, count: number): Promise<MediaRecord[]> {
  const { data } = await deps.store.media.list({ accountId, notBefore: oldestAlive(deps.clock.now()), offset: Math.max(0, total - count), limit: Math.min(count, total) });
  return data.reverse();
}

/** Stores a new record if it and the account's library stay within the limits: 413 / 429 otherwise. */
export function createWithinLimits(deps: MediaLibraryWriter, record: MediaRecord): Promise<MediaRecord> {
  checkRecordSize(record);
  return oneAtATime(deps, record.accountId, async () => {
    const usage = await libraryUsage(deps, record.accountId);
    if (!fitsLibrary(usage, 1, recordBytes(record))) throw libraryFull(usage);
    return deps.store.media.create(record);
  });
}

/** A new pending record with no results yet: what a create stores, and a job starts from. */
export function pendingRecord(fields: Pick<MediaRecord, 'id' | 'accountId' | 'media_type' | 'model' | 'prompt' | 'parameters' | 'created_at' | 'provider_task_id'>): MediaRecord {
  return {
    ...fields,
    status: 'pending',
    result_urls: [],
    primary_url: null,
    preview_url: null,
    file_size_bytes: null,
    duration_seconds: null,
    width: null,
    height: null,
    error: null,
    completed_at: null,
    input_tokens: null,
    output_tokens: null,
    cost_credits: null,
  };
}

/** POST /v1/media/generations: a new pending record. */
export async function createMedia(deps: MediaLibraryWriter, accountId: string, input: MediaCreateInput): Promise<MediaRecord> {
  return createWithinLimits(
    deps,
    pendingRecord({
      id: randomUUID(),
      accountId,
      media_type: input.mediaType,
      model: input.model,
      prompt: input.prompt ?? null,
      parameters: input.parameters ?? {},
      created_at: unixSeconds(deps.clock.now()),
      provider_task_id: input.providerTaskId ?? null,
    }),
  );
}

/**
 * PATCH: applies the given fields. Setting status completed or failed stamps completed_at
 * (again on every such PATCH); moving back to pending or processing clears it.
 */
export async function updateMedia(deps: MediaLibraryWriter, id: string, patch: MediaPatch, accountId?: string): Promise<MediaRecord> {
  const current = await getMedia(deps, id, accountId);
  const changes: Partial<MediaRecord> = { ...patch };
  if (patch.status === 'completed' || patch.status === 'failed') changes.completed_at = unixSeconds(deps.clock.now());
  else if (patch.status === 'pending' || patch.status === 'processing') changes.completed_at = null;
  return oneAtATime(deps, current.accountId, async () => {
    const before = await getMedia(deps, id, accountId);
    const after = { ...before, ...changes, id };
    checkRecordSize(after);
    const growth = recordBytes(after) - recordBytes(before);
    if (growth > 0) {
      const usage = await libraryUsage(deps, before.accountId);
      if (!fitsLibrary(usage, 0, growth)) throw libraryFull(usage);
    }
    const next = await deps.store.media.update(id, changes);
    if (!next) throw notFound(id);
    return next;
  });
}

/** DELETE: removes the record only; the media files stay where they are. */
export async function deleteMedia(deps: MediaLibraryDeps, id: string, accountId?: string): Promise<void> {
  await getMedia(deps, id, accountId);
  if (!(await deps.store.media.delete(id))) throw notFound(id);
}

/** Deletes records past their 30 days; returns how many. */
export function purgeExpiredMedia(deps: MediaLibraryDeps): Promise<number> {
  return deps.store.media.purgeCreatedBefore(oldestAlive(deps.clock.now()));
}

/** What the image routes record for a finished generation. */
export interface CompletedImageInput {
  model: string;
  prompt: string;
  parameters: Record<string, unknown>;
  urls: string[];
  width: number | null;
  height: number | null;
  fileSizeBytes: number | null;
  inputTokens?: number;
  outputTokens?: number;
}

/**
 * Stores a record the gateway made itself (the generation already ran and was paid for): when
 * the account's library is full, its oldest records make room instead of the record being lost
 * (never a job's that is still open: its runner would drop the job unbilled).
 */
function createEvictingOldest(deps: MediaLibraryWriter, record: MediaRecord): Promise<MediaRecord> {
  checkRecordSize(record);
  return oneAtATime(deps, record.accountId, async () => {
    const usage = await libraryUsage(deps, record.accountId);
    // The oldest records passed over: jobs still open (running, or not yet billed), whose runner would find them gone.
    let kept = 0;
    while (usage.records - kept > 0 && !fitsLibrary(usage, 1, recordBytes(record))) {
      // Oldest first, a page at a time: only the records that go (or are passed over) are read.
      const page = await oldestRecords(deps, record.accountId, usage.records - kept, 32);
      if (page.length === 0) break;
      for (const oldest of page) {
        if (fitsLibrary(usage, 1, recordBytes(record))) break;
        if (oldest.job?.open) {
          kept += 1;
          continue;
        }
        await deps.store.media.delete(oldest.id);
        usage.records -= 1;
        usage.bytes -= recordBytes(oldest);
      }
    }
    return deps.store.media.create(record);
  });
}

/** Records a generation the gateway ran itself: completed at once, with its result URLs. */
export async function recordCompletedImage(deps: MediaLibraryWriter, accountId: string, input: CompletedImageInput): Promise<MediaRecord> {
  const now = unixSeconds(deps.clock.now());
  return createEvictingOldest(deps, {
    id: randomUUID(),
    accountId,
    media_type: 'image',
    status: 'completed',
    model: input.model,
    prompt: input.prompt,
    parameters: input.parameters,
    result_urls: input.urls,
    primary_url: input.urls[0] ?? null,
    preview_url: null,
    file_size_bytes: input.fileSizeBytes,
    duration_seconds: null,
    width: input.width,
    height: input.height,
    error: null,
    created_at: now,
    completed_at: now,
    provider_task_id: null,
    input_tokens: input.inputTokens ?? null,
    output_tokens: input.outputTokens ?? null,
    cost_credits: null,
  });
}
