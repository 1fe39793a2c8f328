// Builds the console (web/, Vite) into dist/web. The build goes to a folder of its own first and
// then replaces dist/web in two renames, so a server or a test reading dist/web never sees it half
// written, and two builds at once (npm pack's prepack beside a test) cannot mix their files.
// `node scripts/build-web.mjs` builds; `--if-stale` builds only when web/ (or the client and domain
// code it bundles) changed since dist/web was built.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const WEB_OUT = path.join(root, 'dist', 'web');
/** What the console bundles: its own sources and the server code it imports (client, domain rules). */
const WEB_INPUTS = ['web', 'src/client', 'src/domain'].map((p) => path.join(root, p));

function newestMtime(target) {
  if (!fs.existsSync(target)) return 0;
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of fs.readdirSync(target, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    newest = Math.max(newest, newestMtime(path.join(target, entry.name)));
  }
  return newest;
}

/** True when dist/web is missing or older than anything it is built from. */
export function webBuildIsStale() {
  const index = path.join(WEB_OUT, 'index.html');
  if (!fs.existsSync(index)) return true;
  const built = fs.statSync(index).mtimeMs;
  return WEB_INPUTS.some((input) => newestMtime(input) > built);
}

export async function buildWeb() {
  const { build } = await import('vite');
  const scratch = path.join(root, 'node_modules', '.cache', 'twofa-web');
  fs.mkdirSync(scratch, { recursive: true });
  const unique = `${process.pid}-${Date.now()}`;
  const fresh = path.join(scratch, `build-${unique}`);
  await build({ configFile: path.join(root, 'web', 'vite.config.ts'), logLevel: 'warn', build: { outDir: fresh, emptyOutDir: true } });
  fs.mkdirSync(path.dirname(WEB_OUT), { recursive: true });
  for (let attempt = 0; ; attempt++) {
    const old = path.join(scratch, `old-${unique}-${attempt}`);
    try {
      if (fs.existsSync(WEB_OUT)) fs.renameSync(WEB_OUT, old);
      fs.renameSync(fresh, WEB_OUT);
      fs.rmSync(old, { recursive: true, force: true });
      return;
    } catch (err) {
      // Another build put its dist/web in place between the two renames: move it aside and try again.
      if (attempt >= 5 || !['ENOTEMPTY', 'EEXIST', 'ENOENT'].includes(err.code)) throw err;
      fs.rmSync(old, { recursive: true, force: true });
    }
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--if-stale') && !webBuildIsStale()) process.exit(0);
  await buildWeb();
}
