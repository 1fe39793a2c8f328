// A real SMSC on loopback, built from the `smpp` package's server: it checks bind_transceiver
// credentials, records every submit_sm as decoded by an independent codec (the package's own), answers
// with incrementing message ids or whatever the test configures (error status, delay, no answer),
// pushes deliver_sm receipts and can cut connections.
import smpp from 'smpp';
import type { AddressInfo } from 'node:net';

export interface RecordedSubmit {
  serviceType: string;
  sourceAddr: string;
  sourceAddrTon: number;
  sourceAddrNpi: number;
  destinationAddr: string;
  destAddrTon: number;
  destAddrNpi: number;
  esmClass: number;
  registeredDelivery: number;
  dataCoding: number;
  /** The text as the package decodes it for data_coding (UDH removed). */
  text: string;
  /** UDH information elements, each [IEI, length, ...data]. */
  udh: Buffer[];
  /** Which bind (0-based, in bind order) carried it. */
  bindIndex: number;
  /** The message_id we answered with, once answered. */
  messageId?: string;
  /** Vendor-specific TLVs (tags 0x1400-0x3FFF) by tag, their octets as sent. */
  vendorTlvs: Map<number, Buffer>;
}

export interface RecordedBind {
  systemId: string;
  password: string;
  systemType: string;
  interfaceVersion: number;
  accepted: boolean;
}

/** How to answer one submit_sm: status (default 0), after delayMs, or never. */
export interface SubmitAnswer {
  status?: number;
  delayMs?: number;
  hang?: boolean;
}

export interface SmscPeerOptions {
  systemId?: string;
  password?: string;
  /** Serve TLS with this key and certificate (PEM). */
  tls?: { key: string; cert: string };
  port?: number;
}

export class SmscPeer {
  readonly submits: RecordedSubmit[] = [];
  readonly binds: RecordedBind[] = [];
  unbinds = 0;
  enquireLinks = 0;
  inFlight = 0;
  maxInFlight = 0;
  /** Decides the answer to each submit_sm (index counts from 0 over the peer's life). */
  answer: (submit: RecordedSubmit, index: number) => SubmitAnswer = () => ({});
  answerEnquireLink = true;

  private readonly server: smpp.Server;
  private readonly bound = new Set<smpp.Session>();
  private readonly systemId: string;
  private readonly password: string;
  private nextId = 1;
  private portNumber = 0;

  private constructor(private readonly options: SmscPeerOptions) {
    this.systemId = options.systemId ?? 'twofa';
    this.password = options.password ?? 'secret';
    const handler = (session: smpp.Session): void => this.onSession(session);
    this.server = options.tls ? smpp.createServer({ key: options.tls.key, cert: options.tls.cert }, handler) : smpp.createServer(handler);
  }

  static async start(options: SmscPeerOptions = {}): Promise<SmscPeer> {
    const peer = new SmscPeer(options);
    await peer.listen(options.port ?? 0);
    return peer;
  }

  get port(): number {
    return this.portNumber;
  }

  /** A DSN pointing here with the right (or the given) credentials. */
  dsn(query = '', credentials = `${this.systemId}:${this.password}`): URL {
    const scheme = this.options.tls ? 'smpps' : 'smpp';
    return new URL(`${scheme}://${credentials}@127.0.0.1:${this.port}${query === '' ? '' : `?${query}`}`);
  }

  get boundSessions(): number {
    return this.bound.size;
  }

  /** Sends deliver_sm on the most recent bind; resolves with the ESME's deliver_sm_resp command_status. */
  deliverSm(fields: Record<string, unknown>): Promise<number> {
    const session = [...this.bound].at(-1);
    if (!session) return Promise.reject(new Error('no bound session'));
    return new Promise((resolve) => {
      session.deliver_sm(fields, (resp) => resolve(resp.command_status));
    });
  }

  /** Sends enquire_link on the most recent bind; resolves with the ESME's enquire_link_resp command_status. */
  enquireLink(): Promise<number> {
    const session = [...this.bound].at(-1);
    if (!session) return Promise.reject(new Error('no bound session'));
    return new Promise((resolve) => {
      session.enquire_link({}, (resp) => resolve(resp.command_status));
    });
  }

  /** Writes raw bytes on the most recent bind (garbage, a truncated PDU, ...). */
  writeRaw(bytes: Buffer): void {
    const session = [...this.bound].at(-1);
    if (!session) throw new Error('no bound session');
    session.socket.write(bytes);
  }

