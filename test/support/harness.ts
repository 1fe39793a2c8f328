// A twofa node for tests: real SQLite file in a temp folder, log:// transports into the in-memory
// inbox, a movable clock, and API keys for two accounts (to prove isolation) plus a send-only key.
// With TWOFA_TEST_DATABASE=postgres (npm test runs test/http a second time so) the node runs on a
// PostgreSQL database of its own instead, dropped on close().
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import type { HostResolver } from '../../src/delivery/webhook/webhook-address-guard.js';
import type { RetryTimer } from '../../src/service/delivery-tracking.js';
import { createNode, type TwofaNode } from '../../src/main.js';
import { authenticate, createApiKey, SCOPE_PIN_SEND } from '../../src/service/api-keys.js';
import { accountSid } from '../../src/domain/twilio-sids.js';
import { dialectOfPath } from '../../src/http/error-envelope.js';
import type { Store } from '../../src/store/store.js';
import { assertResponseConforms } from '../openapi/response-conformance.js';
import { createTestDatabase, type TestDatabase } from './postgres.js';

export interface Harness {
  node: TwofaNode;
  dir: string;
  dbFile: string;
  /** Everything the node logged, one JSON line each. */
  logs: string[];
  keys: { a: string; b: string; sendOnly: string };
  clock: { now: number; advance(ms: number): void };
  request(method: string, url: string, options?: { key?: string | null; body?: unknown; headers?: Record<string, string>; rawBody?: string; vonageApplicationId?: string }): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  close(): Promise<void>;
}

/** The node's TWOFA_SECRET (unless a test gives its own), for tests that make ciphertexts the node must read. */
export const HARNESS_SECRET = 'test-secret-0123456789-0123456789-abcdef';

