import { GatewayError } from '../errors/index.ts';
import type { MediaRecord } from '../store/index.ts';

/**
 * Bounds of the Media Library (docs/limits.md, docs/media.md). `/v1/media` is exempt from rate
 * limits and records live 30 days, so what one account may keep is bounded here, in the API
 * layer, whatever the store backend: per field, per record and per account.
 */
export const MEDIA_LIMITS = {
  /** Bytes of a `/v1/media` JSON body (413 above): the largest record fits with room to spare. */
  bodyBytes: 256 * 1024,
  modelChars: 256,
  promptChars: 32_000,
  providerTaskIdChars: 256,
  /** `parameters` as stored (JSON, UTF-8). */
  parametersBytes: 16 * 1024,
  resultUrls: 16,
  urlChars: 4_096,
  errorChars: 4_096,
  /** A whole record as stored (JSON, UTF-8). */
  recordBytes: 128 * 1024,
  /** Live (not expired) records per account. */
  recordsPerAccount: 1_000,
  /** Bytes of all live records of one account, as stored. */
  bytesPerAccount: 8 * 1024 * 1024,
} as const;

const sizes = new WeakMap<MediaRecord, number>();

/** A record's size as stored (JSON, UTF-8), remembered per record object. */
export function recordBytes(record: MediaRecord): number {
  let size = sizes.get(record);
  if (size === undefined) {
    size = Buffer.byteLength(JSON.stringify(record));
    sizes.set(record, size);
  }
  return size;
}

/** What an account's live records take (the store adds it up: `MediaRepo.usage`, in recordBytes units). */
export interface LibraryUsage {
  records: number;
  bytes: number;
}

/** 413 when one record is larger than a record may be. */
export function checkRecordSize(record: MediaRecord): void {
  const size = recordBytes(record);
  if (size > MEDIA_LIMITS.recordBytes) {
    throw new GatewayError('request_too_large', `A Media Library record may take at most ${MEDIA_LIMITS.recordBytes} bytes as stored; this one would take ${size}.`, {
      details: { limit_bytes: MEDIA_LIMITS.recordBytes, record_bytes: size },
    });
  }
}

/** True when `extra` more records and `bytes` more bytes still fit in the account's library. */
export function fitsLibrary(usage: LibraryUsage, extraRecords: number, extraBytes: number): boolean {
  return usage.records + extraRecords <= MEDIA_LIMITS.recordsPerAccount && usage.bytes + extraBytes <= MEDIA_LIMITS.bytesPerAccount;
}

/** 429 quota_exceeded: the account's library is full (records expire after 30 days, or delete some). */
export function libraryFull(usage: LibraryUsage): GatewayError {
  return new GatewayError(
    'quota_exceeded',
    `The Media Library of this account is full (${usage.records} records, ${usage.bytes} bytes; at most ${MEDIA_LIMITS.recordsPerAccount} records and ${MEDIA_LIMITS.bytesPerAccount} bytes). Delete records or wait for them to expire.`,
    { details: { records: usage.records, bytes: usage.bytes, limit_records: MEDIA_LIMITS.recordsPerAccount, limit_bytes: MEDIA_LIMITS.bytesPerAccount } },
  );
}
