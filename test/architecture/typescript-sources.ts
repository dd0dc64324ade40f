import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** The TypeScript sources below `dir` (declarations and node_modules left out). */
export function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(full);
    return /\.(ts|tsx|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** src/ and plugins/: the code that ships. */
export const shippedSources = (): string[] => [...sourceFiles(path.join(REPO, 'src')), ...sourceFiles(path.join(REPO, 'plugins'))];

/** `file:<what found says>` for every node of `files` that `found` names (a string), the file relative to the repository. */
export function findInSources(files: string[], found: (node: ts.Node, source: ts.SourceFile) => string | undefined): string[] {
  const out: string[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      const what = found(node, source);
      if (what !== undefined) out.push(`${path.relative(REPO, file).split(path.sep).join('/')}:${what}`);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}
