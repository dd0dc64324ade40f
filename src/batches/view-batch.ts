import { GatewayError } from '../errors/index.ts';
import type { Store } from '../store/index.ts';
import type { BatchRecord } from '../store/index.ts';
import type { Clock } from '../util/index.ts';
import { newId } from '../util/index.ts';
import { finishBatch } from './finish-batch.ts';

const seconds = (ms: number) => Math.floor(ms / 1000);

/** A batch record as OpenAI's batch object (the lease and the gateway's own fields stay inside). */
/** OpenAI's batch object. */
export type BatchView = Omit<BatchRecord, 'accountId' | 'keyId' | 'mode' | 'native' | 'lease'> & { object: 'batch' };

export function viewBatch(b: BatchRecord): BatchView {
  return {
    id: b.id,
    object: 'batch',
    endpoint: b.endpoint,
    errors: b.errors,
    input_file_id: b.input_file_id,
    completion_window: b.completion_window,
    status: b.status,
    output_file_id: b.output_file_id,
    error_file_id: b.error_file_id,
    created_at: b.created_at,
    in_progress_at: b.in_progress_at,
    expires_at: b.expires_at,
    finalizing_at: b.finalizing_at,
    completed_at: b.completed_at,
    failed_at: b.failed_at,
    expired_at: b.expired_at,
    cancelling_at: b.cancelling_at,
    cancelled_at: b.cancelled_at,
    request_counts: b.request_counts,
    metadata: b.metadata,
  };
}

/** What a new batch is made of; the rest of its record starts empty (`validating`, no files, no times). */
export type NewBatch = Pick<BatchRecord, 'id' | 'accountId' | 'keyId' | 'endpoint' | 'input_file_id' | 'completion_window' | 'created_at' | 'metadata'> &
  Partial<Pick<BatchRecord, 'face' | 'model' | 'displayName' | 'inputFile'>> & {
  windowSeconds: number;
  /** Requests in the input file, when known before it is checked. */
  total?: number;
};

/** A new batch's record, before its input file is checked (`validating`). */
export function newBatchRecord(b: NewBatch): BatchRecord {
  const { windowSeconds: window, total = 0, face, model, displayName, inputFile, ...given } = b;
  const record: BatchRecord = {
    ...given,
    status: 'validating',
    output_file_id: null,
    error_file_id: null,
    errors: null,
    in_progress_at: null,
    expires_at: b.created_at + window,
    finalizing_at: null,
    completed_at: null,
    failed_at: null,
    expired_at: null,
    cancelling_at: null,
    cancelled_at: null,
    request_counts: { total, completed: 0, failed: 0 },
    mode: 'emulated',
    native: null,
    lease: null,
  };
  // The face's own fields only when set: a plain batch's record keeps the keys it always had.
  if (face) record.face = face;
  if (model !== undefined) record.model = model;
  if (displayName !== undefined) record.displayName = displayName;
  if (inputFile !== undefined) record.inputFile = inputFile;
  return record;
}

/** Finished states: nothing more happens to the batch. */
export const FINISHED = new Set(['failed', 'completed', 'expired', 'cancelled']);

/** `24h`, `90m`, `30s` → seconds (at most 24 h); undefined when not that form. */
export function windowSeconds(window: string): number | undefined {
  const m = /^(\d{1,6})([smh])$/.exec(window);
  if (!m) return undefined;
  const seconds = Number(m[1]) * (m[2] === 'h' ? 3600 : m[2] === 'm' ? 60 : 1);
  return seconds > 0 && seconds <= 86_400 ? seconds : undefined;
}

/**
 * Cancels a batch (§3.2): `cancelling` now, `cancelled` once lines in flight end; 409 when it
 * has finished. When no instance holds the batch (no server runs, or none has taken it yet),
 * an emulated batch is finished here and now: its output and error files hold the lines that
 * finished, so a cancel without a running server never leaves it `cancelling`.
 */
export async function cancelBatch(deps: { store: Store; clock: Clock }, batch: BatchRecord): Promise<BatchRecord> {
  if (FINISHED.has(batch.status)) throw new GatewayError('conflict', `The batch is ${batch.status}; only a batch that has not finished can be cancelled.`);
  const { store, clock } = deps;
  const cancelling = batch.status === 'cancelling' ? batch : (await store.batches.update(batch.id, { status: 'cancelling', cancelling_at: seconds(clock.now()) }))!;
  if (cancelling.mode === 'native') return cancelling;
  // The lease is what says nobody runs it; taking it keeps an executor from starting meanwhile.
  const owner = newId('cancel', 12);
  const held = await store.batches.claim(batch.id, owner, clock.now(), CANCEL_LEASE_MS);
  if (!held) return cancelling;
  return finishBatch(deps, held, { status: 'cancelled' });
}

const CANCEL_LEASE_MS = 60_000;
