// The console, the operator's web portal: the single-page app built by `npm run build` (vite, from
// web/) into dist/web/, served at /console. Hashed assets are cached for good; every other path under
// /console is the app's own route and answers index.html. The app talks to /api/v1 and /2fa/2 with
// an API key the operator types in, so these files are public and carry no secret.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply } from 'fastify';
import { envelope } from '../error-envelope.js';
import type { RegisterRoute } from '../route-types.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Where the built app is: dist/web beside the compiled server (dist/http/routes/console.js), or, when
 * the server runs from the TypeScript sources (tests, tsx), the project's dist/web.
 */
export const CONSOLE_DIRS = [path.resolve(here, '..', '..', 'web'), path.resolve(here, '..', '..', '..', 'dist', 'web')];

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

/**
 * Scripts and styles from this origin only, no plug-ins, no framing, requests to this origin only.
 * Styles also allow inline ones: the console previews email HTML (which styles itself inline) in a
 * sandboxed frame, and such a frame inherits this policy. Scripts never run inline.
 */
export const CONSOLE_CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "font-src 'self'",
  "connect-src 'self'", "frame-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

interface CachedFile {
  body: Buffer;
  type: string;
}

/**
 * Files are read once and kept: the app is a few hundred kilobytes, and a rebuild replacing dist/web
 * under a running server (npm run build) then never serves half a file. A restart serves the new build.
 */
function consoleFiles() {
  const cache = new Map<string, CachedFile | null>();
  const rootDir = () => CONSOLE_DIRS.find((dir) => fs.existsSync(path.join(dir, 'index.html')));
  return {
    available: () => rootDir() !== undefined,
    read(relative: string): CachedFile | undefined {
      const cached = cache.get(relative);
      if (cached !== undefined) return cached ?? undefined;
      const dir = rootDir();
      if (dir === undefined) return undefined;
      const full = path.resolve(dir, relative);
      // Never outside the app's folder, whatever the path says (.., encoded slashes, absolute paths).
      if (!full.startsWith(dir + path.sep)) return undefined;
      let file: CachedFile | null = null;
      try {
        if (fs.statSync(full).isFile()) file = { body: fs.readFileSync(full), type: CONTENT_TYPES[path.extname(full).toLowerCase()] ?? 'application/octet-stream' };
      } catch {
        file = null;
      }
      // Only hits are kept: a missing file may still appear (a first build while the server runs).
      if (file) cache.set(relative, file);
      return file ?? undefined;
    },
  };
}

function secure(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', CONSOLE_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY')
    .header('cross-origin-opener-policy', 'same-origin');
}

const register: RegisterRoute = (app) => {
  const files = consoleFiles();

  const sendIndex = (reply: FastifyReply) => {
    const index = files.read('index.html');
    if (!index) {
      return secure(reply).code(503).type('text/plain; charset=utf-8')
        .send('The console is not built. Run `npm run build` (it builds the server and the console into dist/), then restart twofa.\n');
    }
    // The page itself is never cached, so a new build is picked up at the next visit.
    return secure(reply).code(200).type(index.type).header('cache-control', 'no-cache').send(index.body);
  };

  // Not in the OpenAPI document: these are the console's pages and files, not operations of the API.
  app.get('/console', { schema: { hide: true } }, async (_request, reply) => sendIndex(reply));
  app.get('/console/*', { schema: { hide: true } }, async (request, reply) => {
    const rest = (request.params as { '*': string })['*'] ?? '';
    let relative: string;
    try {
      relative = decodeURIComponent(rest);
    } catch {
      return reply.code(400).send(envelope('BAD_REQUEST', 'Malformed path'));
    }
    if (relative === '' || relative === 'index.html') return sendIndex(reply);
    const file = relative.includes('\0') ? undefined : files.read(relative);
    if (file) {
      // Vite names every built asset after its content hash: a changed file is a new name.
      const immutable = relative.startsWith('assets/');
      return secure(reply).code(200).type(file.type)
        .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
        .send(file.body);
    }
    // A missing asset is a 404; any other path is a page of the app, which routes it itself.
    if (relative.startsWith('assets/') || /\.[A-Za-z0-9]{1,12}$/.test(relative)) {
      return reply.code(404).send(envelope('NOT_FOUND', `Requested URL not found: GET /console/${rest}`));
    }
    return sendIndex(reply);
  });
};
export default register;
