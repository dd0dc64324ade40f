import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findDeepImports, findFileCycles, findFolderCycles, findForeignInstanceof, findUpwardImports, folderOf, readImports, srcAliases, type ImportEdge } from './import-graph.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The house, bottom to top. A folder may import from its own layer and the layers below it,
 * never from one above; a new folder under src/ must be placed here before it can be imported.
 */
const LAYERS: string[][] = [
  // internal types and shared utilities: import nothing above
  ['ir', 'util', 'errors', 'sse'],
  // transport, wire formats, config, records, the public plugin kit, observability (metrics, traces, request log)
  ['upstream', 'formats', 'config', 'store', 'plugin-kit', 'observability'],
  // the plugin host and the model catalog
  ['providers', 'catalog'],
  // routing state, usage index, prices, limiters, stored responses, the credit engine
  ['routing', 'usage', 'billing', 'limits', 'responses-store', 'credits'],
  // the request pipeline (route, call, relay)
  ['pipeline'],
  // request guards on accounts; media calls through the pipeline
  ['accounts', 'media'],
  // one exchange: admit, run the pipeline, settle, end the answer once its records are durable
  ['exchange'],
  // batches (their lines are exchanges); media jobs
  ['batches', 'jobs'],
  // admin procedures
  ['admin'],
  // HTTP routes
  ['server'],
  // the TUI (talks only to the admin procedures)
  ['tui'],
  // composition root
  ['app'],
  // command line
  ['cli'],
  // the package entry
  ['index.ts'],
];

/** What the TUI may import besides itself: the admin procedures' types and the bottom layer. */
const TUI_MAY_IMPORT = new Set(['tui', 'admin', 'util', 'errors', 'ir']);

/** The package's own names (tsconfig `paths`: `gateway`, `gateway/plugin-kit`), as files under src/. */
const SELF_NAMES = srcAliases(REPO);
const srcEdges = readImports(path.join(REPO, 'src'), SELF_NAMES);

/** The import statements of a file (what it names from other modules), for checks on named bindings. */
function importClauses(file: string): string {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?from\s*['"][^'"]+['"]/g)].map((m) => m[0]).join('\n');
}

