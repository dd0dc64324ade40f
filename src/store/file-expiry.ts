import type { FileRecord } from './types.ts';

/**
 * Whether a file's `expires_at` (seconds) has come at `nowMs`: it is gone to its owner from that
 * moment (the sweep that deletes it runs every few minutes: src/batches/expire-files.ts).
 */
export function isFileExpired(record: Pick<FileRecord, 'expires_at'>, nowMs: number): boolean {
  return record.expires_at !== null && record.expires_at * 1000 <= nowMs;
}
