/**
 * The docs a newcomer walks (README's house drawing, docs/adding-a-format.md, the plugin guide,
 * the exchange and formats docs) describe the layout as it is: every `src/…`, `test/…` and
 * `plugins/…` path they name exists, the drawing names every folder under src/ and every
 * first-party plugin, and nothing it names is gone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const WALKED = ['README.md', 'docs/adding-a-format.md', 'docs/plugins.md', 'docs/exchange.md', 'docs/formats.md'];

function read(file: string): string {
  return fs.readFileSync(path.join(REPO, file), 'utf8');
}

/** README's "How it is built" drawing. */
function drawing(): string {
  const readme = read('README.md');
  const at = readme.indexOf('## How it is built');
  const start = readme.indexOf('```text\n', at) + '```text\n'.length;
  return readme.slice(start, readme.indexOf('```', start));
}

/** The repository paths a text names: `src/…`, `test/…`, `plugins/…` (placeholders such as `<id>` and globs left out). */
function pathsIn(text: string): string[] {
  const found = [...text.matchAll(/(?<![\w./-])((?:src|test|plugins)\/[\w./-]*[\w/])/g)].map((m) => m[1]!);
  return [...new Set(found)].filter((p) => !/[<>{}*]/.test(p));
}

const SRC_FOLDERS = fs.readdirSync(path.join(REPO, 'src'), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);

/** Source files a text names from their folder (`server/routes/inference.ts`, `exchange/hold-end.ts`): under src/ (or the repo root: `config/…`). */
function folderFilesIn(text: string): string[] {
  const pattern = new RegExp(`(?<![\\w./-])((?:${SRC_FOLDERS.join('|')})/[\\w./-]*\\.tsx?)(?![\\w])`, 'g');
  return [...new Set([...text.matchAll(pattern)].map((m) => m[1]!))];
}

describe('the layout the docs describe', () => {
  it.each(WALKED)('every src/, test/ and plugins/ path %s names exists', (file) => {
    const text = read(file);
    const paths = pathsIn(text);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((p) => !fs.existsSync(path.join(REPO, p)))).toEqual([]);
    expect(folderFilesIn(text).filter((p) => !fs.existsSync(path.join(REPO, 'src', p)) && !fs.existsSync(path.join(REPO, p)))).toEqual([]);
  });

  it("README's drawing names every folder under src/ and every first-party plugin", () => {
    const drawn = drawing();
    const folders = SRC_FOLDERS.map((name) => `src/${name}`);
    expect(folders.filter((folder) => !new RegExp(`(^|[\\s,])${folder}(?![\\w-])`).test(drawn))).toEqual([]);
    const plugins = fs.readdirSync(path.join(REPO, 'plugins'), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    const line = /^plugins\/\s+.*\(([^)]*)\)/m.exec(drawn)?.[1] ?? '';
    expect(line.split(/,\s*/).sort()).toEqual(plugins.sort());
  });

  it("README's drawing names no top-level folder or file that is not there (dist/ is the build's)", () => {
    const tops = [...drawing().matchAll(/^([\w.-]+\/(?:[\w.-]+)?)\s/gm)].map((m) => m[1]!).filter((top) => top !== 'dist/');
    expect(tops.length).toBeGreaterThan(5);
    expect(tops.filter((top) => !fs.existsSync(path.join(REPO, top)))).toEqual([]);
  });
});
