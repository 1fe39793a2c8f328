// Several real `twofa serve` processes on one PostgreSQL database, as an operator runs them behind a
// load balancer, and the webhook receiver their SMS go to. The receiver stands for the SMS provider:
// it records every request (which node sent it, the outbox row's `webhook-id`, the PIN) and whether it
// answered 2xx, i.e. whether that delivery counts as done; it can also hold one node's requests
// unanswered, to catch that node mid-delivery.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { createJsonClient, type JsonClient } from '../support/json-client.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { startServerProcess, type ServerProcess } from '../support/server-process.js';

export interface WebhookDelivery {
  node: string;
  webhookId: string;
  pinId: string;
  to: string;
  text: string;
  /** Answered 2xx: the provider took the message, the node records it as sent. */
  accepted: boolean;
}

export interface WebhookReceiver {
  port: number;
  deliveries: WebhookDelivery[];
  /** Requests from `node` get no answer until the connection closes (the node dies or times out). */
  hold(node: string): void;
  /** Requests being held, newest last. */
  held(): WebhookDelivery[];
  /** Accepts the requests held from `node` (204) and holds its next ones no more. */
  answerHeld(node: string): void;
  /** The accepted deliveries of one PIN. */
  acceptedFor(pinId: string): WebhookDelivery[];
  /** The PIN the recipient got for `pinId` (waits for the delivery). */
  pinFor(pinId: string, timeoutMs?: number): Promise<string>;
  /** Waits until every pinId has an accepted delivery. */
  waitForDeliveries(pinIds: Iterable<string>, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const deliveries: WebhookDelivery[] = [];
  const holding = new Set<string>();
  const heldRequests: { delivery: WebhookDelivery; response: http.ServerResponse }[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => { body += chunk; });
    request.on('end', () => {
      const payload = JSON.parse(body) as { pinId: string; to: string; text?: string };
      const node = (request.url ?? '/').replace(/^\//, '').split('?')[0] ?? '';
      const delivery: WebhookDelivery = {
        node, webhookId: String(request.headers['webhook-id']), pinId: payload.pinId, to: payload.to, text: payload.text ?? '', accepted: false,
      };
      deliveries.push(delivery);
      if (holding.has(node)) {
        heldRequests.push({ delivery, response });
        return;
      }
      delivery.accepted = true;
      response.writeHead(204).end();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;

  const acceptedFor = (pinId: string) => deliveries.filter((d) => d.pinId === pinId && d.accepted);
  const waitUntil = async (condition: () => boolean, timeoutMs: number, what: () => string) => {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  return {
    port,
    deliveries,
    hold: (node) => { holding.add(node); },
    held: () => heldRequests.filter((h) => !h.response.writableEnded && !h.response.destroyed).map((h) => h.delivery),
    answerHeld: (node) => {
      holding.delete(node);
      for (const h of heldRequests) {
        if (h.delivery.node !== node || h.response.writableEnded || h.response.destroyed) continue;
        h.delivery.accepted = true;
        h.response.writeHead(204).end();
      }
    },
    acceptedFor,
    async pinFor(pinId, timeoutMs = 10_000) {
      await waitUntil(() => acceptedFor(pinId).length > 0, timeoutMs, () => `the delivery of PIN ${pinId}`);
      const match = /code is ([0-9A-Z]+)/.exec(acceptedFor(pinId)[0]!.text);
      if (!match?.[1]) throw new Error(`no PIN in ${acceptedFor(pinId)[0]!.text}`);
      return match[1];
    },
    async waitForDeliveries(pinIds, timeoutMs) {
      const wanted = [...pinIds];
      await waitUntil(() => wanted.every((id) => acceptedFor(id).length > 0), timeoutMs,
        () => `deliveries of ${wanted.filter((id) => acceptedFor(id).length === 0).length} of ${wanted.length} PINs`);
    },
    async close() {
      for (const h of heldRequests) h.response.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A webhook secret without `+` (the DSN parser keeps it, but there is no need to test that here). */
const WEBHOOK_SECRET = `whsec_${randomBytes(32).toString('base64').replace(/\+/g, 'A')}`;

export interface Cluster {
  database: TestDatabase;
  receiver: WebhookReceiver;
  nodes: ServerProcess[];
  /** One client per node, same API key. */
  clients: JsonClient[];
  /** Node i's name: the path of its webhook requests. */
  name(i: number): string;
  close(): Promise<void>;
}

/**
 * Starts `count` nodes at once (so they also race to migrate the fresh database and to create the
 * bootstrap key) with the same secret, SMS by webhook to the receiver (each node on its own path),
 * and `env` on top.
 */
export async function startCluster(count: number, env: Record<string, string> = {}, label = 'cluster'): Promise<Cluster> {
  const database = await createTestDatabase(label);
  const receiver = await startWebhookReceiver();
  const name = (i: number) => `node-${i}`;
  const started = await Promise.allSettled(Array.from({ length: count }, (_, i) => startServerProcess({
    TWOFA_DATABASE_URL: database.url,
    TWOFA_NODE_ID: name(i),
    TWOFA_SMS_DSN: `webhook+http://127.0.0.1:${receiver.port}/${name(i)}?secret=${WEBHOOK_SECRET}`,
    TWOFA_DATABASE_POOL_SIZE: '5',
    ...env,
  }, { timeoutMs: 60_000 })));
  const nodes = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const close = async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await receiver.close();
    await database.drop();
  };
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await close();
    throw failed.reason;
  }
  return { database, receiver, nodes, clients: nodes.map((n) => createJsonClient(n.url, n.key)), name, close };
}
