import { z } from 'zod';

const GIB = 1024 * 1024 * 1024;

/**
 * `storage`: what uploads and stored records may take (docs/limits.md, "Uploads and storage").
 * Uploads stream to disk, so memory is bounded per upload; these bound how many run at once and
 * how much one account may keep.
 */
export const storageConfigSchema = z
  .strictObject({
    /** Uploads (`POST /v1/files`) being received at once by this instance (503 beyond). */
    uploadsConcurrency: z.number().int().positive().max(1024).default(4),
    /** Uploads one account may have in flight at once on this instance (429 beyond). */
    uploadsPerAccount: z.number().int().positive().max(1024).default(2),
    /** Resumable uploads (Gemini's Files API) one account may have open at once, on every instance together (429 `quota_exceeded` beyond); each is a record for an hour. */
    openUploadsPerAccount: z.number().int().positive().max(100_000).default(100),
    /** Bytes of files one account may keep (429 `quota_exceeded` beyond); default 10 GiB. */
    fileQuotaBytes: z.number().int().positive().default(10 * GIB),
    /** Bytes of stored Responses one account may keep (a new `store: true` request is 429 `quota_exceeded` beyond); default 1 GiB. */
    responsesQuotaBytes: z.number().int().positive().default(GIB),
  })
  .prefault({});

export type StorageConfig = z.output<typeof storageConfigSchema>;
