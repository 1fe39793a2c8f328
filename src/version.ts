// The package's version, read once from package.json (one level above src/ and dist/).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

export function packageVersion(): string {
  if (cached === undefined) {
    const file = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'package.json');
    cached = (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
  }
  return cached;
}