describe('import graph of src/', () => {
  it('has no import that runs up the layers', () => {
    expect(findUpwardImports(srcEdges, LAYERS)).toEqual([]);
  });

  it('is the house the README draws ("Imports point one way, bottom to top: …")', () => {
    const readme = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
    const drawn = /Imports point one way, bottom to top: ([^.]*)\./.exec(readme)?.[1] ?? '';
    const layers = drawn.split('→').map((layer) => [...layer.matchAll(/`([^`]+)`/g)].map((m) => m[1]));
    expect(layers).toEqual(LAYERS.slice(0, -1)); // the package entry (index.ts) is not drawn
  });

  it('has no folder cycle', () => {
    expect(findFolderCycles(srcEdges)).toEqual([]);
  });

  it('has no file cycle, type imports included', () => {
    expect(findFileCycles(srcEdges)).toEqual([]);
  });

  it('imports other folders only through their index.ts', () => {
    expect(findDeepImports(srcEdges)).toEqual([]);
  });

  it("never uses instanceof on another folder's class (a port method or the folder's isX() instead)", () => {
    expect(findForeignInstanceof(path.join(REPO, 'src'), SELF_NAMES)).toEqual([]);
  });

  it('lets only src/exchange run the pipeline or call its decode and prepare steps (every route, batch line and native batch hands over a call)', () => {
    const steps = /\b(runChat|decodeInbound|prepareCall)\b/;
    const offending = srcEdges
      .filter((e) => e.to !== undefined && folderOf(e.to) === 'pipeline' && folderOf(e.from) !== 'pipeline' && folderOf(e.from) !== 'exchange')
      .map((e) => e.from)
      .filter((file, i, all) => all.indexOf(file) === i && steps.test(importClauses(path.join(REPO, 'src', file))))
      .map((file) => `${file} uses the pipeline's ${steps.exec(importClauses(path.join(REPO, 'src', file)))![1]}`);
    expect(offending).toEqual([]);
  });

  it('lets only the composition root (src/app) pick the credit engine, and the guards never branch on it', () => {
    const engines = /\b(openInProcessCredits|openSharedCredits|InProcessCredits|SharedCredits)\b/;
    const picking = srcEdges
      .filter((e) => !e.typeOnly && e.to !== undefined && folderOf(e.to) === 'credits' && folderOf(e.from) !== 'credits' && folderOf(e.from) !== 'app')
      .map((e) => e.from)
      .filter((file, i, all) => all.indexOf(file) === i && engines.test(importClauses(path.join(REPO, 'src', file)).replace(/\btype\s+\w+/g, '')))
      .map((file) => `${file} picks a credit engine (${engines.exec(importClauses(path.join(REPO, 'src', file)))![1]})`);
    expect(picking).toEqual([]);
    const guards = fs.readFileSync(path.join(REPO, 'src/accounts/account-guards.ts'), 'utf8');
    expect(guards.split('\n').filter((line) => /shared|SharedCredits|InProcessCredits|store\.credits|ledger!/.test(line))).toEqual([]);
  });

  it('lets the TUI reach the server only through the admin procedures', () => {
    const offending = srcEdges
      .filter((e) => folderOf(e.from) === 'tui' && e.to !== undefined && !TUI_MAY_IMPORT.has(folderOf(e.to)))
      .map((e) => `${e.from} imports ${e.specifier}`);
    expect(offending).toEqual([]);
  });

  it('reads imports the way they are written (type, dynamic, re-export, multi-line)', () => {
    const edges = srcEdges.filter((e) => e.from === 'cli/commands/tui.ts');
    expect(edges.some((e) => e.to === 'tui/index.ts')).toBe(true); // dynamic import()
    expect(srcEdges.some((e) => e.from === 'plugin-kit/index.ts' && e.to === 'upstream/index.ts')).toBe(true); // export … from
    expect(srcEdges.some((e) => e.typeOnly)).toBe(true);
  });
});

describe('the checks themselves', () => {
  const edge = (from: string, to: string, typeOnly = false): ImportEdge => ({ from, to, specifier: `./${to}`, typeOnly });

  it('report an import from a higher layer', () => {
    const problems = findUpwardImports([edge('formats/chat/index.ts', 'pipeline/run-chat.ts', true)], LAYERS);
    expect(problems).toEqual([expect.stringContaining('formats (layer 1) may not import pipeline (layer 4)')]);
  });

  it("report an upward import written with the package's own name (gateway, gateway/plugin-kit)", () => {
    expect(SELF_NAMES).toEqual({ gateway: 'index.ts', 'gateway/plugin-kit': 'plugin-kit/index.ts', 'gateway/plugin-kit/testing': 'plugin-kit/testing.ts' });
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-layers-'));
    try {
      fs.mkdirSync(path.join(root, 'util'));
      fs.writeFileSync(path.join(root, 'util/a.ts'), "import type { PluginDefinition } from 'gateway/plugin-kit';\nimport { defineConfig } from 'gateway';\n");
      const edges = readImports(root, SELF_NAMES);
      expect(edges.map((e) => e.to)).toEqual(['plugin-kit/index.ts', 'index.ts']);
      expect(findUpwardImports(edges, LAYERS)).toEqual([
        expect.stringContaining('util (layer 0) may not import plugin-kit (layer 1)'),
        expect.stringContaining('util (layer 0) may not import index.ts'),
      ]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it("report instanceof on another folder's class, however it is imported, and only that", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-instanceof-'));
    try {
      fs.mkdirSync(path.join(root, 'store'));
      fs.mkdirSync(path.join(root, 'app'));
      fs.writeFileSync(path.join(root, 'store/index.ts'), 'export class FileStore {}\nexport class Other {}\n');
      fs.writeFileSync(path.join(root, 'store/own.ts'), "import { FileStore } from './index.ts';\nexport const own = (x: unknown) => x instanceof FileStore;\n");
      fs.writeFileSync(
        path.join(root, 'app/a.ts'),
        [
          "import { type Other as Renamed, FileStore } from '../store/index.ts';",
          "import * as store from '../store/index.ts';",
          "import Default from 'gateway';",
          "import { readFile } from 'node:fs';",
          '// x instanceof FileStore in a comment is not a use',
          'export const a = (x: unknown) => x instanceof FileStore || x instanceof Renamed || x instanceof store.Other;',
          'export const b = (x: unknown) => x instanceof Default || x instanceof Error || x instanceof Uint8Array || readFile;',
        ].join('\n'),
      );
      expect(findForeignInstanceof(root, { gateway: 'index.ts' })).toEqual([
        expect.stringContaining('app/a.ts: instanceof FileStore (a class of store)'),
        expect.stringContaining('app/a.ts: instanceof Renamed (a class of store)'),
        expect.stringContaining('app/a.ts: instanceof store.Other (a class of store)'),
        expect.stringContaining('app/a.ts: instanceof Default (a class of index.ts)'),
      ]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('report a folder that is in no layer', () => {
    expect(findUpwardImports([edge('newfolder/a.ts', 'ir/types.ts')], LAYERS)).toEqual(['src/newfolder is in no layer: place it in LAYERS']);
  });

  it('report a folder cycle and a file cycle, even through type imports', () => {
    expect(findFolderCycles([edge('routing/a.ts', 'server/b.ts', true), edge('server/b.ts', 'routing/a.ts')])).toEqual([['routing', 'server']]);
    expect(findFileCycles([edge('x/a.ts', 'x/b.ts'), edge('x/b.ts', 'x/c.ts'), edge('x/c.ts', 'x/a.ts', true)])).toEqual([['x/a.ts', 'x/b.ts', 'x/c.ts']]);
    expect(findFileCycles([edge('x/a.ts', 'x/b.ts'), edge('x/b.ts', 'x/c.ts', true)])).toEqual([]);
  });

  it('report an import that skips the other folder\'s index.ts, and only that', () => {
    const edges = [
      edge('server/app.ts', 'store/file/file-db.ts'),
      edge('server/routes/a.ts', 'server/types.ts'),
      edge('server/app.ts', 'store/index.ts'),
      edge('tui/app.tsx', 'admin/index.tsx', true),
      edge('index.ts', 'config/index.ts'),
    ];
    expect(findDeepImports(edges)).toEqual([expect.stringContaining('server/app.ts imports ./store/file/file-db.ts: import store/index.ts')]);
  });
});

describe('plugins/', () => {
  it('import only the public plugin kit, node built-ins, packages and their own files', () => {
    const root = path.join(REPO, 'plugins');
    const offending = readImports(root)
      .filter((e) => {
        if (e.to !== undefined) return folderOf(e.to) !== folderOf(e.from); // relative: stays inside its plugin
        return e.specifier.startsWith('gateway') && e.specifier !== 'gateway/plugin-kit';
      })
      .map((e) => `plugins/${e.from} imports ${e.specifier}`);
    expect(offending).toEqual([]);
  });
});