/** Tests never ask DNS: `localhost` is 127.0.0.1 and every other name is unknown, unless a test maps it. */
export const offlineResolver: HostResolver = async (hostname) => {
  if (hostname === 'localhost') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

export async function createHarness(env: Record<string, string> = {}, options: { resolveHost?: HostResolver; receiptRetryTimer?: RetryTimer } = {}): Promise<Harness> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-test-'));
  const dbFile = path.join(dir, 'twofa.db');
  const database: TestDatabase | undefined = process.env['TWOFA_TEST_DATABASE'] === 'postgres' && env['TWOFA_DATABASE_URL'] === undefined
    ? await createTestDatabase('http') : undefined;
  const config = loadConfig({
    // The tests' traffic looks like pumping (sequential numbers, never verified): the risk score is off
    // for their applications unless a test asks for it (test/security/risk-score.test.ts).
    TWOFA_RISK_DEFAULT_MODE: 'off',
    TWOFA_DATA_DIR: dir, TWOFA_SECRET: HARNESS_SECRET, TWOFA_BOOTSTRAP_API_KEY: 'harness-bootstrap-key-0123456789', TWOFA_LOG_LEVEL: 'info',
    ...(database ? { TWOFA_DATABASE_URL: database.url, TWOFA_DATABASE_POOL_SIZE: '5' } : {}), ...env,
  });
  const logs: string[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { logs.push(...String(chunk).split('\n').filter((l) => l.length > 0)); done(); } });
  const logger = createLogger(config.logLevel, sink);
  const clock = { now: Date.now(), advance(ms: number) { this.now += ms; } };
  const node = await createNode(config, logger, {
    clock: () => clock.now, resolveHost: options.resolveHost ?? offlineResolver, ...(options.receiptRetryTimer !== undefined && { receiptRetryTimer: options.receiptRetryTimer }),
  });
  const now = clock.now;
  const a = (await createApiKey(node.store, { accountName: 'account-a', now })).key;
  const b = (await createApiKey(node.store, { accountName: 'account-b', now })).key;
  const sendOnly = (await createApiKey(node.store, { accountName: 'account-a', scopes: [SCOPE_PIN_SEND], now })).key;

  /**
   * A Vonage call names its application with its credentials: without one named, an application of
   * the key's account (made if it has none); an unknown key gets none, and its call fails as it should.
   */
  async function anyApplicationOf(key: string): Promise<string> {
    const principal = await authenticate(node.store, `App ${key}`);
    if (!principal) return 'no-application';
    const existing = (await node.store.listApplications(principal.accountId))[0];
    if (existing) return existing.id;
    const manager = principal.accountId === (await authenticate(node.store, `App ${a}`))?.accountId ? a : b;
    const created = await node.app.inject({ method: 'POST', url: '/2fa/2/applications', headers: { authorization: `App ${manager}`, 'content-type': 'application/json' }, payload: JSON.stringify({ name: 'vonage calls' }) });
    return (JSON.parse(created.body) as { applicationId: string }).applicationId;
  }

  async function request(method: string, url: string, options: { key?: string | null; body?: unknown; headers?: Record<string, string>; rawBody?: string; vonageApplicationId?: string } = {}) {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    const key = options.key === undefined ? a : options.key;
    // The Twilio dialect (/v2) takes the same key as the password of HTTP Basic, under the key's account
    // SID; Prelude's (/v2/verification) as a Bearer token; Vonage's (/v2/verify) as the api_secret of
    // HTTP Basic, under an application id as api_key.
    const dialect = dialectOfPath(url);
    if (key !== null) {
      headers['authorization'] ??= dialect === 'twilio' ? await twilioBasic(node.store, key) : dialect === 'prelude' ? `Bearer ${key}`
        : dialect === 'vonage' ? vonageBasic(options.vonageApplicationId ?? await anyApplicationOf(key), key) : `App ${key}`;
    }
    let payload: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      payload = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await node.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload } : {}) });
    // Every answer a test sees must be one the OpenAPI document declares (status, content type, body
    // schema); a mismatch throws and fails the test. See test/openapi/response-conformance.ts.
    await assertResponseConforms(node.app, { method, url, status: response.statusCode, headers: response.headers, body: response.body });
    let body: unknown = response.body;
    try { body = response.body === '' ? undefined : JSON.parse(response.body); } catch { /* not JSON */ }
    return { status: response.statusCode, body: body as any, headers: response.headers as Record<string, unknown> };
  }

  return {
    node, dir, dbFile, logs, keys: { a, b, sendOnly }, clock, request,
    async close() {
      await node.stop();
      await database?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `Authorization: Basic` of the Vonage dialect: an application id as api_key, an API key of its account as api_secret. */
export function vonageBasic(applicationId: string, key: string): string {
  return `Basic ${Buffer.from(`${applicationId}:${key}`).toString('base64')}`;
}

/** `Authorization: Basic` of the Twilio dialect for an API key: its account's SID (an unknown key: a SID of no account) and the key. */
export async function twilioBasic(store: Store, key: string): Promise<string> {
  const principal = await authenticate(store, `App ${key}`);
  const sid = principal ? accountSid(principal.accountId) : `AC${'0'.repeat(32)}`;
  return `Basic ${Buffer.from(`${sid}:${key}`).toString('base64')}`;
}

/** Creates an application and an SMS/voice template; returns their ids. */
export async function createAppAndTemplate(h: Harness, options: { configuration?: Record<string, unknown>; template?: Record<string, unknown>; key?: string } = {}) {
  const app = await h.request('POST', '/2fa/2/applications', { key: options.key, body: { name: 'test app', configuration: { verifyPinLimit: '1000/1s', sendPinPerPhoneNumberLimit: '1000/1d', ...options.configuration } } });
  if (app.status !== 200) throw new Error(`create application: ${app.status} ${JSON.stringify(app.body)}`);
  const template = await h.request('POST', `/2fa/2/applications/${app.body.applicationId}/messages`, {
    key: options.key, body: { pinType: 'NUMERIC', pinLength: 6, messageText: 'Your code is {{pin}}', senderId: 'Acme', ...options.template },
  });
  if (template.status !== 200) throw new Error(`create template: ${template.status} ${JSON.stringify(template.body)}`);
  return { applicationId: app.body.applicationId as string, messageId: template.body.messageId as string };
}

/** Delivers what is queued and reads the text a PIN's message on `channel` reached the inbox with, its code written as CODE. */
export async function deliveredText(h: Harness, accountId: string, pinId: string, channel = 'sms'): Promise<string> {
  await h.node.worker.drain();
  const message = h.node.inbox.list(accountId, { limit: 1000 }).find((m) => m.pinId === pinId && m.channel === channel);
  if (!message) throw new Error(`no ${channel} message for PIN ${pinId}`);
  return (message.text ?? '').replace(/[0-9]{4,10}/, 'CODE');
}

/** Delivers what is queued and reads the PIN the way a recipient would: from the inbox. */
export async function deliveredPin(h: Harness, pinId: string): Promise<string> {
  await h.node.worker.drain();
  const accountIds = new Set<string>();
  for (const key of [h.keys.a, h.keys.b]) {
    const principal = await import('../../src/service/api-keys.js').then((m) => m.authenticate(h.node.store, `App ${key}`));
    if (principal) accountIds.add(principal.accountId);
  }
  for (const accountId of accountIds) {
    const message = h.node.inbox.list(accountId, { limit: 1000 }).find((m) => m.pinId === pinId);
    const pin = message && /([0-9A-Z]{4,16})\s*$/.exec((message.text ?? '').replace(/[.!]$/, ''))?.[1];
    if (pin) return pin;
  }
  throw new Error(`no delivered message for PIN ${pinId}`);
}
