import { z } from 'zod';
import { TIERS } from '../ir/index.ts';
import type { AccountRecord, ApiKeyRecord, BatchRecord, FileRecord, MediaRecord, SessionRecord } from './types.ts';

/*
 * What stored records must look like when they are read back (db.json, media.jsonl,
 * responses/). Objects are loose: fields this code does not know are kept, never stripped,
 * so data written by a sibling feature survives a round trip. A field added to a record type
 * in types.ts must be added here too: the type checks at the bottom fail until it is.
 */

const finite = z.number().refine(Number.isFinite, 'expected a finite number');
const ms = z.number().int().nonnegative();
const nullableInt = z.number().int().nullable();

const accountShape = {
  id: z.string().min(1),
  email: z.string(),
  passwordHash: z.string().nullable(),
  tier: z.enum(TIERS),
  credits: finite,
  monthlyTokenQuota: z.number().nonnegative().nullable(),
  suspended: z.boolean(),
  rpm: nullableInt,
  createdAt: ms,
  billedSeq: z.number().int().nonnegative().optional(),
  spendCap: finite.nonnegative().nullable().optional(),
};

const apiKeyShape = {
  id: z.string().min(1),
  accountId: z.string().min(1),
  name: z.string(),
  hash: z.string().regex(/^[0-9a-f]{64}$/, 'expected a sha256 hex digest'),
  preview: z.string(),
  rpm: nullableInt,
  expiresAt: z.number().nullable(),
  revokedAt: z.number().nullable(),
  createdAt: ms,
  models: z.array(z.string()).nullable().optional(),
  // Any group name: a plugin's wire format is one too, and the store is read before plugins load.
  endpoints: z.array(z.string().min(1).max(40)).nullable().optional(),
  limit: finite.nonnegative().nullable().optional(),
  limitReset: z.enum(['daily', 'weekly', 'monthly']).nullable().optional(),
  lastUsedAt: z.number().nullable().optional(),
};

const sessionShape = {
  id: z.string().min(1),
  accountId: z.string().min(1),
  hash: z.string().regex(/^[0-9a-f]{64}$/, 'expected a sha256 hex digest'),
  createdAt: ms,
  expiresAt: z.number(),
};

const fileShape = {
  id: z.string().min(1),
  accountId: z.string().min(1),
  bytes: z.number().int().nonnegative(),
  created_at: z.number().int(),
  expires_at: z.number().int().nullable(),
  filename: z.string(),
  purpose: z.string(),
  mimeType: z.string().optional(),
};

const seconds = z.number().int();
const nullableSeconds = seconds.nullable();

const batchShape = {
  id: z.string().min(1),
  accountId: z.string().min(1),
  keyId: z.string().nullable(),
  endpoint: z.string(),
  input_file_id: z.string(),
  completion_window: z.string(),
  status: z.enum(['validating', 'failed', 'in_progress', 'finalizing', 'completed', 'expired', 'cancelling', 'cancelled']),
  output_file_id: z.string().nullable(),
  error_file_id: z.string().nullable(),
  errors: z
    .object({
      object: z.literal('list'),
      data: z.array(z.object({ code: z.string(), message: z.string(), line: z.number().int().nullable(), param: z.string().nullable() })),
    })
    .nullable(),
  created_at: seconds,
  in_progress_at: nullableSeconds,
  expires_at: seconds,
  finalizing_at: nullableSeconds,
  completed_at: nullableSeconds,
  failed_at: nullableSeconds,
  expired_at: nullableSeconds,
  cancelling_at: nullableSeconds,
  cancelled_at: nullableSeconds,
  request_counts: z.object({ total: z.number().int().nonnegative(), completed: z.number().int().nonnegative(), failed: z.number().int().nonnegative() }),
  metadata: z.record(z.string(), z.string()).nullable(),
  mode: z.enum(['emulated', 'native']),
  native: z.record(z.string(), z.unknown()).nullable(),
  lease: z.object({ owner: z.string(), expiresAt: z.number() }).nullable(),
  face: z.enum(['messages', 'gemini']).optional(),
  deletedAt: z.number().optional(),
  model: z.string().optional(),
  displayName: z.string().optional(),
  inputFile: z.string().optional(),
  responsesDeletedAt: z.number().optional(),
  responsesBytes: z.number().int().nonnegative().optional(),
  resultCounts: z
    .object({ succeeded: z.number().int().nonnegative(), errored: z.number().int().nonnegative(), canceled: z.number().int().nonnegative(), expired: z.number().int().nonnegative() })
    .optional(),
};

