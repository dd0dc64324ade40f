#!/usr/bin/env node
/**
 * Rewrites every import under src/ that reaches into another top-level folder past its
 * index.ts (`../store/file-store.ts`) to go through that index (`../store/index.ts`), adding
 * the names to the index's export list where they are missing (types as `export type`).
 * The layer test (test/architecture) requires it; run this after moving code, then
 * `npm run typecheck`. Prints what it could not rewrite (default or namespace imports, a name
 * the index already exports from another file).
 *
 *   node scripts/route-imports-through-index.mjs [--check]
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const REPO = path.resolve(import.meta.dirname, '..');
const SRC = path.join(REPO, 'src');
const check = process.argv.includes('--check');

const posix = (p) => p.split(path.sep).join('/');
const topFolder = (file) => posix(path.relative(SRC, file)).split('/')[0];
const indexOf = (folder) => ['index.ts', 'index.tsx'].map((name) => path.join(SRC, folder, name)).find((f) => fs.existsSync(f)) ?? path.join(SRC, folder, 'index.ts');
const relativeSpecifier = (fromFile, toFile) => {
  const rel = posix(path.relative(path.dirname(fromFile), toFile));
  return rel.startsWith('.') ? rel : `./${rel}`;
};

const config = ts.getParsedCommandLineOfConfigFile(path.join(REPO, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
const files = config.fileNames.filter((f) => f.startsWith(SRC + path.sep));
const program = ts.createProgram(files, config.options);
const checker = program.getTypeChecker();

/** Files under src/ that cross a folder boundary past its index, and what they need. */
const edits = new Map(); // file -> [{ start, end, text }]
const needed = new Map(); // index file -> Map(name -> { file, isType })
const problems = [];

function resolveTarget(fromFile, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const target = path.resolve(path.dirname(fromFile), specifier);
  if (!target.startsWith(SRC + path.sep)) return undefined;
  return target;
}

function isTypeOnlySymbol(node) {
  let symbol = checker.getSymbolAtLocation(node);
  if (!symbol) return false;
  if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  return (symbol.flags & ts.SymbolFlags.Value) === 0;
}

function addEdit(file, node, text) {
  if (!edits.has(file)) edits.set(file, []);
  edits.get(file).push({ start: node.getStart(), end: node.getEnd(), text });
}

function need(indexFile, name, file, isType, where) {
  if (!needed.has(indexFile)) needed.set(indexFile, new Map());
  const names = needed.get(indexFile);
  const had = names.get(name);
  if (had && had.file !== file) problems.push(`${where}: '${name}' is wanted from two files of one folder (${posix(path.relative(SRC, had.file))}, ${posix(path.relative(SRC, file))})`);
  names.set(name, { file, isType: (had ? had.isType : true) && isType });
}

