import fs from 'node:fs';
import path from 'node:path';
import { readLogLines } from '../util/index.ts';
import type { RecordCounts } from './postgres/copy-records.ts';
import { roundMicro } from './postgres/copy-records.ts';
import type { DbData } from './types.ts';

/** What a data dir holds, read without opening the store (nothing is written, a running server is not disturbed). */
export interface DataDirCounts {
  /** db.json's `version`; 0 when there is no db.json yet. */
  schemaVersion: number;
  counts: RecordCounts;
}

/** A data dir that cannot be read as one: one line naming the file. */
export class DataDirReadError extends Error {
  override name = 'DataDirReadError';
}

/** Live records of the media log: the last `put` of an id not deleted after it. */
function countMediaLog(file: string): number {
  const live = new Set<string>();
  readLogLines(file, (line) => {
    let value: { put?: { id?: unknown }; del?: unknown };
    try {
      value = JSON.parse(line.text) as typeof value;
    } catch {
      return; // a torn or garbage line: the store sets it aside at its next start
    }
    if (value.put && typeof value.put.id === 'string') live.add(value.put.id);
    else if (typeof value.del === 'string') live.delete(value.del);
    else if (Array.isArray(value.del)) for (const id of value.del) live.delete(String(id));
  });
  return live.size;
}

/** Finished lines of a batch's progress file (the first line of an index wins, as in the store). */
function countBatchLines(file: string): number {
  const seen = new Set<number>();
  readLogLines(file, (line) => {
    try {
      const value = JSON.parse(line.text) as { index?: unknown };
      if (typeof value.index === 'number') seen.add(value.index);
    } catch {
      // cut short by a crash: that line runs again
    }
  });
  return seen.size;
}

function listDir(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/**
 * Counts the records of a data dir from its files, read only: db.json (written whole and
 * renamed, so always one consistent version), the media log, stored responses, file contents
 * and batch progress. Safe while a server runs on the directory.
 */
export function countDataDir(dataDir: string): DataDirCounts {
  const dbFile = path.join(dataDir, 'db.json');
  let data: Partial<DbData> & { media?: unknown[] } = {};
  let schemaVersion = 0;
  if (fs.existsSync(dbFile)) {
    try {
      data = JSON.parse(fs.readFileSync(dbFile, 'utf8')) as typeof data;
    } catch (error) {
      throw new DataDirReadError(`${dbFile} is not valid JSON (${(error as Error).message.split('\n')[0]})`);
    }
    if (!data || typeof data !== 'object' || Array.isArray(data)) throw new DataDirReadError(`${dbFile} is not a gateway database (not an object)`);
    schemaVersion = typeof data.version === 'number' ? data.version : 1;
  }
  const list = <T>(value: T[] | undefined): T[] => (Array.isArray(value) ? value : []);
  const accounts = list(data.accounts);
  const files = list(data.files);
  let fileBytes = 0;
  for (const f of files) {
    try {
      fileBytes += fs.statSync(path.join(dataDir, 'files', f.id)).size;
    } catch {
      // a record without contents: `store migrate` stops on it with its name
    }
  }
  let batchLines = 0;
  for (const name of listDir(path.join(dataDir, 'batches'))) if (name.endsWith('.jsonl')) batchLines += countBatchLines(path.join(dataDir, 'batches', name));
  return {
    schemaVersion,
    counts: {
      accounts: accounts.length,
      keys: list(data.apiKeys).length,
      sessions: list(data.sessions).length,
      // A version-1 db.json still holds the Media Library itself (moved to media.jsonl at the next start).
      media: list(data.media).length + countMediaLog(path.join(dataDir, 'media.jsonl')),
      responses: listDir(path.join(dataDir, 'responses')).filter((n) => n.endsWith('.json')).length,
      conversations: listDir(path.join(dataDir, 'conversations')).filter((n) => n.endsWith('.jsonl')).length,
      files: files.length,
      fileBytes,
      batches: list(data.batches).length,
      batchLines,
      credits: roundMicro(accounts.reduce((sum, a) => sum + (Number.isFinite(a.credits) ? a.credits : 0), 0)),
    },
  };
}
