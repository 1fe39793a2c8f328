// One dedicated connection per node that LISTENs on a channel and calls back on every notification.
// It is an optimisation (the outbox worker also polls), so it must never take the node down: a lost
// connection is logged and reopened with capped exponential backoff, for as long as the node runs.
import pg from 'pg';
import type { Logger } from 'pino';

export interface NotificationListenerOptions {
  config: pg.ClientConfig;
  channel: string;
  /**
   * Called on every notification, and once each time the listener (re)connects: whatever was
   * announced while it was not listening is worth a look at once.
   */
  onNotify: () => void;
  /** Called when the connection is lost (notifications from then on are missed until onNotify's next call). */
  onLost?: () => void;
  logger: Logger;
  minRetryMs?: number;
  maxRetryMs?: number;
}

export class NotificationListener {
  private client: pg.Client | undefined;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private readonly minRetryMs: number;
  private readonly maxRetryMs: number;

  constructor(private readonly options: NotificationListenerOptions) {
    this.minRetryMs = options.minRetryMs ?? 250;
    this.maxRetryMs = options.maxRetryMs ?? 10_000;
  }

  start(): void {
    void this.connect();
  }

  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const { channel, logger } = this.options;
    const client = new pg.Client(this.options.config);
    this.client = client;
    let lost = false;
    const onLost = (err?: unknown) => {
      if (lost) return;
      lost = true;
      this.options.onLost?.();
      client.removeAllListeners('notification');
      if (this.client === client) this.client = undefined;
      client.end().catch(() => undefined);
      if (this.stopped) return;
      this.failures += 1;
      const delay = Math.min(this.maxRetryMs, this.minRetryMs * 2 ** Math.min(this.failures - 1, 16));
      // The first failure of a run is worth a warning; the retries after it are noise while the database is down.
      const log = this.failures === 1 ? logger.warn.bind(logger) : logger.debug.bind(logger);
      log({ channel, err: err instanceof Error ? err.message : undefined, retryInMs: delay }, 'database notifications lost; reconnecting (the outbox worker polls meanwhile)');
      this.retryTimer = setTimeout(() => void this.connect(), delay);
      this.retryTimer.unref();
    };
    client.on('error', onLost);
    client.on('end', () => onLost(new Error('connection ended')));
    client.on('notification', (message) => {
      if (message.channel === channel) this.options.onNotify();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
    } catch (err) {
      onLost(err);
      return;
    }
    if (this.stopped || lost) return;
    if (this.failures > 0) logger.info({ channel }, 'listening for database notifications again');
    this.failures = 0;
    this.options.onNotify();
  }
}
