import fs from 'node:fs';
import path from 'node:path';
import { FILE_MODE } from '../util/index.ts';

/** `20261123T210000Z` for a time: sortable, no characters a file system minds. */
export function backupStamp(now = new Date()): string {
  return now.toISOString().replace(/\.\d+Z$/, 'Z').replace(/[-:]/g, '');
}

function sameBytes(a: string, b: string): boolean {
  try {
    const sa = fs.statSync(a);
    const sb = fs.statSync(b);
    return sa.size === sb.size && fs.readFileSync(a).equals(fs.readFileSync(b));
  } catch {
    return false;
  }
}

/** The backups of `file`, oldest first. */
export function listBackups(file: string): string[] {
  const base = path.basename(file);
  let names: string[];
  try {
    names = fs.readdirSync(path.dirname(file));
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(`${base}.bak-`))
    .sort()
    .map((n) => path.join(path.dirname(file), n));
}

/**
 * Keeps a dated copy of `file` (`<file>.bak-20261123T210000Z`, 0600) before a migration or
 * repair touches it; returns its path. With `reuse`, an existing newest backup with the
 * same bytes is returned instead of a second copy (a server that keeps failing to start).
 */
export function backupFile(file: string, options: { reuse?: boolean; now?: Date } = {}): string {
  if (options.reuse) {
    const newest = listBackups(file).at(-1);
    if (newest && sameBytes(file, newest)) return newest;
  }
  const stem = `${file}.bak-${backupStamp(options.now)}`;
  let target = stem;
  for (let n = 2; fs.existsSync(target); n++) target = `${stem}-${n}`;
  fs.copyFileSync(file, target, fs.constants.COPYFILE_EXCL);
  fs.chmodSync(target, FILE_MODE);
  return target;
}
