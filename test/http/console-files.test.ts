// The console's files are the build's, known at start: thousands of spellings of one bundle's path
// (`x1/../assets/app.js`, `x2/../assets/app.js`, ...), sent without authentication, are that one
// cached file or a 404, and the process's memory stays flat. A fake build in a temporary folder
// stands in for dist/web, so this runs whether or not the console is built. Requests go over a real
// loopback socket with the path sent verbatim: fetch would resolve the `..` before sending, and
// inject() itself keeps memory per request, which would hide what the server keeps.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { consoleFiles, consoleRoutes, type ConsoleFiles } from '../../src/http/routes/console.js';
import type { RouteDeps } from '../../src/http/route-types.js';
import { retainedBytes } from '../support/retained-memory.js';

const BUNDLE = 'assets/index-3f2a9c1b.js';
const BUNDLE_BYTES = 64 * 1024;
const VARIANTS = 2000;


describe('/console files: an allow-list of the build, a bounded cache', () => {
  let dir: string;
  let files: ConsoleFiles;
  let app: ReturnType<typeof Fastify>;
  let bundle: Buffer;
  let port: number;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const built = ['index.html', BUNDLE, 'assets/index-77e0d1aa.css', 'favicon.svg'];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-console-'));
    fs.mkdirSync(path.join(dir, 'assets'));
    fs.writeFileSync(path.join(dir, 'index.html'), `<!doctype html><div id="app"></div><script type="module" src="/console/${BUNDLE}"></script>`);
    bundle = randomBytes(BUNDLE_BYTES);
    fs.writeFileSync(path.join(dir, BUNDLE), bundle);
    fs.writeFileSync(path.join(dir, 'assets/index-77e0d1aa.css'), 'body{margin:0}');
    fs.writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    files = consoleFiles([dir]);
    const fastify = Fastify().withTypeProvider<TypeBoxTypeProvider>();
    consoleRoutes(files)(fastify, {} as RouteDeps);
    app = fastify as unknown as ReturnType<typeof Fastify>;
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });
  after(async () => {
    agent.destroy();
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function get(url: string): Promise<{ statusCode: number; headers: http.IncomingHttpHeaders; rawPayload: Buffer; body: string }> {
    return new Promise((resolve, reject) => {
      const request = http.get({ host: '127.0.0.1', port, path: url, agent, timeout: 10_000 }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const rawPayload = Buffer.concat(chunks);
          resolve({ statusCode: response.statusCode ?? 0, headers: response.headers, rawPayload, body: rawPayload.toString('utf8') });
        });
        response.on('error', reject);
      });
      request.on('timeout', () => request.destroy(new Error(`no answer to ${url} within 10 s`)));
      request.on('error', reject);
    });
  }

  it('serves every spelling of a built file as that one cached entry, and keeps memory flat over thousands of them', async () => {
    const first = await get(`/console/${BUNDLE}`);
    assert.equal(first.statusCode, 200);
    assert.ok(first.rawPayload.equals(bundle));
    const baseline = retainedBytes();

    const spellings = [
      (i: number) => `/console/x${i}/../${BUNDLE}`,
      (i: number) => `/console/x${i}/%2e%2e/${BUNDLE}`,
      (i: number) => `/console/${'./'.repeat(1 + (i % 40))}${BUNDLE}?v=${i}`,
      (i: number) => `/console/a/${'b/'.repeat(i % 30)}${'../'.repeat(1 + (i % 30))}${BUNDLE.replace('/', '/'.repeat(1 + (i % 5)))}`,
    ];
    for (let i = 0; i < VARIANTS; i++) {
      const url = spellings[i % spellings.length]!(i);
      const response = await get(url);
      // Either the one built file, byte for byte, or not found: never anything else.
      if (response.statusCode === 200) assert.ok(response.rawPayload.equals(bundle), url);
      else assert.equal(response.statusCode, 404, `${url}: ${response.statusCode}`);
    }

    assert.ok(files.cachedCount() <= built.length, `the cache holds ${files.cachedCount()} entries for a build of ${built.length} files`);
    const grown = retainedBytes() - baseline;
    // A cache per spelling keeps a copy of the bundle for each (about 1,000 x 64 KB here); a few MB of noise is allowed.
    assert.ok(grown < 24 * 1024 * 1024, `retained memory grew by ${Math.round(grown / 1024 / 1024)} MB over ${VARIANTS} spellings`);
  });

  it('answers 404 for any path that is not a file of the build, without caching it', async () => {
    fs.writeFileSync(path.join(dir, 'assets/added-after-start.js'), 'late');
    for (const url of ['/console/assets/nope-123.js', '/console/assets/added-after-start.js', '/console/..%2F..%2Fpackage.json', '/console/%2e%2e/%2e%2e/etc/passwd.txt', '/console/x/../../robots.txt']) {
      const response = await get(url);
      assert.equal(response.statusCode, 404, url);
      assert.equal(JSON.parse(response.body).requestError.serviceException.messageId, 'NOT_FOUND');
    }
    assert.ok(files.cachedCount() <= built.length);
    const page = await get('/console/x/../pins');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<div id="app">/);
    const css = await get('/console/x/../assets/index-77e0d1aa.css');
    assert.equal(css.statusCode, 200);
    assert.equal(css.headers['cache-control'], 'public, max-age=31536000, immutable');
  });
});