  /** Unbinds the most recent bind from the SMSC side. */
  unbind(): Promise<void> {
    const session = [...this.bound].at(-1);
    if (!session) return Promise.reject(new Error('no bound session'));
    return new Promise((resolve) => {
      session.unbind({}, () => resolve());
    });
  }

  /** Cuts every connection at once, as a crashing SMSC or a broken link would. */
  dropConnections(): void {
    for (const session of this.server.sessions) session.socket.destroy();
  }

  async waitFor(condition: () => boolean, timeoutMs = 3_000, what = 'condition'): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > until) throw new Error(`SMSC peer: timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Stops listening (connections stay until dropConnections or stop). */
  async stopListening(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  async listen(port: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.portNumber = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.dropConnections();
    if (this.server.listening) await this.stopListening();
  }

  private onSession(session: smpp.Session): void {
    session.on('error', () => undefined);
    let unanswered = 0;
    session.socket.on('close', () => {
      this.bound.delete(session);
      this.inFlight -= unanswered;
      unanswered = 0;
    });
    session.on('bind_transceiver', (pdu: smpp.PDU) => {
      const bind: RecordedBind = {
        systemId: String(pdu.system_id),
        password: String(pdu.password),
        systemType: String(pdu.system_type),
        interfaceVersion: Number(pdu.interface_version),
        accepted: pdu.system_id === this.systemId && pdu.password === this.password,
      };
      this.binds.push(bind);
      if (!bind.accepted) {
        const status = pdu.system_id === this.systemId ? smpp.errors.ESME_RINVPASWD : smpp.errors.ESME_RINVSYSID;
        session.send(pdu.response({ command_status: status }));
        return;
      }
      this.bound.add(session);
      session.send(pdu.response({ system_id: 'peer-smsc' }));
    });
    session.on('submit_sm', (pdu: smpp.PDU) => {
      const bindIndex = this.binds.filter((b) => b.accepted).length - 1;
      const decoded = pdu.short_message as { message: string | Buffer; udh?: Buffer[] };
      const submit: RecordedSubmit = {
        serviceType: String(pdu.service_type),
        sourceAddr: String(pdu.source_addr),
        sourceAddrTon: Number(pdu.source_addr_ton),
        sourceAddrNpi: Number(pdu.source_addr_npi),
        destinationAddr: String(pdu.destination_addr),
        destAddrTon: Number(pdu.dest_addr_ton),
        destAddrNpi: Number(pdu.dest_addr_npi),
        esmClass: Number(pdu.esm_class),
        registeredDelivery: Number(pdu.registered_delivery),
        dataCoding: Number(pdu.data_coding),
        text: typeof decoded.message === 'string' ? decoded.message : decoded.message.toString('latin1'),
        udh: decoded.udh ?? [],
        bindIndex,
        vendorTlvs: vendorTlvsOf(pdu),
      };
      const index = this.submits.length;
      this.submits.push(submit);
      this.inFlight += 1;
      unanswered += 1;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      const answer = this.answer(submit, index);
      if (answer.hang) return;
      const reply = (): void => {
        if (session.socket.destroyed) return;
        this.inFlight -= 1;
        unanswered -= 1;
        const status = answer.status ?? 0;
        if (status === 0) {
          submit.messageId = `msg-${this.nextId++}`;
          session.send(pdu.response({ message_id: submit.messageId }));
        } else {
          session.send(pdu.response({ command_status: status }));
        }
      };
      if (answer.delayMs) setTimeout(reply, answer.delayMs);
      else reply();
    });
    session.on('enquire_link', (pdu: smpp.PDU) => {
      this.enquireLinks += 1;
      if (this.answerEnquireLink) session.send(pdu.response());
    });
    session.on('unbind', (pdu: smpp.PDU) => {
      this.unbinds += 1;
      this.bound.delete(session);
      session.send(pdu.response());
      session.close();
    });
  }
}

/**
 * The PDU's vendor TLVs: the package decodes a tag it does not know under the tag's number, and one a
 * codec in this process registered under that name (smpp.tlvs maps it back to its tag).
 */
function vendorTlvsOf(pdu: smpp.PDU): Map<number, Buffer> {
  const found = new Map<number, Buffer>();
  for (const [key, value] of Object.entries(pdu)) {
    const tag = /^\d+$/.test(key) ? Number(key) : smpp.tlvs[key]?.id;
    if (tag !== undefined && tag >= 0x1400 && tag <= 0x3fff && Buffer.isBuffer(value)) found.set(tag, value);
  }
  return found;
}
