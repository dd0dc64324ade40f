import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { findInSources, REPO, shippedSources } from './typescript-sources.ts';

/**
 * Object literals with accessors (`{ get x() {…} }`) are made by V8's slow path: about half a
 * microsecond and a dictionary-mode object each time, against a few nanoseconds for a class
 * instance. One made per request cost the chat path ~1 % (13fb164f, found by callgrind in the
 * thirtieth wave). Write a class with prototype getters instead. Listed here: literals made once
 * at start-up, with the reason.
 */
const MADE_ONCE = new Set(['src/server/cap-connections.ts:open (once per server)']);

/** `file:name` of every get or set accessor written in an object literal. */
export function findLiteralAccessors(files: string[]): string[] {
  return findInSources(files, (node, source) =>
    (ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) && ts.isObjectLiteralExpression(node.parent) ? node.name.getText(source) : undefined,
  );
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
    const found = findLiteralAccessors(shippedSources());
    const allowed = new Set([...MADE_ONCE].map((entry) => entry.split(' ')[0]));
    expect(found.filter((entry) => !allowed.has(entry))).toEqual([]);
  });
});
