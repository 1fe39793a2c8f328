// The composition root of a node, called by cli/serve-command.ts (`twofa serve`): createNode opens
// the store and wires the keyring, transports, workers and the HTTP app (buildApp of app.ts);
// startServer listens, and its stop() drains and closes it all (serve-command calls it on SIGTERM).
// docs/architecture.md, *Entry*, draws the path from package.json's bin to app.ts.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { buildApp } from './app.js';
import { loadRoutes, type Config } from './config.js';
import { createNamedTransports, createTransport, type TransportDeps } from './delivery/dsn.js';
import { Inbox } from './delivery/log/inbox.js';
import { LogTransport } from './delivery/log/log-transport.js';
import { EventWorker } from './delivery/events/event-worker.js';
import { createMessageRevoker } from './delivery/message-revocation.js';
import { OutboxWorker } from './delivery/outbox-worker.js';
import { PriceListFile, type PriceListState } from './delivery/price-list-file.js';
import { plannedTransportsOf } from './delivery/planned-transport.js';
import { WorkflowScheduler, workflowDeliveryFailed } from './service/workflows.js';
import type { OutboxRecord } from './store/store.js';
import { systemResolver, type HostResolver, type WebhookAddressPolicy } from './delivery/webhook/webhook-address-guard.js';
import { hasProviderCallback, type BoundProviderCallback } from './delivery/providers/provider-callback.js';
import { failoverRoutesOf, routeLeaves } from './delivery/routing/routed-transport.js';
import { RoutingTransport } from './delivery/routing/route-table.js';
import { CONVERSION_WINDOW_MS, Routing, type RoutesReload } from './delivery/routing/routing.js';
import type { DeliveryReceipt, Transport } from './delivery/transport.js';
import { PinKeyring } from './domain/pin-secrets.js';
import type { App } from './http/route-types.js';
import { bootstrapApiKeys } from './service/api-keys.js';
import { deliveryAudit } from './service/audit-log.js';
import { recordAuditHeads } from './service/audit-heads.js';
import { DeliveryTracking, type RetryTimer } from './service/delivery-tracking.js';
import { reencryptWebhookSecrets } from './service/webhooks.js';
import { reencryptAuthTokens } from './service/twilio-webhooks.js';
import { reencryptVonageSignatureSecrets } from './service/vonage-applications.js';
import { reencryptFactorSecrets } from './service/factors.js';
import type { ChannelDelivery, ServiceContext } from './service/context.js';
import { deliveryHealth, outboxAgeMs } from './observability/delivery-health.js';
import { PrometheusMetrics } from './observability/metrics.js';
import { auditHeadFilePath } from './store/audit-head-file.js';
import { openStore, postgresOptions } from './store/open-store.js';
import { CHANNELS, type Channel, type Store } from './store/store.js';
import { RISK_WINDOWS } from './domain/risk-score.js';

/**
 * TWOFA_SECRET, or the one kept in `<dataDir>/secret`, created on first start. The file is only a
 * convenience for a single machine: several nodes must share TWOFA_SECRET.
 */