const nullableNumber = z.number().nullable();

const mediaShape = {
  id: z.string().min(1),
  accountId: z.string().min(1),
  media_type: z.enum(['image', 'video', 'music', 'threed']),
  status: z.enum(['pending', 'processing', 'completed', 'failed']),
  model: z.string(),
  prompt: z.string().nullable(),
  parameters: z.record(z.string(), z.unknown()),
  result_urls: z.array(z.string()),
  primary_url: z.string().nullable(),
  preview_url: z.string().nullable(),
  file_size_bytes: nullableNumber,
  duration_seconds: nullableNumber,
  width: nullableNumber,
  height: nullableNumber,
  error: z.string().nullable(),
  created_at: z.number().int(),
  completed_at: z.number().int().nullable(),
  provider_task_id: z.string().nullable(),
  input_tokens: nullableNumber,
  output_tokens: nullableNumber,
  cost_credits: nullableNumber,
  job: z
    .object({ open: z.boolean(), lease: z.object({ owner: z.string(), expiresAt: z.number() }).nullable(), state: z.record(z.string(), z.unknown()) })
    .nullable()
    .optional(),
};

export const accountRecordSchema = z.looseObject(accountShape);
export const apiKeyRecordSchema = z.looseObject(apiKeyShape);
export const sessionRecordSchema = z.looseObject(sessionShape);
export const fileRecordSchema = z.looseObject(fileShape);
export const batchRecordSchema = z.looseObject(batchShape);
export const mediaRecordSchema = z.looseObject(mediaShape);

/** db.json at the current schema version: the small, hot collections. */
export const dbFileSchema = z.looseObject({
  version: z.number().int().nonnegative(),
  accounts: z.array(accountRecordSchema),
  apiKeys: z.array(apiKeyRecordSchema),
  sessions: z.array(sessionRecordSchema),
  files: z.array(fileRecordSchema),
  batches: z.array(batchRecordSchema),
  deletedFiles: z.array(z.object({ accountId: z.string(), id: z.string() })).optional(),
});

/** One stored Response file. */
export const storedResponseSchema = z.object({
  id: z.string().min(1),
  accountId: z.string().min(1),
  createdAt: z.number(),
  request: z.record(z.string(), z.unknown()),
  response: z.record(z.string(), z.unknown()),
});

/** The first problem zod found, as `path: message`, plus how many more there are. */
export function describeIssues(error: z.ZodError): string {
  const [first] = error.issues;
  const where = first.path.length === 0 ? 'the top level' : formatPath(first.path);
  const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more problem${error.issues.length > 2 ? 's' : ''})` : '';
  return `${where}: ${first.message.replace(/^Invalid input: /, '')}${more}`;
}

function formatPath(path: PropertyKey[]): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : `${out ? '.' : ''}${String(part)}`;
  return out;
}

// Compile-time: each shape describes exactly its record type (fails typecheck when one changes alone).
type Shape<S extends z.ZodRawShape> = z.infer<z.ZodObject<S>>;
type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Same fields (optional ones included) of mutually assignable types. */
type Same<A, B> = Mutual<A, B> extends true ? Mutual<keyof A, keyof B> : false;
const checks: [
  Same<Shape<typeof accountShape>, AccountRecord>,
  Same<Shape<typeof apiKeyShape>, ApiKeyRecord>,
  Same<Shape<typeof sessionShape>, SessionRecord>,
  Same<Shape<typeof fileShape>, FileRecord>,
  Same<Shape<typeof mediaShape>, MediaRecord>,
  Same<Shape<typeof batchShape>, BatchRecord>,
] = [true, true, true, true, true, true];
void checks;
