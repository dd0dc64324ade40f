import fs from 'node:fs';
import path from 'node:path';
import { syncDir } from './file/index.ts';

/**
 * `gateway store migrate` leaves this file in the data dir it copied: on the file store that
 * data dir's balances would drift from the database's, so opening it as a file store stops.
 */
export const MIGRATED_MARKER = 'migrated-to-postgres.json';

/**
 * Marks `dataDir` as copied to `to` (a URL as it may be shown, no password) at `at` (ms): written
 * whole to a side file, synced, renamed, the directory synced, so a power loss right after the
 * copy cannot leave the data dir unmarked (then opened as a file store, its balances drifting).
 */
export async function markMigrated(dataDir: string, to: string, at: number): Promise<void> {
  const file = path.join(dataDir, MIGRATED_MARKER);
  const side = `${file}.${process.pid}.tmp`;
  const handle = await fs.promises.open(side, 'w', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify({ to, at })}\n`);
    await handle.datasync();
  } finally {
    await handle.close();
  }
  await fs.promises.rename(side, file);
  await syncDir(dataDir);
}

/** Where and when `dataDir` was copied, or undefined when it was not (an unreadable marker still counts). */
export function migratedTo(dataDir: string): { to: string; at: number } | undefined {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dataDir, MIGRATED_MARKER), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as { to?: unknown; at?: unknown };
    return { to: typeof parsed.to === 'string' ? parsed.to : 'PostgreSQL', at: typeof parsed.at === 'number' ? parsed.at : NaN };
  } catch {
    return { to: 'PostgreSQL', at: NaN };
  }
}

/** The one line that stops a file store on a migrated data dir. */
export function migratedDataDirError(dataDir: string, moved: { to: string; at: number }): Error {
  const when = Number.isFinite(moved.at) ? ` on ${new Date(moved.at).toISOString()}` : '';
  return new Error(
    `store: ${dataDir} was copied to ${moved.to}${when} (gateway store migrate); on the file store its balances would drift from the database's: set store.postgres in the config (or move ${path.join(dataDir, MIGRATED_MARKER)} away to use it as a file store anyway)`,
  );
}
