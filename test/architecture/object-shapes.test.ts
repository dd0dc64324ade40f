import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Object literals with accessors (`{ get x() {…} }`) are made by V8's slow path: about half a
 * microsecond and a dictionary-mode object each time, against a few nanoseconds for a class
 * instance. One made per request cost the chat path ~1 % (13fb164f, found by callgrind in the
 * thirtieth wave). Write a class with prototype getters instead. Listed here: literals made once
 * at start-up, with the reason.
 */
const MADE_ONCE = new Set(['src/server/cap-connections.ts:open (once per server)']);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(full);
    return /\.(ts|tsx|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** `file:name` of every get or set accessor written in an object literal. */
export function findLiteralAccessors(files: string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if ((ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) && ts.isObjectLiteralExpression(node.parent)) {
        found.push(`${path.relative(REPO, file).split(path.sep).join('/')}:${node.name.getText(source)}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe('object shapes', () => {
  it('finds an accessor in an object literal (the check can fail)', () => {
    const dir = fs.mkdtempSync(path.join(REPO, 'test', 'architecture', '.tmp-shapes-'));
    try {
      const file = path.join(dir, 'sample.ts');
      fs.writeFileSync(file, 'export const made = (n: number) => ({ a: n, get b() { return n; } });\nclass Fine { get c() { return 1; } }\n');
      expect(findLiteralAccessors([file])).toEqual([`${path.relative(REPO, file).split(path.sep).join('/')}:b`]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('src/ and plugins/ write no accessor in an object literal but those made once at start-up', () => {
    const found = findLiteralAccessors([...sourceFiles(path.join(REPO, 'src')), ...sourceFiles(path.join(REPO, 'plugins'))]);
    const allowed = new Set([...MADE_ONCE].map((entry) => entry.split(' ')[0]));
    expect(found.filter((entry) => !allowed.has(entry))).toEqual([]);
  });
});
