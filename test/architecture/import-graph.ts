/**
 * The import graph of src/ (and plugins/), read from the source text, and the checks the
 * layer test runs on it. Pure functions over edges, so the test can also feed them a made-up
 * graph and see them fail.
 */
import fs from 'node:fs';
import path from 'node:path';

/** One import: the importing file, what it names, the resolved file (relative ones), and whether it is `import type`. */
export interface ImportEdge {
  from: string;
  specifier: string;
  /** Path relative to the scanned root, for relative specifiers. */
  to?: string;
  typeOnly: boolean;
}

// The clause before `from` holds no `=` or backquote: `export const T = \`import … from 'x'\`` is not an import.
const IMPORT = /(?:^|[\s;}])(import|export)\s+(type\s+)?(?:[^'";=`]*?\s+from\s+)?['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(full));
    else if (/\.(ts|tsx|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/**
 * The package's own names as files under src/, from tsconfig.json `paths` (`gateway` →
 * `index.ts`): a source file could import its own package by name, and that edge must be
 * checked like a relative one.
 */
export function srcAliases(repo: string): Record<string, string> {
  const tsconfig = JSON.parse(fs.readFileSync(path.join(repo, 'tsconfig.json'), 'utf8')) as { compilerOptions?: { paths?: Record<string, string[]> } };
  const aliases: Record<string, string> = {};
  for (const [name, [target]] of Object.entries(tsconfig.compilerOptions?.paths ?? {})) {
    const file = path.relative(path.join(repo, 'src'), path.resolve(repo, target)).split(path.sep).join('/');
    if (!file.startsWith('..')) aliases[name] = file;
  }
  return aliases;
}

/**
 * Every import of every source file under `root`; paths relative to `root`, with `/`.
 * `aliases` names bare specifiers that are files under `root` (see srcAliases).
 */
export function readImports(root: string, aliases: Record<string, string> = {}): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of sourceFiles(root)) {
    const text = fs.readFileSync(file, 'utf8');
    const from = path.relative(root, file).split(path.sep).join('/');
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[3] ?? match[4];
      const typeOnly = match[2] !== undefined;
      const edge: ImportEdge = { from, specifier, typeOnly };
      if (specifier.startsWith('.')) edge.to = path.relative(root, path.resolve(path.dirname(file), specifier)).split(path.sep).join('/');
      else if (Object.hasOwn(aliases, specifier)) edge.to = aliases[specifier];
      edges.push(edge);
    }
  }
  return edges;
}

/** The top-level folder of a path under src/ (`pipeline/run-chat.ts` → `pipeline`); a root file is its own name. */
export function folderOf(file: string): string {
  const slash = file.indexOf('/');
  return slash === -1 ? file : file.slice(0, slash);
}

/** Import violations: an unplaced folder, or an import of a folder in a higher layer. */
export function findUpwardImports(edges: ImportEdge[], layers: string[][]): string[] {
  const rank = new Map<string, number>();
  layers.forEach((layer, i) => layer.forEach((folder) => rank.set(folder, i)));
  const problems = new Set<string>();
  for (const edge of edges) {
    if (edge.to === undefined || edge.to.startsWith('..')) continue;
    const a = folderOf(edge.from);
    const b = folderOf(edge.to);
    for (const folder of [a, b]) if (!rank.has(folder)) problems.add(`src/${folder} is in no layer: place it in LAYERS`);
    if (a === b || !rank.has(a) || !rank.has(b)) continue;
    if (rank.get(b)! > rank.get(a)!) problems.add(`${edge.from} imports ${edge.specifier}: ${a} (layer ${rank.get(a)}) may not import ${b} (layer ${rank.get(b)})`);
  }
  return [...problems];
}

