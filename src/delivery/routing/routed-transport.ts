// failover(a b ...) and roundrobin(a b ...): several transports behind one. A transport that rejects a
// message or cannot be reached hands it to the next; one that keeps failing is skipped for a
// cool-down (a circuit breaker), so a dead provider does not cost every message a timeout. Each member
// is sent to through its own pacer (transport-pacer.ts): its window and rate hold inside a route too.
import type { Logger } from 'pino';
import { CHANNELS, type Channel } from '../../domain/channels.js';
import type { DeliveryResult, OutgoingMessage, Transport } from '../transport.js';
import { sendPaced } from '../transport-pacer.js';

export interface RoutingOptions {
  logger: Logger;
  clock?: () => number;
  /** Consecutive failures after which a transport is skipped. */
  failureThreshold?: number;
  /** How long a tripped transport is skipped before it is tried again. */
  cooldownMs?: number;
}

interface Member {
  transport: Transport;
  consecutiveFailures: number;
  skipUntil: number;
}

export class RoutedTransport implements Transport {
  readonly name: string;
  private readonly members: Member[];
  private readonly logger: Logger;
  private readonly clock: () => number;
  private readonly failureThreshold: number;
  private readonly cooldownMs: number;
  private next = 0;

  constructor(readonly mode: 'failover' | 'roundrobin', transports: Transport[], options: RoutingOptions) {
    if (transports.length === 0) throw new Error(`${mode}() needs at least one transport`);
    this.members = transports.map((transport) => ({ transport, consecutiveFailures: 0, skipUntil: 0 }));
    this.name = `${mode}(${transports.map((t) => t.name).join(' ')})`;
    this.logger = options.logger;
    this.clock = options.clock ?? Date.now;
    this.failureThreshold = options.failureThreshold ?? 3;
    this.cooldownMs = options.cooldownMs ?? 30_000;
  }

  /** The order to try members in: round-robin rotates the start; tripped members go last, not never. */
  private order(now: number): Member[] {
    const start = this.mode === 'roundrobin' ? this.next++ % this.members.length : 0;
    const rotated = [...this.members.slice(start), ...this.members.slice(0, start)];
    const healthy = rotated.filter((m) => m.skipUntil <= now);
    const tripped = rotated.filter((m) => m.skipUntil > now).sort((a, b) => a.skipUntil - b.skipUntil);
    for (const m of tripped) this.logger.info({ route: this.name, transport: m.transport.name, retryAt: new Date(m.skipUntil).toISOString() }, 'skipping a transport in its cool-down');
    return [...healthy, ...tripped];
  }

  async send(message: OutgoingMessage): Promise<DeliveryResult> {
    return (await this.sendThrough(message, this.order(this.clock()))).result;
  }

  /**
   * Sends through `preferred` (members of this route) in that order, a member in its cool-down moved
   * behind the healthy ones: how a routes table tries a rule's transports, each with its breaker.
   * Answers which member took the message.
   */
  async sendInOrder(message: OutgoingMessage, preferred: readonly Transport[]): Promise<{ result: DeliveryResult; by?: Transport }> {
    const now = this.clock();
    const members = preferred.map((t) => this.members.find((m) => m.transport === t)).filter((m): m is Member => m !== undefined);
    const healthy = members.filter((m) => m.skipUntil <= now);
    const tripped = members.filter((m) => m.skipUntil > now).sort((a, b) => a.skipUntil - b.skipUntil);
    return this.sendThrough(message, [...healthy, ...tripped]);
  }

