import fs from 'node:fs';
import path from 'node:path';

/** Every file in a data dir: owner read/write only (it holds key hashes, prompts, balances). */
export const FILE_MODE = 0o600;
/** Every directory in a data dir: owner only. */
export const DIR_MODE = 0o700;

/** Creates a directory (and parents) owner-only; an existing one is tightened. */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  tighten(dir, DIR_MODE);
}

function tighten(target: string, mode: number): string | undefined {
  try {
    const stat = fs.lstatSync(target);
    if (stat.isSymbolicLink()) return undefined;
    if ((stat.mode & 0o777) !== mode) fs.chmodSync(target, mode);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    return `${target}: ${code ?? String(error)}`;
  }
}

/**
 * Tightens a data dir made by an older gateway (or by hand): the dir to 0700, and of its
 * entries those `owned` names (the gateway's own files and folders; anything else a user
 * keeps there is left alone) — directories to 0700 with everything under them, files to
 * 0600. Symbolic links are left alone. Returns the paths that could not be changed (e.g.
 * owned by another user), for a warning.
 */
export function securePrivateTree(root: string, owned: (name: string, isDirectory: boolean) => boolean = () => true): string[] {
  const problems: string[] = [];
  ensurePrivateDir(root);
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    const top = dir === root;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      problems.push(`${dir}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
      continue;
    }
    for (const entry of entries) {
      if (top && !owned(entry.name, entry.isDirectory())) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        const problem = tighten(full, DIR_MODE);
        if (problem) problems.push(problem);
        pending.push(full);
      } else if (entry.isFile()) {
        const problem = tighten(full, FILE_MODE);
        if (problem) problems.push(problem);
      }
    }
  }
  return problems;
}
