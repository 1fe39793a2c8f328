// The local inbox behind `log://`: it stands in for the recipient's phone or mailbox during
// development and tests. It lives only in memory, on purpose: the rendered message holds the PIN in
// clear, and the design keeps plaintext PINs out of the database files (SQLite would keep even
// deleted rows in its WAL and free pages). A restart empties it, as switching off a test phone would.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Channel } from '../../store/store.js';
import type { OutgoingMessage } from '../transport.js';

export interface InboxMessage {
  readonly id: string;
  readonly channel: Channel;
  readonly to: string;
  readonly from?: string;
  readonly subject?: string;
  readonly text?: string;
  readonly html?: string;
  readonly pinId: string;
  readonly applicationId: string;
  readonly messageId: string;
  readonly accountId: string;
  /** Unix milliseconds. */
  readonly receivedAt: number;
}

export interface InboxFilter {
  /** Only messages to this exact destination (as stored: phone digits or normalised address). */
  to?: string;
  channel?: Channel;
  /** Default 50, at most 1000. */
  limit?: number;
}

export type InboxListener = (message: InboxMessage) => void;

export interface InboxOptions {
  /** Messages kept per account; the oldest are dropped first. Default 1000. */
  capacityPerAccount?: number;
  clock?: () => number;
  /** Where a throwing listener is reported; without one the error is dropped. */
  logger?: Logger;
}

export const INBOX_DEFAULT_LIMIT = 50;
export const INBOX_MAX_LIMIT = 1000;
const DEFAULT_CAPACITY = 1000;

export class Inbox {
  // Per account, oldest first: appending and dropping from the front keep the bound cheap.
  private readonly byAccount = new Map<string, InboxMessage[]>();
  private readonly listeners = new Set<InboxListener>();
  private readonly capacity: number;
  private readonly clock: () => number;
  private readonly logger: Logger | undefined;

  constructor(options: InboxOptions = {}) {
    const capacity = options.capacityPerAccount ?? DEFAULT_CAPACITY;
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('inbox capacity must be a positive integer');
    this.capacity = capacity;
    this.clock = options.clock ?? Date.now;
    this.logger = options.logger;
  }

  add(message: OutgoingMessage): InboxMessage {
    const stored: InboxMessage = Object.freeze({
      id: randomUUID(),
      channel: message.channel,
      to: message.to,
      ...(message.from !== undefined && { from: message.from }),
      ...(message.subject !== undefined && { subject: message.subject }),
      ...(message.text !== undefined && { text: message.text }),
      ...(message.html !== undefined && { html: message.html }),
      pinId: message.pinId,
      applicationId: message.applicationId,
      messageId: message.messageId,
      accountId: message.accountId,
      receivedAt: this.clock(),
    });
    let messages = this.byAccount.get(stored.accountId);
    if (messages === undefined) {
      messages = [];
      this.byAccount.set(stored.accountId, messages);
    }
    messages.push(stored);
    if (messages.length > this.capacity) messages.splice(0, messages.length - this.capacity);
    this.notify(stored);
    return stored;
  }

  /** Newest first; an account only ever sees its own messages. */
  list(accountId: string, filter: InboxFilter = {}): InboxMessage[] {
    const limit = clampLimit(filter.limit);
    const messages = this.byAccount.get(accountId) ?? [];
    const result: InboxMessage[] = [];
    for (let i = messages.length - 1; i >= 0 && result.length < limit; i -= 1) {
      const message = messages[i] as InboxMessage;
      if (filter.to !== undefined && message.to !== filter.to) continue;
      if (filter.channel !== undefined && message.channel !== filter.channel) continue;
      result.push(message);
    }
    return result;
  }

  get(accountId: string, id: string): InboxMessage | undefined {
    return this.byAccount.get(accountId)?.find((message) => message.id === id);
  }

  /**
   * Calls `listener` for every message added from now on, of every account: the caller (follow mode,
   * an SSE stream) filters by account itself. Returns the unsubscribe function.
   */
  subscribe(listener: InboxListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private notify(message: InboxMessage): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(message);
      } catch (err) {
        // A broken subscriber (say, a closed SSE stream) must not turn a delivery into a failure.
        this.logger?.warn({ err: (err as Error).message }, 'inbox listener failed');
      }
    }
  }
}

function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return INBOX_DEFAULT_LIMIT;
  return Math.min(INBOX_MAX_LIMIT, Math.max(1, Math.floor(limit)));
}
