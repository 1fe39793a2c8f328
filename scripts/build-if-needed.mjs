// `npm start` runs this first: compile TypeScript only when dist/ is missing or older than src/, and
// build the console (dist/web) only when it is missing or older than web/ and the code it bundles.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildWeb, webBuildIsStale } from './build-web.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const entry = path.join(root, 'dist', 'cli', 'twofa.js');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

const srcDir = path.join(root, 'src');
const stale = !fs.existsSync(entry) || !fs.existsSync(srcDir) || fs.statSync(entry).mtimeMs < newestMtime(srcDir);
if (fs.existsSync(srcDir) && stale) {
  process.stderr.write('twofa: building (tsc)...\n');
  execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
}

// The console is built with Vite, a devDependency: an installed package ships dist/web ready-made.
if (fs.existsSync(path.join(root, 'web')) && fs.existsSync(path.join(root, 'node_modules', 'vite')) && webBuildIsStale()) {
  process.stderr.write('twofa: building the console (vite)...\n');
  await buildWeb();
}
