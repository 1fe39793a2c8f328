// `twofa keys revoke` revokes one key, named by its id. A prefix (a few characters of a key) may be
// shared by several keys: it revokes nothing, and the error names the ids to choose from.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createApiKey } from '../../src/service/api-keys.js';
import { openStore } from '../../src/store/open-store.js';
import { runCli } from '../support/server-process.js';

describe('twofa keys revoke', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-keys-revoke-'));
  const env = { TWOFA_DATA_DIR: dir };
  const database = `sqlite:${path.join(dir, 'twofa.db')}`;
  let ids: string[];
  let prefix: string;

  before(async () => {
    const store = await openStore(database);
    try {
      // Two keys with the same first characters, hence the same stored prefix.
      const one = await createApiKey(store, { key: `tfa_SharedAB${'1'.repeat(40)}`, now: 1 });
      const two = await createApiKey(store, { key: `tfa_SharedAB${'2'.repeat(40)}`, now: 2 });
      assert.equal(one.record.keyPrefix, two.record.keyPrefix);
      ids = [one.record.id, two.record.id];
      prefix = one.record.keyPrefix;
    } finally {
      await store.close();
    }
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function activeIds(): Promise<string[]> {
    const listed = await runCli(['keys', 'list', '--json'], env);
    assert.equal(listed.code, 0, listed.stderr);
    return (JSON.parse(listed.stdout) as { id: string; revokedAt: number | null }[]).filter((k) => k.revokedAt === null).map((k) => k.id).sort();
  }

  it('refuses a prefix shared by several keys and revokes none of them', async () => {
    const result = await runCli(['keys', 'revoke', prefix], env);
    assert.notEqual(result.code, 0);
    for (const id of ids) assert.ok(result.stderr.includes(id), `the error names ${id}: ${result.stderr}`);
    assert.deepEqual(await activeIds(), [...ids].sort());
  });

  it('revokes exactly the key whose id it is given', async () => {
    const result = await runCli(['keys', 'revoke', ids[0]!, '--json'], env);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), { revoked: ids[0] });
    assert.deepEqual(await activeIds(), [ids[1]!]);
  });
});
