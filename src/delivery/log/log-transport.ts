// `log://`: delivers into the in-memory Inbox, the stand-in for a phone or mailbox. The log line says
// that a message arrived, never what it says: the text holds the PIN.
import type { Logger } from 'pino';
import { maskDestination } from '../../domain/destinations.js';
import type { DeliveryResult, OutgoingMessage, Transport } from '../transport.js';
import type { Inbox } from './inbox.js';

export class LogTransport implements Transport {
  readonly name = 'log';

  constructor(
    private readonly inbox: Inbox,
    private readonly logger: Logger,
  ) {}

  async send(message: OutgoingMessage): Promise<DeliveryResult> {
    const stored = this.inbox.add(message);
    this.logger.info(
      { channel: message.channel, to: maskDestination(message.to), pinId: message.pinId },
      'message delivered to local inbox',
    );
    return { ok: true, providerMessageId: stored.id };
  }
}
