import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(full);
    return /\.(ts|tsx|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** `file:line` of every tagged template literal (`tag\`…\``). */
export function findTaggedTemplates(files: string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isTaggedTemplateExpression(node)) found.push(`${path.relative(REPO, file).split(path.sep).join('/')}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
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
    expect(findTaggedTemplates([...sourceFiles(path.join(REPO, 'src')), ...sourceFiles(path.join(REPO, 'plugins'))])).toEqual([]);
  });

  it("dist/'s JavaScript is ASCII only (the test setup builds it)", () => {
    const dist = path.join(REPO, 'dist');
    const scripts = fs.readdirSync(dist).filter((name) => name.endsWith('.mjs'));
    expect(scripts.length).toBeGreaterThan(10);
    const nonAscii = scripts.filter((name) => /[^\x00-\x7f]/.test(fs.readFileSync(path.join(dist, name), 'utf8')));
    expect(nonAscii).toEqual([]);
  });
});
