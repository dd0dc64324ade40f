import { dbFileSchema, describeIssues, mediaRecordSchema } from './record-schemas.ts';
import type { DbData, MediaRecord } from './types.ts';

/**
 * The schema version this code writes.
 * 1: one db.json with every collection. 2: Media Library records move to media.jsonl.
 */
export const SCHEMA_VERSION = 2;

/** db.json holds data this code cannot take as it is: the server must stop and keep the file. */
export class DbShapeError extends Error {}

/** An empty database at the current version. */
export function emptyDb(): DbData {
  return { version: SCHEMA_VERSION, accounts: [], apiKeys: [], sessions: [], files: [], batches: [] };
}

export interface MigrationResult {
  data: DbData;
  /** The version the file was at. */
  from: number;
  /** Media Library records that lived in db.json (version 1) and go to the media log now. */
  media: MediaRecord[];
  /** True when the file must be rewritten (a migration, or a missing collection filled in). */
  changed: boolean;
}

const COLLECTIONS = ['accounts', 'apiKeys', 'sessions', 'files', 'batches'] as const;

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * Brings stored data up to SCHEMA_VERSION and checks every record. Anything unexpected (not
 * an object, a collection that is not a list, a record with a wrong field, a newer version)
 * throws DbShapeError naming the first problem; nothing is reset or dropped. A collection
 * that is missing altogether is filled in empty (an older file), which counts as a change.
 */
export function migrate(raw: unknown): MigrationResult {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new DbShapeError(`expected an object with "version", "accounts", "apiKeys", …; found ${kindOf(raw)}`);
  }
  const data: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  const stored = data.version;
  if (stored !== undefined && (typeof stored !== 'number' || !Number.isInteger(stored) || stored < 0)) {
    throw new DbShapeError(`"version" must be a whole number; found ${JSON.stringify(stored)}`);
  }
  const from = stored ?? 0;
  if (from > SCHEMA_VERSION) {
    throw new DbShapeError(`written by a newer gateway (schema ${from}; this one reads up to ${SCHEMA_VERSION}); upgrade the gateway`);
  }
  let media: MediaRecord[] = [];
  if (from < 2 && data.media !== undefined) {
    // 1 → 2: the Media Library leaves db.json for its own append-only file.
    if (!Array.isArray(data.media)) throw new DbShapeError(`"media" must be a list; found ${kindOf(data.media)}`);
    const parsed = mediaRecordSchema.array().safeParse(data.media);
    if (!parsed.success) throw new DbShapeError(describeIssues(prefixed(parsed.error, 'media')));
    media = parsed.data as MediaRecord[];
  }
  if (from < 2) delete data.media;
  let changed = from !== SCHEMA_VERSION;
  for (const name of COLLECTIONS) {
    if (data[name] === undefined) {
      data[name] = [];
      changed = true;
    }
  }
  data.version = SCHEMA_VERSION;
  const checked = dbFileSchema.safeParse(data);
  if (!checked.success) throw new DbShapeError(describeIssues(checked.error));
  return { data: checked.data as unknown as DbData, from, media, changed };
}

function prefixed<E extends { issues: Array<{ path: PropertyKey[] }> }>(error: E, key: string): E {
  for (const issue of error.issues) issue.path = [key, ...issue.path];
  return error;
}
