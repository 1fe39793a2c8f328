// DESIGN.md's layering, asserted on the import graph of src/ (scripts/import-graph.mjs, which
// `node scripts/import-graph.mjs` runs by hand): domain/ imports nothing outside itself, store/ and
// delivery/ import neither the services nor the HTTP layer, and no module takes part in a cycle.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { importCycles, importGraph, layeringViolations } from '../../scripts/import-graph.mjs';

describe('the import graph of src/', () => {
  const graph = importGraph();

  it('reads the imports of every module', () => {
    assert.ok(graph.size > 200, `${graph.size} files`);
    const store = graph.get('store/kysely-store.ts');
    assert.ok(store?.some((i) => i.target === 'store/store.ts'), 'kysely-store imports the Store contract');
  });

  it('has no import cycle, not even through imports of types', () => {
    assert.deepEqual(importCycles(graph, { withTypes: true }), []);
  });

  it('follows the layering: domain is pure, store and delivery never import the services or HTTP', () => {
    assert.deepEqual(layeringViolations(graph).map((v) => `${v.from} -> ${v.target}`), []);
  });
});

describe('the import checks', () => {
  function scratch(files: Record<string, string>): string {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-imports-'));
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), text);
    }
    return root;
  }

  it('find an upward import, a type-only one included, and a cycle', () => {
    const root = scratch({
      'domain/rules.ts': "import type { Row } from '../store/store.js';\nexport const rule = 1;\n",
      'store/store.ts': "import { rule } from '../domain/rules.js';\nimport { helper } from './helper.js';\nexport type Row = { rule: typeof rule };\nexport const x = helper;\n",
      'store/helper.ts': "import { x } from './store.js';\nexport const helper = () => x;\n",
      'delivery/worker.ts': "// import { appendAudit } from '../service/audit-log.js';\nconst later = () => import('../service/audit-log.js');\nexport { later };\n",
      'service/audit-log.ts': "export {} from '../domain/rules.js';\n",
    });
    try {
      const graph = importGraph(root);
      assert.deepEqual(layeringViolations(graph).map((v) => `${v.from} -> ${v.target}`).sort(), [
        'delivery/worker.ts -> service/audit-log.ts',
        'domain/rules.ts -> store/store.ts',
      ]);
      assert.deepEqual(importCycles(graph).map((c) => [...c].sort()), [['store/helper.ts', 'store/store.ts']]);
      assert.equal(importCycles(graph, { withTypes: true }).length, 1, 'the type import closes a cycle across domain and store');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
