import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore } from '../../src/store/open-store.js';
import { storeConformance } from './store-contract.js';

storeConformance('SQLite file', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-store-'));
  return openStore(`sqlite:${path.join(dir, 'twofa.db')}`);
});
