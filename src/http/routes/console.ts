// The console, the operator's web portal: the single-page app built by `npm run build` (vite, from
// web/) into dist/web/, served at /console. Hashed assets are cached for good; every other path under
// /console is the app's own route and answers index.html. The app talks to /api/v1 and /2fa/2 with
// an API key the operator types in, so these files are public and carry no secret.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply } from 'fastify';
import { sendFailure } from '../error-envelope.js';
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

/** The built app's files, relative to its folder with `/` separators: `index.html`, `assets/index-3f2a.js`. */
function listFiles(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      // Regular files only: a symbolic link in the build could point anywhere.
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) files.set(path.relative(root, full).split(path.sep).join('/'), full);
    }
  };
  walk(root);
  return files;
}

/**
 * A path under /console as a key of the file list: `.`, `..` and repeated or back slashes resolved
 * against a fixed root, so no spelling reaches outside the app's folder and every spelling of one
 * file is the same key. `x1/../assets/a.js` -> `assets/a.js`; `../../package.json` -> `package.json`.
 */
function consolePath(relative: string): string {
  return path.posix.relative('/', path.posix.resolve('/', relative.replaceAll('\\', '/')));
}

/** The console's files, as the request path names them; undefined for any other path. */
export interface ConsoleFiles {
  read(relative: string): CachedFile | undefined;
  /** How many files are held in memory: never more than the build has. */
  cachedCount(): number;
}

/**
 * The files of the build found at start are the only ones ever served: the list is keyed by the
 * resolved path, so every spelling of one file (`x/../assets/a.js`, `assets//a.js`) is the same
 * entry, and any other path is not a file. Each file is read once and kept: the cache can hold no
 * more than the build, and a rebuild replacing dist/web under a running server (npm run build)
 * never serves half a file. A restart serves the new build.
 */
export function consoleFiles(dirs: readonly string[] = CONSOLE_DIRS): ConsoleFiles {
  const root = dirs.find((dir) => fs.existsSync(path.join(dir, 'index.html')));
  const known = root === undefined ? new Map<string, string>() : listFiles(root);
  const cache = new Map<string, CachedFile>();
  return {
    cachedCount: () => cache.size,
    read(relative: string): CachedFile | undefined {
      const key = consolePath(relative);
      const full = known.get(key);
      if (full === undefined) return undefined;
      const cached = cache.get(key);
      if (cached !== undefined) return cached;
      let file: CachedFile;
      try {
        file = { body: fs.readFileSync(full), type: CONTENT_TYPES[path.extname(full).toLowerCase()] ?? 'application/octet-stream' };
      } catch {
        return undefined;
      }
      cache.set(key, file);
      return file;
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

/** The console's routes over the given files; the server's are those of the build found at start. */
export function consoleRoutes(files: ConsoleFiles): RegisterRoute {
  return (app) => {
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
      let decoded: string;
      try {
        decoded = decodeURIComponent(rest);
      } catch {
        return sendFailure(reply, { name: 'MALFORMED_REQUEST', text: 'Malformed path' });
      }
      const relative = consolePath(decoded);
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
        return sendFailure(reply, { name: 'ROUTE_NOT_FOUND', text: `Requested URL not found: GET /console/${rest}` });
      }
      return sendIndex(reply);
    });
  };
}

const register: RegisterRoute = (app, deps) => consoleRoutes(consoleFiles())(app, deps);
export default register;