export function resolveSecret(config: Config, logger: Logger): string {
  if (config.secret !== undefined) return config.secret;
  const file = path.join(config.dataDir, 'secret');
  if (fs.existsSync(file)) {
    const secret = fs.readFileSync(file, 'utf8').trim();
    if (secret.length < 32) throw new Error(`${file} holds a secret shorter than 32 characters; delete it or set TWOFA_SECRET`);
    return secret;
  }
  fs.mkdirSync(config.dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64');
  fs.writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  logger.warn({ file }, 'TWOFA_SECRET is not set: generated a random secret and saved it to this file (mode 0600). Back it up: without it no pending PIN can be verified. Set TWOFA_SECRET for production and for several nodes.');
  return secret;
}

export async function createTransports(config: Config, deps: TransportDeps): Promise<Partial<Record<Channel, Transport>>> {
  const dsns: Record<Channel, [string, string]> = {
    sms: ['TWOFA_SMS_DSN', config.smsDsn],
    voice: ['TWOFA_VOICE_DSN', config.voiceDsn],
    email: ['TWOFA_EMAIL_DSN', config.emailDsn],
    whatsapp: ['TWOFA_WHATSAPP_DSN', config.whatsappDsn],
    telegram: ['TWOFA_TELEGRAM_DSN', config.telegramDsn],
  };
  const transports: Partial<Record<Channel, Transport>> = {};
  for (const channel of CHANNELS) {
    const [variable, dsn] = dsns[channel];
    const transport = await createTransport(variable, dsn, deps);
    if (transport) transports[channel] = transport;
  }
  return transports;
}

/** Every transport that delivers, once each: inside failover/roundrobin routes and routes tables too. */
function deliveringTransports(transports: (Transport | undefined)[]): Transport[] {
  return [...new Set(transports.flatMap((t) => (t === undefined ? [] : routeLeaves(t))))];
}

/** The callbacks of every provider transport, also those inside routes. */
function providerCallbacksOf(transports: (Transport | undefined)[]): BoundProviderCallback[] {
  return deliveringTransports(transports).flatMap((t) => (hasProviderCallback(t) ? [t.callback] : []));
}

/** How long the price of a message is kept for GET /api/v1/stats/spend: a year of months, and the month before. */
const PRICE_RETENTION_MS = 400 * 86_400_000;

export interface TwofaNode {
  app: App;
  store: Store;
  inbox: Inbox;
  worker: OutboxWorker;
  /** Runs the due steps of PINs' workflows (started with the worker). */
  workflows: WorkflowScheduler;
  /** Delivers PIN events to the accounts' webhook subscriptions. */
  events: EventWorker;
  /** Applies delivery receipts (SMPP and the HTTP providers' callbacks), retrying those that overtake their message. */
  receipts: DeliveryTracking;
  /** Erases ended PINs' ciphertexts and purges old PINs now (the server also does this on a timer). */
  purge(): Promise<void>;
  /** Signs and records the head of every audit chain that grew (the server also does this on a timer and on shutdown). */
  recordAuditHeads(): Promise<void>;
  /** Reads TWOFA_PRICES_FILE again (SIGHUP, `twofa prices reload`); throws on an invalid file, keeping the list in force. */
  reloadPrices(): Promise<PriceListState>;
  /** Reads the routes table again (SIGHUP, `twofa routes reload`); refused whole when invalid, the current one then stays. */
  reloadRoutes(): RoutesReload;
  /** Stops accepting, finishes in-flight requests and deliveries, hands unsent messages back, closes the store. */
  stop(): Promise<void>;
}

export interface RunningServer extends TwofaNode {
  url: string;
}

/** Where each channel delivers: log:// (the inbox), real transports, or a route with both. */
function channelDelivery(transports: Partial<Record<Channel, Transport>>): Partial<Record<Channel, ChannelDelivery>> {
  const delivery: Partial<Record<Channel, ChannelDelivery>> = {};
  for (const channel of CHANNELS) {
    const transport = transports[channel];
    if (transport === undefined) continue;
    const members = routeLeaves(transport);
    const inbox = members.some((t) => t instanceof LogTransport);
    const real = members.some((t) => !(t instanceof LogTransport));
    delivery[channel] = inbox && real ? 'both' : inbox ? 'inbox' : 'real';
  }
  return delivery;
}

/**
 * log:// next to a real transport is a development setting left in production: a PIN delivered to a
 * real phone must not also be readable in the inbox (resendPin refuses the resend that would do it).
 */
function warnAboutMixedDelivery(delivery: Partial<Record<Channel, ChannelDelivery>>, logger: Logger): void {
  const channels = Object.keys(delivery) as Channel[];
  const inbox = channels.filter((c) => delivery[c] !== 'real');
  const real = channels.filter((c) => delivery[c] !== 'inbox');
  if (inbox.length === 0 || real.length === 0) return;
  logger.warn({ inboxChannels: inbox, realChannels: real },
    `log:// delivers ${inbox.join(', ')} PINs to the local inbox, readable through the API, while ${real.join(', ')} use real transports: `
    + 'a PIN sent through a real transport is never resent through log://; configure a real transport (or none://) for every channel in production');
}

export interface NodeOptions {
  /** Injectable for tests that move time forward; the server uses Date.now. */
  clock?: () => number;
  /** How webhook host names are resolved to check their addresses; tests map names without DNS. Default: the system resolver. */
  resolveHost?: HostResolver;
  /** How a delivery receipt's retries are timed; tests fire them by hand. Default: unref'd timers. */
  receiptRetryTimer?: RetryTimer;
}

function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === '::1' || host === 'localhost' || host.startsWith('127.');
}

