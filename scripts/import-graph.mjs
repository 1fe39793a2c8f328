// The import graph of src/ and the checks made on it: `node scripts/import-graph.mjs` lists every
// import cycle and every import that crosses the layering of DESIGN.md (exit status 1 if there is
// any); test/unit/layering.test.ts asserts the same, so a cycle or an upward import fails the suite.
// Imports are read with a regular expression over the source: the code base writes them in one
// style (static `import ... from '...'`, `export ... from '...'`, `import('...')`), all relative
// with a `.js` suffix for local files.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');

const IMPORT = /(?:^|[\s;}])(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function sourceFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

function stripComments(source) {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/**
 * Every local import of every file under `root`: a map from a file (relative to root, with `/`) to
 * its imports `{ target, typeOnly }`; imports of packages and node: modules are left out.
 */
export function importGraph(root = SRC) {
  const graph = new Map();
  for (const file of sourceFiles(root)) {
    const from = path.relative(root, file).split(path.sep).join('/');
    const imports = [];
    for (const match of stripComments(fs.readFileSync(file, 'utf8')).matchAll(IMPORT)) {
      const specifier = match[3] ?? match[4];
      if (!specifier.startsWith('.')) continue;
      const resolved = path.relative(root, path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')));
      imports.push({ target: resolved.split(path.sep).join('/'), typeOnly: Boolean(match[2]) });
    }
    graph.set(from, imports);
  }
  return graph;
}

/**
 * The import cycles (strongly connected components of more than one file, or a file importing
 * itself), each as its files in order. Imports of types only are left out unless `withTypes`: they
 * vanish at runtime, so they cannot make a module see another half-initialised.
 */
export function importCycles(graph, { withTypes = false } = {}) {
  const edges = (file) => (graph.get(file) ?? []).filter((i) => withTypes || !i.typeOnly).map((i) => i.target).filter((t) => graph.has(t));
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const cycles = [];
  // Tarjan's algorithm, iterative so that a deep chain of imports cannot overflow the stack.
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work = [[start, 0]];
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const [file, i] = frame;
      if (i === 0) {
        index.set(file, next);
        low.set(file, next);
        next += 1;
        stack.push(file);
        onStack.add(file);
      }
      const targets = edges(file);
      if (i < targets.length) {
        frame[1] += 1;
        const target = targets[i];
        if (!index.has(target)) work.push([target, 0]);
        else if (onStack.has(target)) low.set(file, Math.min(low.get(file), index.get(target)));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(file)));
      }
      if (low.get(file) === index.get(file)) {
        const component = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          component.push(member);
        } while (member !== file);
        if (component.length > 1 || targets.includes(file)) cycles.push(component.reverse());
      }
    }
  }
  return cycles;
}

/** A file's layer: its first folder under src/, or the file itself for the files at the top. */
export function layerOf(file) {
  return file.includes('/') ? file.slice(0, file.indexOf('/')) : file.replace(/\.ts$/, '');
}

/**
 * The layers each layer must not import (DESIGN.md: data flows route -> service -> domain + store ->
 * delivery; nothing imports a layer above it). `domain` is pure: it imports nothing but itself.
 */
export const FORBIDDEN_IMPORTS = {
  domain: { allowOnly: ['domain'] },
  store: { deny: ['service', 'http', 'cli', 'app', 'main'] },
  delivery: { deny: ['service', 'http', 'cli', 'app', 'main'] },
  observability: { deny: ['service', 'http', 'cli', 'app', 'main', 'store', 'delivery'] },
  service: { deny: ['http', 'cli', 'app', 'main'] },
  http: { deny: ['cli', 'main'] },
};

/** Every import, type-only ones included, that crosses FORBIDDEN_IMPORTS: `{ from, target }`. */
export function layeringViolations(graph) {
  const violations = [];
  for (const [from, imports] of graph) {
    const rule = FORBIDDEN_IMPORTS[layerOf(from)];
    if (!rule) continue;
    for (const { target } of imports) {
      const layer = layerOf(target);
      const refused = rule.allowOnly ? !rule.allowOnly.includes(layer) : rule.deny.includes(layer);
      if (refused) violations.push({ from, target });
    }
  }
  return violations;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const graph = importGraph();
  const cycles = importCycles(graph, { withTypes: process.argv.includes('--with-types') });
  const violations = layeringViolations(graph);
  for (const cycle of cycles) console.log(`cycle: ${[...cycle, cycle[0]].join(' -> ')}`);
  for (const v of violations) console.log(`layering: src/${v.from} imports src/${v.target}`);
  console.log(`${graph.size} files, ${cycles.length} import cycle(s), ${violations.length} layering violation(s)`);
  process.exitCode = cycles.length + violations.length > 0 ? 1 : 0;
}
