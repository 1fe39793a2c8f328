// T22 transport-limits: a real `twofa serve` process over real sockets. A 10 MB body is 413 before it
// is read, 10 000-deep JSON is a 400, a wrong content type is 415, and slow clients (a body trickled
// one byte at a time, headers that never end) are cut off by TWOFA_REQUEST_TIMEOUT while /healthz keeps
// answering 200 throughout.
// Standards: ASVS 4.0.3 13.1.5, 11.1.4; ASVS 5.0 2.4.1, 16.5.3; OWASP API4:2023.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';
import { createResults } from './support/results.js';

const results = createResults('transport-abuse', {
  tests: ['T22'],
  standards: ['ASVS 4.0.3 13.1.5', 'ASVS 4.0.3 11.1.4', 'ASVS 5.0 2.4.1', 'ASVS 5.0 16.5.3', 'OWASP API4:2023'],
});

const REQUEST_TIMEOUT_MS = 2000;

/**
 * Writes `head`, then the body one byte every `everyMs`; resolves with what the server answered, when,
 * and whether the server closed the connection (rather than the client giving up after 20 s).
 */
function trickle(port: number, head: string, body: string, everyMs: number): Promise<{ answer: string; afterMs: number; bytesSent: number; closedByServer: boolean; bodyLength: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect({ host: '127.0.0.1', port });
    let answer = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    const done = (closedByServer: boolean) => {
      clearInterval(timer);
      socket.destroy();
      resolve({ answer, afterMs: Date.now() - started, bytesSent: sent, closedByServer, bodyLength: body.length });
    };
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => { answer += d; });
    socket.on('close', () => done(true));
    socket.on('error', () => done(true));
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => {
        if (sent >= body.length) return;
        socket.write(body[sent]!);
        sent += 1;
      }, everyMs);
    });
    // Bounded whatever happens: the client gives up after 20 s (ten times the request timeout).
    setTimeout(() => done(false), 20_000).unref();
  });
}

