// The console's build: Preact through esbuild's own JSX transform (no framework plugin), served by
// twofa at /console from dist/web (see src/http/routes/console.ts).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  base: '/console/',
  publicDir: false,
  logLevel: 'warn',
  clearScreen: false,
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: path.resolve(here, '..', 'dist', 'web'),
    emptyOutDir: true,
    target: 'es2022',
    // Nothing inline: the console's Content-Security-Policy allows scripts and styles from files only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    chunkSizeWarningLimit: 400,
  },
});