/** Everything a node is made of, wired but not listening and with the worker not started (tests inject() into it). */
export async function createNode(config: Config, logger: Logger, options: NodeOptions = {}): Promise<TwofaNode> {
  // Every line a node logs names it, so the logs of several nodes can be told apart.
  logger = logger.child({ node: config.nodeId });
  const clock = options.clock ?? Date.now;
  const secret = resolveSecret(config, logger);
  const keyring = new PinKeyring(secret, config.previousSecrets);
  const inbox = new Inbox();
  // Receipts can arrive as soon as a transport connects; they are applied once the context exists.
  let onReceipt: (receipt: DeliveryReceipt) => void = () => {};
  // Made before the transports, whose pacers report to it; it reads the store only when scraped.
  const metrics = new PrometheusMetrics({
    nodeId: config.nodeId,
    outboxDepth: () => store.countPendingOutbox(),
    oldestPendingAgeMs: async () => outboxAgeMs(await store.oldestPendingOutboxAt(), clock()),
  });
  // An invalid price list stops the start: a node that priced nothing would count no budget. The one
  // list prices messages at delivery, the budgets' estimates and the routes' explain and cheapest
  // strategy; a reload (SIGHUP, `twofa prices reload`) replaces its lines in place, for all of them.
  const prices = await PriceListFile.open(config.pricesFile, clock);
  if (config.pricesFile !== undefined) logger.info({ file: config.pricesFile, lines: prices.state().lines.length }, 'price list loaded');
  const transportDeps: TransportDeps = { inbox, logger, clock, metrics, onReceipt: (receipt) => onReceipt(receipt) };
  const named = await createNamedTransports(config.transports, transportDeps);
  const ownTransports = await createTransports(config, { ...transportDeps, named });
  // With named transports, the phone channels deliver through the routes table (docs/routing.md).
  let routing: Routing | undefined;
  const transports = named.size === 0 ? ownTransports : (routing = new Routing(named, config.routes, ownTransports, {
    logger, clock, prices, store: { conversionsTo: (c, s) => store.routes.conversionsTo(c, s), applicationSender: (a, c) => store.routes.applicationSender(a, c) },
    loadRules: (names) => loadRoutes(names, config.routesSource),
  })).channelTransports(ownTransports);
  const channelOpen = (channel: Channel) => {
    const transport = transports[channel];
    return transport instanceof RoutingTransport ? transport.open : transport !== undefined;
  };
  const delivery = channelDelivery(transports);
  warnAboutMixedDelivery(delivery, logger);
  // With several nodes the rate limits are shared through the database, or through Redis when configured.
  const rateLimiter = config.redisUrl === undefined ? undefined
    : await (await import('./store/redis/redis-rate-limiter.js')).RedisRateLimiter.open(config.redisUrl, { logger });
  const store = await openStore(config.databaseUrl, { migrate: config.migrateOnStart, postgres: postgresOptions(config, logger), rateLimiter })
    .catch(async (err: unknown) => {
      await rateLimiter?.close();
      throw err;
    });

  const bootstrap = await bootstrapApiKeys(store, config.bootstrapApiKey, clock());
  if (bootstrap.kind === 'first-key-created') {
    // Printed once, on stderr, outside the JSON log: the key is never written to the log stream.
    process.stderr.write(`\n  No API key existed, so one was created (it is shown only this once):\n\n    ${bootstrap.key}\n\n  Send it as: Authorization: App <key>\n\n`);
  } else if (bootstrap.kind === 'configured-key-created') {
    logger.info('created the API key given in TWOFA_BOOTSTRAP_API_KEY');
  }

  // Subscription secrets made under a previous TWOFA_SECRET move to the current one.
  await reencryptWebhookSecrets(store, keyring, logger);
  await reencryptAuthTokens(store, keyring, logger);
  await reencryptVonageSignatureSecrets(store, keyring, logger);
  await reencryptFactorSecrets(store, keyring, logger);

  const audit = deliveryAudit({ store, keyring, metrics });
  // A message that failed for good moves its PIN's workflow to the next step (once the context exists).
  let onDeliveryFailed: (item: OutboxRecord, error: string) => Promise<void> = async () => undefined;
  const worker = new OutboxWorker({
    store, keyring, audit, transports, clock, logger, metrics, nodeId: config.nodeId, maxAttempts: config.deliveryMaxAttempts, leaseMs: config.deliveryLeaseMs,
    onFailed: (item, error) => onDeliveryFailed(item, error), prices,
  });
  // PostgreSQL: a message queued on any node wakes this node's idle worker at once (LISTEN/NOTIFY).
  const notifications = store.listenForQueuedMessages(() => worker.wake());
  const webhookAddresses: WebhookAddressPolicy = { allowPrivate: config.webhookAllowPrivate, resolve: options.resolveHost ?? systemResolver };
  const events = new EventWorker({ events: store.events, keyring, clock, logger, metrics, nodeId: config.nodeId, leaseMs: config.deliveryLeaseMs, addresses: webhookAddresses });
  let shuttingDown = false;
  const revoker = createMessageRevoker(Object.values(transports), store, logger);
  const ctx: ServiceContext = {
    store, keyring, clock,
    channelConfigured: channelOpen,
    messageQueued: () => worker.wake(),
    metrics,
    smsMaxSegments: config.smsMaxSegments,
    twilioAuthTokenGraceMs: config.twilioAuthTokenGraceMs,
    channelDelivery: delivery,
    securityProfile: config.securityProfile,
    riskDefaultMode: config.riskDefaultMode,
    allowTestNumbers: config.allowTestNumbers,
    webhookAddresses,
    ...(revoker !== undefined && { pinEnded: revoker.pinEnded }),
    ...(routing !== undefined && { routing }),
    plannedTransports: plannedTransportsOf(ownTransports, routing),
    workflowStepDue: () => workflows.wake(),
    prices,
    reloadPrices: () => reloadPrices(),
    priceListState: () => prices.state(),
  };
  const reloadPrices = async () => {
    try {
      const state = await prices.reload();
      logger.info({ file: state.file, lines: state.lines.length }, 'price list reloaded');
      return state;
    } catch (err) {
      logger.error({ err: err instanceof Error ? err.message : String(err) }, 'price list refused; the previous one stays in force');
      throw err;
    }
  };
  const workflows = new WorkflowScheduler(ctx, logger, { leaseMs: config.deliveryLeaseMs });
  onDeliveryFailed = (item, error) => workflowDeliveryFailed(ctx, item.pinId, `failed: ${error}`, item.channel);
  // The channels' own failover routes: a routes table's rules fail over per message, not on receipts.
  const receipts = new DeliveryTracking(ctx, { routes: failoverRoutesOf(ownTransports), logger, ...(options.receiptRetryTimer !== undefined && { timer: options.receiptRetryTimer }) });
  onReceipt = (receipt) => void receipts.receive(receipt);
  const app = buildApp({ ctx, inbox, logger, bodyLimitBytes: config.bodyLimitBytes, trustedProxies: config.trustedProxies, requestTimeoutMs: config.requestTimeoutMs, authFailureLimit: config.authFailureLimit, idempotencyWindowMs: config.idempotencyWindowMs, idempotencyMaxKeys: config.idempotencyMaxKeys, isReady: () => !shuttingDown, deliveryHealth: deliveryHealth(store, config.deliveryDegradedAfterMs, clock), metrics, callbacks: providerCallbacksOf(Object.values(transports)), receipts });

  const purge = async () => {
    try {
      const { erased, deleted } = await store.purge(clock(), config.pinRetentionMs);
      // Expired breaker blocks, and conversion counters older than any breaker window (one day at most).
      await store.security.purge(clock(), clock() - 2 * 86_400_000);
      await store.workflows.purge(clock() - config.pinRetentionMs);
      // Budget counters of ended days and months; message prices (no destination in them) a year and a month, for the spend statistics.
      await store.budgets.purge(clock());
      await store.prices.purge(clock() - PRICE_RETENTION_MS);
      // The risk score's counters older than its longest window (30 days), and its decisions after as long.
      await store.risk.purge(clock() - RISK_WINDOWS.history.windowMs - 86_400_000, clock() - RISK_WINDOWS.history.windowMs, clock() - RISK_WINDOWS.recent.windowMs);
      // Routes' conversion counters past their window, and the deliveries of PINs never verified.
      await store.routes.purge(clock() - 2 * CONVERSION_WINDOW_MS);
      if (erased + deleted > 0) logger.info({ erased, deleted }, 'purged ended PINs');
    } catch (err) {
      logger.error({ err }, 'purge failed');
    }
  };
  const purgeTimer = setInterval(() => void purge(), config.purgeIntervalMs);
  purgeTimer.unref();

  // One recording at a time: the shutdown's waits for the timer's, then takes the last heads.
  let headsRecorded: Promise<void> = Promise.resolve();
  const recordHeads = () => {
    headsRecorded = headsRecorded.then(async () => {
      try {
        await recordAuditHeads({ store, keyring, clock, logger, headFile: auditHeadFilePath(config.dataDir) });
      } catch (err) {
        logger.error({ err }, 'recording the audit chain heads failed');
      }
    });
    return headsRecorded;
  };
  const headTimer = setInterval(() => void recordHeads(), config.auditHeadIntervalMs);
  headTimer.unref();

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      shuttingDown = true;
      clearInterval(purgeTimer);
      clearInterval(headTimer);
      await app.close();
      await workflows.stop();
      await worker.stop();
      await events.stop();
      await revoker?.drain();
      // After the last request and delivery have written their audit entries.
      await recordHeads();
      await notifications.close();
      // Each transport once, though several channels and routes may share it.
      for (const transport of deliveringTransports([...Object.values(transports), ...named.values()])) await transport.close?.();
      // No receipt comes in any more: the retries still waiting are dropped (and logged).
      await receipts.stop();
      await store.close();
      await rateLimiter?.close();
    })();
    return stopping;
  };
  const reloadRoutes = (): RoutesReload => routing?.reload() ?? { ok: false, error: 'no named transports are configured (TWOFA_TRANSPORT_<NAME>): there is no routes table to reload' };
  return { app, store, inbox, worker, events, workflows, receipts, purge, recordAuditHeads: recordHeads, reloadRoutes, reloadPrices, stop };
}

export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  const node = await createNode(config, logger);
  const url = await node.app.listen({ host: config.host, port: config.port });
  node.worker.start();
  node.events.start();
  node.workflows.start();
  void node.purge();
  const usesLogTransport = [config.smsDsn, config.voiceDsn, config.emailDsn, config.whatsappDsn, config.telegramDsn].some((dsn) => dsn.startsWith('log:'));
  if (usesLogTransport && !isLoopback(config.host)) {
    logger.warn({ host: config.host }, 'log:// delivers PINs to the local inbox, readable through the API, while the server listens beyond loopback: configure real transports (TWOFA_SMS_DSN, TWOFA_VOICE_DSN, TWOFA_EMAIL_DSN) for production');
  }
  logger.info({ url, database: config.databaseUrl.split(':')[0], securityProfile: config.securityProfile }, 'twofa is listening');
  return { ...node, url };
}