describe('transport abuse against a real server', () => {
  let server: ServerProcess;
  let port: number;

  before(async () => {
    server = await startServerProcess({ TWOFA_REQUEST_TIMEOUT: `${REQUEST_TIMEOUT_MS}ms`, TWOFA_LOG_LEVEL: 'warn' });
    port = Number(new URL(server.url).port);
  });
  after(async () => {
    results.save();
    if (server) assert.equal(await server.stop(), 0, server.output().slice(-2000));
    if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  const post = async (body: string | Buffer, contentType = 'application/json') => {
    const started = Date.now();
    const response = await fetch(`${server.url}/2fa/2/applications`, { method: 'POST', headers: { authorization: `App ${server.key}`, 'content-type': contentType }, body });
    const text = await response.text();
    results.add('badInputs');
    if (response.status >= 500) results.add('fiveXX');
    return { status: response.status, text, ms: Date.now() - started };
  };

  /**
   * Announces and starts sending `size` bytes on a raw socket: the server answers 413 from the
   * Content-Length and closes the connection while the client is still writing (fetch would report
   * only its own broken upload).
   */
  const hugeBody = (size: number) => new Promise<{ status: number; text: string; ms: number }>((resolve) => {
    const started = Date.now();
    const socket = net.connect({ host: '127.0.0.1', port });
    let answer = '';
    const finish = () => {
      socket.destroy();
      results.add('badInputs');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0), text: answer.slice(answer.indexOf('\r\n\r\n') + 4), ms: Date.now() - started });
    };
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => { answer += d; });
    socket.on('close', finish);
    socket.on('error', () => undefined);
    socket.on('connect', () => {
      socket.write(`POST /2fa/2/applications HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: App ${server.key}\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`);
      let sent = 0;
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const pump = () => {
        while (sent < size && !socket.destroyed) {
          sent += chunk.length;
          if (!socket.write(chunk)) return void socket.once('drain', pump);
        }
      };
      pump();
    });
    setTimeout(finish, 10_000).unref();
  });

  it('T22: 10 MB body → 413, 10 000-deep JSON → 400, wrong content types → 415, each an error envelope without a stack', async () => {
    const huge = await hugeBody(10 * 1024 * 1024);
    assert.equal(huge.status, 413, huge.text);
    const deep = await post(`${'['.repeat(10_000)}${']'.repeat(10_000)}`);
    assert.equal(deep.status, 400);
    const deepObject = await post(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`);
    assert.equal(deepObject.status, 400);
    const text = await post('name=x', 'text/plain');
    assert.equal(text.status, 415);
    const form = await post('name=x', 'application/x-www-form-urlencoded');
    assert.equal(form.status, 415);
    const xml = await post('<app/>', 'application/xml');
    assert.equal(xml.status, 415);
    const invalid = await post('{"name":', 'application/json');
    assert.equal(invalid.status, 400);
    const all = [huge, deep, deepObject, text, form, xml, invalid];
    for (const r of all) {
      assert.match(r.text, /"requestError"/);
      assert.doesNotMatch(r.text, /at .*\.(ts|js):\d+/, 'no stack trace');
    }
    results.set('T22.maxAnswerMs', Math.max(...all.map((r) => r.ms)));
    const refusedAsExpected = [huge.status === 413, deep.status === 400, deepObject.status === 400, text.status === 415, form.status === 415, xml.status === 415, invalid.status === 400];
    results.check('T22', refusedAsExpected.every(Boolean) && all.every((r) => /"requestError"/.test(r.text) && !/at .*\.(ts|js):\d+/.test(r.text)),
      `10 MB → ${huge.status}, 10 000-deep JSON → ${deep.status}, wrong content types → ${text.status}/${form.status}/${xml.status}, each an error envelope without a stack (slowest answer ${Math.max(...all.map((r) => r.ms))} ms)`);
  });

  it('T22: slow bodies and endless headers are cut off by the request timeout; /healthz answers throughout', async () => {
    const head = `POST /2fa/2/applications HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: App ${server.key}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`;
    const slowBodies = Array.from({ length: 20 }, () => trickle(port, head, `{"name":"${'x'.repeat(980)}"}`, 200));
    const slowHeaders = Array.from({ length: 20 }, () => trickle(port, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 200));
    let healthChecks = 0;
    let healthy = 0;
    const probing = (async () => {
      const until = Date.now() + REQUEST_TIMEOUT_MS + 1500;
      while (Date.now() < until) {
        healthChecks += 1;
        const r = await fetch(`${server.url}/healthz`).catch(() => undefined);
        if (r?.status === 200) healthy += 1;
        await r?.arrayBuffer();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const [bodies, headers] = await Promise.all([Promise.all(slowBodies), Promise.all(slowHeaders), probing]);
    for (const s of [...bodies, ...headers]) {
      results.add('slowClients');
      assert.ok(s.closedByServer, `a slow client was still connected when it gave up after ${s.afterMs} ms: timed out waiting for the server to cut it off`);
      assert.ok(s.bytesSent < s.bodyLength, `cut off before the end: ${s.bytesSent} of ${s.bodyLength} bytes trickled`);
      if (s.answer !== '') assert.match(s.answer, /^HTTP\/1\.1 408/);
    }
    const cutOff = [...bodies, ...headers].filter((s) => s.closedByServer && s.bytesSent < s.bodyLength && (s.answer === '' || /^HTTP\/1\.1 408/.test(s.answer))).length;
    assert.equal(healthy, healthChecks, 'the service stayed up');
    results.set('T22.slowClientCutOffMaxMs', Math.max(...[...bodies, ...headers].map((s) => s.afterMs)));
    results.set('T22.requestTimeoutMs', REQUEST_TIMEOUT_MS);
    results.set('T22.healthChecksDuringAttack', `${healthy}/${healthChecks}`);
    results.check('T22', cutOff === bodies.length + headers.length && healthy === healthChecks,
      `${cutOff} of ${bodies.length + headers.length} slowloris clients cut off by the server before their request ended (the last after ${Math.max(...[...bodies, ...headers].map((s) => s.afterMs))} ms; timeout ${REQUEST_TIMEOUT_MS} ms); /healthz ${healthy}/${healthChecks} × 200 meanwhile`);
  });
});