for (const source of program.getSourceFiles()) {
  const file = source.fileName;
  if (!files.includes(file)) continue;
  const from = topFolder(file);
  const visit = (node) => {
    let specifierNode;
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) specifierNode = node.moduleSpecifier;
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && ts.isStringLiteral(node.arguments[0])) specifierNode = node.arguments[0];
    if (specifierNode) {
      const target = resolveTarget(file, specifierNode.text);
      const to = target && topFolder(target);
      const where = `${posix(path.relative(REPO, file))} → ${specifierNode.text}`;
      if (target && to !== from && !/^index\.tsx?$/.test(posix(path.relative(path.join(SRC, to), target))) && to !== posix(path.relative(SRC, target))) {
        const indexFile = indexOf(to);
        const names = [];
        let ok = true;
        if (ts.isCallExpression(node)) {
          problems.push(`${where}: dynamic import (check the names it reads are exported by ${to}/index.ts)`);
        } else if (ts.isImportDeclaration(node)) {
          const clause = node.importClause;
          if (!clause) ok = false;
          else {
            if (clause.name) ok = false;
            const bindings = clause.namedBindings;
            if (bindings && ts.isNamespaceImport(bindings)) ok = false;
            if (bindings && ts.isNamedImports(bindings)) {
              for (const element of bindings.elements) {
                const name = (element.propertyName ?? element.name).text;
                names.push({ name, isType: clause.isTypeOnly || element.isTypeOnly || isTypeOnlySymbol(element.name) });
              }
            }
          }
        } else if (node.exportClause && ts.isNamedExports(node.exportClause)) {
          for (const element of node.exportClause.elements) {
            const name = (element.propertyName ?? element.name).text;
            names.push({ name, isType: node.isTypeOnly || element.isTypeOnly || isTypeOnlySymbol(element.propertyName ?? element.name) });
          }
        } else ok = false;
        if (!ok) problems.push(`${where}: default, namespace or bare import: rewrite by hand`);
        else {
          for (const { name, isType } of names) need(indexFile, name, target, isType, where);
          addEdit(file, specifierNode, `'${relativeSpecifier(file, indexFile)}'`);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

/** The names an index exports now, each with the declaration it resolves to. */
function currentExports(indexFile) {
  const source = program.getSourceFile(indexFile);
  const out = new Map();
  if (!source) return out;
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) return out;
  for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    out.set(symbol.name, target.declarations?.[0]?.getSourceFile().fileName);
  }
  return out;
}

/** What `file` exports under `name`, resolved (so a re-export through another file counts as the same thing). */
function declarationFileOf(file, name) {
  const source = program.getSourceFile(file);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  const symbol = moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((s) => s.name === name);
  if (!symbol) return undefined;
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  return target.declarations?.[0]?.getSourceFile().fileName;
}

const indexAdditions = new Map();
for (const [indexFile, names] of needed) {
  const exported = currentExports(indexFile);
  const byFile = new Map();
  for (const [name, { file, isType }] of names) {
    const declared = declarationFileOf(file, name);
    if (exported.has(name)) {
      if (declared && exported.get(name) !== declared) problems.push(`${posix(path.relative(SRC, indexFile))} exports '${name}' from another file than ${posix(path.relative(SRC, file))}`);
      continue;
    }
    if (!byFile.has(file)) byFile.set(file, { values: [], types: [] });
    byFile.get(file)[isType ? 'types' : 'values'].push(name);
  }
  const lines = [];
  for (const [file, { values, types }] of [...byFile].sort(([a], [b]) => a.localeCompare(b))) {
    const spec = relativeSpecifier(indexFile, file);
    const list = [...values.sort(), ...types.sort().map((t) => `type ${t}`)];
    if (values.length === 0) lines.push(`export type { ${types.sort().join(', ')} } from '${spec}';`);
    else lines.push(`export { ${list.join(', ')} } from '${spec}';`);
  }
  if (lines.length > 0) indexAdditions.set(indexFile, lines);
}

const changed = edits.size + indexAdditions.size;
if (check) {
  for (const [file, list] of edits) for (const e of list) console.log(`${posix(path.relative(REPO, file))}: ${e.text}`);
  console.log(`${[...edits.values()].reduce((n, l) => n + l.length, 0)} deep imports in ${edits.size} files; ${indexAdditions.size} index files would grow`);
} else {
  for (const [file, list] of edits) {
    let text = fs.readFileSync(file, 'utf8');
    for (const e of list.sort((a, b) => b.start - a.start)) text = text.slice(0, e.start) + e.text + text.slice(e.end);
    fs.writeFileSync(file, text);
  }
  for (const [indexFile, lines] of indexAdditions) {
    const existing = fs.existsSync(indexFile) ? fs.readFileSync(indexFile, 'utf8') : `/** The ${topFolder(indexFile)} folder's exports: what other folders may import from it. */\n`;
    fs.writeFileSync(indexFile, `${existing.replace(/\n*$/, '\n')}${lines.join('\n')}\n`);
  }
  console.log(`rewrote ${[...edits.values()].reduce((n, l) => n + l.length, 0)} imports in ${edits.size} files; grew ${indexAdditions.size} index files`);
}
for (const problem of problems) console.error(`  ! ${problem}`);
process.exitCode = changed > 0 && check ? 1 : 0;
