import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { findInSources, REPO, shippedSources } from './typescript-sources.ts';

/** `file:line` of every tagged template literal (`tag\`…\``). */
export function findTaggedTemplates(files: string[]): string[] {
  return findInSources(files, (node, source) => (ts.isTaggedTemplateExpression(node) ? String(source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1) : undefined));
}

/**
 * The build (tsdown.config.ts) drops comments and escapes every other non-ASCII character of the
 * JavaScript it writes, so V8 holds each module's source at one byte a character (a source with a
 * single `…` is held at two): ~2.7 MB less heap for a serving gateway. The escape keeps a literal's
 * value, but would change the raw text a tagged template's tag reads: src/ has none.
 */
describe('build output', () => {
  it('finds a tagged template (the check can fail)', () => {
    const dir = fs.mkdtempSync(path.join(REPO, 'test', 'architecture', '.tmp-tagged-'));
    try {
      const file = path.join(dir, 'sample.ts');
      fs.writeFileSync(file, 'const a = `plain ${1}`;\nexport const b = String.raw`x\\n${a}`;\n');
      expect(findTaggedTemplates([file])).toEqual([`${path.relative(REPO, file).split(path.sep).join('/')}:2`]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('src/ and plugins/ write no tagged template', () => {
    expect(findTaggedTemplates(shippedSources())).toEqual([]);
  });

  it("dist/'s JavaScript is ASCII only (the test setup builds it)", () => {
    const dist = path.join(REPO, 'dist');
    const scripts = fs.readdirSync(dist).filter((name) => name.endsWith('.mjs'));
    expect(scripts.length).toBeGreaterThan(10);
    const nonAscii = scripts.filter((name) => /[^\x00-\x7f]/.test(fs.readFileSync(path.join(dist, name), 'utf8')));
    expect(nonAscii).toEqual([]);
  });
});