  private async sendThrough(message: OutgoingMessage, ordered: Member[]): Promise<{ result: DeliveryResult; by?: Transport }> {
    const errors: string[] = [];
    let anyRetryable = false;
    // Members a delivery receipt already reported undeliverable for this PIN (a nested route is asked
    // anyway: it skips its own listed members).
    const skip = message.skipTransports ?? [];
    const members = ordered.filter((m) => m.transport instanceof RoutedTransport || !skip.includes(m.transport.name));
    if (members.length === 0) return { result: { ok: false, retryable: false, error: `every transport of ${this.name} was tried already for this PIN (${skip.join(', ')})` } };
    for (const member of members) {
      let result: DeliveryResult;
      try {
        result = await sendPaced(member.transport, message);
      } catch (err) {
        result = { ok: false, retryable: true, error: err instanceof Error ? err.message : String(err) };
      }
      if (result.ok) {
        member.consecutiveFailures = 0;
        member.skipUntil = 0;
        return { result: { ...result, transport: result.transport ?? member.transport.name }, by: member.transport };
      }
      anyRetryable ||= result.retryable;
      errors.push(`${member.transport.name}: ${result.error}`);
      // A recipient who is busy or does not answer gets no second call through the next member at once.
      if (result.byRecipient) return { result };
      // Only unreachability trips the breaker; a refusal of this one message says nothing about the next.
      if (result.retryable && ++member.consecutiveFailures >= this.failureThreshold) {
        member.skipUntil = this.clock() + this.cooldownMs;
        this.logger.warn({ route: this.name, transport: member.transport.name, cooldownMs: this.cooldownMs }, 'transport keeps failing: skipping it for a cool-down');
      }
      this.logger.warn({ route: this.name, transport: member.transport.name, pinId: message.pinId, error: result.error }, 'transport failed; trying the next one');
    }
    return { result: { ok: false, retryable: anyRetryable, error: errors.join('; ') } };
  }

  /** The transports of this route (callback routes look inside it for providers' callbacks). */
  get transports(): Transport[] {
    return this.members.map((m) => m.transport);
  }

  async close(): Promise<void> {
    for (const m of this.members) await m.transport.close?.();
  }
}

/**
 * The names of the transports inside a failover route (nested routes flattened), the members a
 * message may move on to when a delivery receipt says one of them could not deliver it; undefined
 * when the transport is not a failover route (roundrobin spreads load, it does not fail over).
 */
export function failoverMemberNames(transport: Transport): string[] | undefined {
  if (!(transport instanceof RoutedTransport) || transport.mode !== 'failover') return undefined;
  return [...new Set(routeLeaves(transport).map((t) => t.name))];
}

/**
 * The failover routes of a node's channels, as service/delivery-tracking.ts asks about them when a
 * receipt says a member could not deliver a message (it decides which member is next).
 */
export interface FailoverRoutes {
  /** The members of the channel's transport, in order, when it is a failover route (see failoverMemberNames); otherwise undefined. */
  membersOf(channel: Channel): readonly string[] | undefined;
  /** Whether the transport is a member of some channel's failover route (a receipt from any other cannot fail over). */
  hasMember(transport: string): boolean;
}

/** The failover routes of the channels' transports. */
export function failoverRoutesOf(transports: Partial<Record<Channel, Transport>>): FailoverRoutes {
  const routes = new Map<Channel, readonly string[]>();
  for (const channel of CHANNELS) {
    const transport = transports[channel];
    const members = transport === undefined ? undefined : failoverMemberNames(transport);
    if (members !== undefined) routes.set(channel, members);
  }
  const everyMember = new Set([...routes.values()].flat());
  return { membersOf: (channel) => routes.get(channel), hasMember: (transport) => everyMember.has(transport) };
}

/** A transport made of others (a failover/roundrobin route, a routes table): what it may deliver through. */
export interface CompositeTransport extends Transport {
  readonly transports: readonly Transport[];
}

function isComposite(transport: Transport): transport is CompositeTransport {
  return Array.isArray((transport as Partial<CompositeTransport>).transports);
}

/** The transports that deliver, with nested routes (and routes tables) flattened; a plain transport is its own. */
export function routeLeaves(transport: Transport): Transport[] {
  return isComposite(transport) ? [...new Set(transport.transports.flatMap(routeLeaves))] : [transport];
}

/**
 * Splits the inside of `failover(...)` into member DSNs: whitespace-separated, where a member may
 * itself be a parenthesised route (`failover(roundrobin(a b) c)`).
 */
export function splitRouteMembers(inner: string): string[] {
  const members: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of inner) {
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (depth < 0) throw new Error('unbalanced parentheses');
    if (/\s/.test(char) && depth === 0) {
      if (current) members.push(current);
      current = '';
    } else current += char;
  }
  if (depth !== 0) throw new Error('unbalanced parentheses');
  if (current) members.push(current);
  return members;
}