/** Strongly connected components with more than one node, by Tarjan's algorithm. */
export function findCycles(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

/** Folder cycles (type imports count: a folder that needs another's types depends on it). */
export function findFolderCycles(edges: ImportEdge[]): string[][] {
  const graph = new Map<string, Set<string>>();
  for (const edge of edges) {
    if (edge.to === undefined || edge.to.startsWith('..')) continue;
    const a = folderOf(edge.from);
    const b = folderOf(edge.to);
    if (!graph.has(a)) graph.set(a, new Set());
    if (!graph.has(b)) graph.set(b, new Set());
    if (a !== b) graph.get(a)!.add(b);
  }
  return findCycles(graph);
}

/**
 * File cycles. Type imports count too: they vanish at run time, but two files that need each
 * other's types are one file in two pieces (and an index a cycle runs through re-exports one
 * of them half-evaluated the day a type becomes a value).
 */
export function findFileCycles(edges: ImportEdge[]): string[][] {
  const graph = new Map<string, Set<string>>();
  for (const edge of edges) {
    if (!graph.has(edge.from)) graph.set(edge.from, new Set());
    if (edge.to === undefined) continue;
    graph.get(edge.from)!.add(edge.to);
  }
  return findCycles(graph);
}

/**
 * Imports into another top-level folder that skip its index.ts (`../store/file/file-db.ts`
 * instead of `../store/index.ts`): a folder's index is its contract, the rest is private.
 * `package.json`, the plugins beside src/ and the package entry (`index.ts`) are no folders.
 */
export function findDeepImports(edges: ImportEdge[]): string[] {
  const problems: string[] = [];
  for (const edge of edges) {
    if (edge.to === undefined || edge.to.startsWith('..')) continue;
    const target = folderOf(edge.to);
    if (target === folderOf(edge.from) || target === edge.to) continue;
    if (edge.to !== `${target}/index.ts` && edge.to !== `${target}/index.tsx`) problems.push(`${edge.from} imports ${edge.specifier}: import ${target}/index.ts (add the name to its exports)`);
  }
  return problems;
}

/** What a file imports by name from where: `{ GatewayError: '../errors/index.ts', ns: … }` (default, named and namespace bindings). */
function importedNames(text: string): Map<string, string> {
  const names = new Map<string, string>();
  for (const match of text.matchAll(/(?:^|[\s;}])import\s+(?:type\s+)?([^'";=`]*?)\s+from\s*['"]([^'"]+)['"]/g)) {
    const [, clause, specifier] = match;
    const named = /\{([^}]*)\}/.exec(clause);
    for (const entry of named?.[1].split(',') ?? []) {
      const local = entry.trim().replace(/^type\s+/, '').split(/\s+as\s+/).at(-1)?.trim();
      if (local) names.set(local, specifier);
    }
    const outside = clause.replace(/\{[^}]*\}/, '').replace(/\*\s+as\s+/, '');
    for (const local of outside.split(',').map((part) => part.trim())) if (/^[A-Za-z_$][\w$]*$/.test(local)) names.set(local, specifier);
  }
  return names;
}

/**
 * `instanceof` on a class imported from another top-level folder (`x instanceof FileStore` in
 * src/app): another folder's class is recognised through what its index exports (a port method,
 * an `isX()` reading a `Symbol.for` mark), never by its identity. Built-ins and packages are not
 * checked; comment lines are skipped. `aliases` as for readImports.
 */
export function findForeignInstanceof(root: string, aliases: Record<string, string> = {}): string[] {
  const problems: string[] = [];
  for (const file of sourceFiles(root)) {
    const text = fs.readFileSync(file, 'utf8');
    if (!text.includes('instanceof')) continue;
    const from = path.relative(root, file).split(path.sep).join('/');
    const names = importedNames(text);
    const code = text
      .split('\n')
      .filter((line) => !/^\s*(?:\/\/|\/\*|\*)/.test(line))
      .join('\n');
    for (const match of code.matchAll(/\binstanceof\s+([A-Za-z_$][\w$]*)((?:\s*\.\s*[A-Za-z_$][\w$]*)*)/g)) {
      const specifier = names.get(match[1]);
      if (specifier === undefined) continue;
      const to = specifier.startsWith('.')
        ? path.relative(root, path.resolve(path.dirname(file), specifier)).split(path.sep).join('/')
        : aliases[specifier];
      if (to === undefined || to.startsWith('..') || folderOf(to) === folderOf(from)) continue;
      problems.push(`${from}: instanceof ${match[1]}${match[2].replace(/\s/g, '')} (a class of ${folderOf(to)}): use a port method or an isX() its index exports`);
    }
  }
  return problems;
}
