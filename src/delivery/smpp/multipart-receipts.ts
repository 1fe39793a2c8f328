// A long SMS goes out as several submit_sm, each with its own SMSC message id and its own delivery
// receipt, but the outbox records one providerMessageId per message: the id of the LAST part. This
// small in-memory map ties every part's id to that message and folds the parts' receipts into one:
// undelivered as soon as any part is undelivered, delivered once every part is.
//
// It is memory only, so after a restart receipts for the other parts are no longer recognised and
// pass through under their own ids (which match nothing in the store), while the last part's receipt
// still carries the recorded providerMessageId. That is why the last part's id is the one reported.

export interface MultipartMessage {
  readonly partIds: string[];
  mainId: string | undefined;
  readonly outcomes: Map<string, { status: 'delivered' | 'undelivered'; error?: string }>;
  /** A receipt has been reported (or the send failed): later receipts for its parts are ignored. */
  settled: boolean;
  readonly createdAt: number;
}

export type MultipartOutcome =
  /** Not a part of a tracked multipart message: report the receipt as it is. */
  | { kind: 'untracked' }
  /** Recorded; the message's outcome is not known yet (or was reported already). */
  | { kind: 'absorbed' }
  | { kind: 'report'; providerMessageId: string; status: 'delivered' | 'undelivered'; error?: string };

export interface MultipartReceiptsOptions {
  /** Most part ids remembered; the oldest are forgotten first. */
  maxParts?: number;
  /** Receipts later than this after the send are not matched (SMSCs give up on a message well before). */
  ttlMs?: number;
  clock?: () => number;
}

const DEFAULT_MAX_PARTS = 20_000;
const DEFAULT_TTL_MS = 3 * 24 * 3_600_000;

export class MultipartReceipts {
  private readonly byPart = new Map<string, MultipartMessage>();
  private readonly maxParts: number;
  private readonly ttlMs: number;
  private readonly clock: () => number;

  constructor(options: MultipartReceiptsOptions = {}) {
    this.maxParts = options.maxParts ?? DEFAULT_MAX_PARTS;
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.clock = options.clock ?? Date.now;
  }

  get size(): number {
    return this.byPart.size;
  }

  /** Starts tracking a message before its first part is submitted (a receipt can overtake the last submit_sm_resp). */
  begin(): MultipartMessage {
    return { partIds: [], mainId: undefined, outcomes: new Map(), settled: false, createdAt: this.clock() };
  }

  /** A part was accepted by the SMSC under this id. */
  addPart(message: MultipartMessage, partId: string): void {
    message.partIds.push(partId);
    this.byPart.delete(partId);
    this.byPart.set(partId, message);
    this.evict();
  }

  /** Every part was accepted; the last part's id names the message. Receipts that came early may settle it now. */
  complete(message: MultipartMessage, mainId: string): MultipartOutcome {
    message.mainId = mainId;
    return this.evaluate(message);
  }

  /** The send failed part-way: its parts' receipts are for a message the outbox will send again. */
  abandon(message: MultipartMessage): void {
    message.settled = true;
  }

  receipt(partId: string, status: 'delivered' | 'undelivered', error?: string): MultipartOutcome {
    const message = this.byPart.get(partId);
    if (message === undefined || this.clock() - message.createdAt > this.ttlMs) return { kind: 'untracked' };
    if (message.settled) return { kind: 'absorbed' };
    message.outcomes.set(partId, error === undefined ? { status } : { status, error });
    return this.evaluate(message);
  }

  private evaluate(message: MultipartMessage): MultipartOutcome {
    if (message.settled || message.mainId === undefined) return { kind: 'absorbed' };
    for (const outcome of message.outcomes.values()) {
      if (outcome.status === 'undelivered') {
        message.settled = true;
        return { kind: 'report', providerMessageId: message.mainId, status: 'undelivered', ...(outcome.error !== undefined && { error: outcome.error }) };
      }
    }
    if (message.partIds.every((id) => message.outcomes.get(id)?.status === 'delivered')) {
      message.settled = true;
      return { kind: 'report', providerMessageId: message.mainId, status: 'delivered' };
    }
    return { kind: 'absorbed' };
  }

  private evict(): void {
    const now = this.clock();
    for (const [id, message] of this.byPart) {
      if (this.byPart.size <= this.maxParts && now - message.createdAt <= this.ttlMs) break;
      this.byPart.delete(id);
    }
  }
}
