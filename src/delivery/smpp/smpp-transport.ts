// `smpp://` / `smpps://`: SMS through an operator's own SMSC over SMPP 3.4, on one long-lived
// transceiver bind (submits go out on it, delivery receipts come back on it).
//
//   smpp://SYSTEM_ID:PASSWORD@HOST:PORT?param=value&...      plain TCP, port defaults to 2775
//   smpps://SYSTEM_ID:PASSWORD@HOST:PORT?param=value&...     TLS, port defaults to 3550; the SMSC's
//                                                            certificate is verified against the system
//                                                            CAs (add a private CA with NODE_EXTRA_CA_CERTS)
//
// SYSTEM_ID and PASSWORD are percent-encoded like any URL user info (bind_transceiver's system_id and
// password). Query parameters (percent-encode values; `+` is kept as a plus sign):
//
//   system_type=             bind_transceiver system_type                                    default empty
//   service_type=            submit_sm service_type                                          default empty
//   source_ton=, source_npi= source address TON (0-6) / NPI (0,1,3,4,6,8,9,10,14,18)         default: from the
//                            sender's shape: alphanumeric → 5/0; "+" or more than 8 digits → 1/1
//                            (international); up to 8 digits → 0/1 (short code); no sender → 0/0
//                            with an empty source_addr (the SMSC's default). Each one given
//                            overrides that field for every sender.
//   dest_ton=, dest_npi=     destination TON / NPI (the destination is always international digits)
//                                                                                            default 1 / 1
//   registered_delivery=     0 no receipts, 1 a receipt for every final outcome, 2 only for failures
//                                                                                            default 1
//   window=                  most submit_sm awaiting their answer at once (1-1000); more wait  default 10,
//                            or max_in_flight (read by dsn.ts with max_tps, for every transport)
//   enquire_link=            keep-alive: enquire_link after this long without traffic (100ms-1h)
//                                                                                            default 30s
//   timeout=                 longest a send may take: waiting for the bind, for a window slot and
//                            for every part's submit_sm_resp together (100ms-5m); also the limit
//                            for bind, enquire_link and unbind answers                       default 10s
//   dlt_entity_tlv=          India DLT: the vendor TLV tag that carries the Principal Entity id (a route's
//                            `regulatory.dltEntityId`), as an octet string of its digits    default 0x1400
//   dlt_template_tlv=        India DLT: the vendor TLV tag of the content template id
//                            (`regulatory.dltTemplateId`)                                   default 0x1401
//                            Both defaults are the tags India's operators published in their DLT SMPP
//                            interface specification (PE_ID, TEMPLATE_ID); an SMSC with other tags
//                            names them here, in hex (0x1400) or decimal (5120), within 0x1400-0x3FFF.
//                            The TLVs go on every part of a message whose route sets the ids, only then.
//   dlr_regex=               pattern for receipt texts whose format is not SMPP 3.4 Appendix B,
//                            with named groups (?<id>...) and (?<stat>...), optionally (?<err>...);
//                            matched case-insensitively                                      default: Appendix B
//
// Durations are {length}{unit} with unit ms, s, m, h or d, e.g. 500ms, 30s, 1m.
//
// Encoding: GSM 03.38 (data_coding 0) when every character has a GSM code (€ and other extension
// characters count twice), UCS-2 (data_coding 8) otherwise. Texts longer than one SMS (160 GSM
// septets / 70 UCS-2 units) go out as parts of 153 septets / 67 units behind a 6-octet concatenation
// UDH (esm_class 0x40; 05 00 03 ref total seq), never splitting an escape or surrogate pair; every
// part asks for a receipt. `ref` comes from a per-transport counter started at a random value from
// node:crypto, so consecutive long messages to one phone never share a reference.
//
// Throttling: ESME_RTHROTTLED or ESME_RMSGQFUL to the first part pauses the transport, halves its
// window and submits the message again (transport-pacer.ts), without spending one of its attempts.
// `window` (or max_in_flight) is the most submit_sm outstanding on the bind, matched to their answers by
// sequence number.
//
// Outcomes: every part answered ESME_ROK → ok, providerMessageId = the LAST part's message_id. The
// receipts of all parts are folded into one for that id (see multipart-receipts.ts). Retryable:
// ESME_RTHROTTLED, ESME_RMSGQFUL, ESME_RSYSERR, ESME_RINVBNDSTS (the SMSC lost our bind state), no
// answer within the timeout, no connection or bind, a bind refused for a reason other than the
// credentials, and a connection lost after a submit_sm went out. Not retryable: any other
// command_status (ESME_RINVDSTADR, ESME_RINVSRCADR, ...: this message will never be accepted), and a
// bind refused with ESME_RINVPASWD / ESME_RINVSYSID / ESME_RINVSYSTYP (the DSN is wrong; sending the
// message again cannot help, and the operator sees the error on the PIN at once).
//
// No part is ever written twice within one send. A bind lost while parts are in flight fails the send
// as retryable and the outbox later sends the whole message again, because only the SMSC knows
// whether it took the lost part; the price is that a recipient may, rarely, get a part (or a whole
// short message) twice across attempts, never within one.
import { randomInt } from 'node:crypto';
import type { ConnectionOptions } from 'node:tls';
import type { Logger } from 'pino';
import { maskDestination } from '../../domain/destinations.js';
import { parseDuration } from '../../domain/durations.js';
import type { DeliveryReceipt, DeliveryResult, OutgoingMessage, ReceiptListener, Transport } from '../transport.js';
import { compileReceiptPattern, ESM_CLASS_DELIVERY_RECEIPT, parseDeliveryReceipt } from './delivery-receipt.js';
import { MultipartReceipts } from './multipart-receipts.js';
import { concatenationUdh, encodeSmsText, ESM_CLASS_UDHI, MAX_PARTS, type EncodedSms } from './sms-encoding.js';
import {
  describeCommandStatus,
  ESME_RINVBNDSTS,
  ESME_RMSGQFUL,
  ESME_ROK,
  ESME_RSYSERR,
  ESME_RTHROTTLED,
} from './smpp-command-status.js';
import { SmppSession, SmppSessionError, type DeliverSm, type SubmitSm } from './smpp-session.js';

export interface SmppSettings {
  host: string;
  port: number;
  tls: boolean;
  systemId: string;
  password: string;
  systemType: string;
  serviceType: string;
  sourceTon: number | undefined;
  sourceNpi: number | undefined;
  destTon: number;
  destNpi: number;
  registeredDelivery: number;
  window: number;
  enquireLinkMs: number;
  timeoutMs: number;
  receiptPattern: RegExp | undefined;
  /** Vendor TLV tags of India's DLT ids. */
  dltEntityTlv: number;
  dltTemplateTlv: number;
}

export interface SmppTransportDeps {
  logger: Logger;
  onReceipt: ReceiptListener;
  /** When a receipt arrived (UNIX ms); injectable for tests. */
  clock?: () => number;
  /** Extra TLS options for smpps:// (e.g. a private `ca`); operators use NODE_EXTRA_CA_CERTS instead. */
  tls?: ConnectionOptions;
  /** Reconnect backoff bounds; defaults 1 s and 60 s. */
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
}

const DEFAULT_PORT = 2775;
const DEFAULT_TLS_PORT = 3550;
const EXAMPLE = 'smpp://SYSTEM_ID:PASSWORD@smsc.example.com:2775?registered_delivery=1&window=10&enquire_link=30s&timeout=10s';
const PARAMETERS = [
  'system_type',
  'service_type',
  'source_ton',
  'source_npi',
  'dest_ton',
  'dest_npi',
  'registered_delivery',
  'window',
  'enquire_link',
  'timeout',
  'dlt_entity_tlv',
  'dlt_template_tlv',
  'dlr_regex',
] as const;

/** India DLT's vendor TLV tags in the operators' SMPP interface specification: PE_ID and TEMPLATE_ID. */
export const DEFAULT_DLT_ENTITY_TLV = 0x1400;
export const DEFAULT_DLT_TEMPLATE_TLV = 0x1401;
type Parameter = (typeof PARAMETERS)[number];

const TONS = new Set([0, 1, 2, 3, 4, 5, 6]);
const NPIS = new Set([0, 1, 3, 4, 6, 8, 9, 10, 14, 18]);
const TON_INTERNATIONAL = 1;
const TON_UNKNOWN = 0;
const TON_ALPHANUMERIC = 5;
const NPI_UNKNOWN = 0;
const NPI_ISDN = 1;
/** Up to this many digits a numeric sender is taken for a short code rather than a phone number. */
const SHORT_CODE_MAX_DIGITS = 8;
/** source_addr is a C-octet string of at most 21 octets. */
const NUMERIC_SENDER_MAX_DIGITS = 20;
const ALPHANUMERIC_SENDER_MAX = 11;

const RETRYABLE_STATUSES = new Set([ESME_RTHROTTLED, ESME_RMSGQFUL, ESME_RSYSERR, ESME_RINVBNDSTS]);
/** Throttling error (the ESME exceeded its allowed message limits) and message queue full. */
const SLOW_DOWN_STATUSES = new Set([ESME_RTHROTTLED, ESME_RMSGQFUL]);
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '::1']);

export function createSmppTransport(variable: string, url: URL, deps: SmppTransportDeps): Transport {
  const settings = parseSmppDsn(variable, url);
  if (!settings.tls && !LOOPBACK_HOSTS.has(settings.host)) {
    deps.logger.warn(
      { variable, smsc: `${settings.host}:${settings.port}` },
      'SMPP over plain TCP: PINs and the bind password cross the network unencrypted; use smpps:// or a private link outside a trusted network',
    );
  }
  const transport = new SmppTransport(settings, deps);
  // Bind at once: receipts the SMSC queued while we were away arrive, and wrong credentials show in
  // the log at startup rather than at the first PIN.
  transport.start();
  return transport;
}

export class SmppTransport implements Transport {
  readonly name = 'smpp';
  private readonly session: SmppSession;
  private readonly receipts: MultipartReceipts;
  private readonly logger: Logger;
  private readonly clock: () => number;
  private reference: number;

  constructor(
    private readonly settings: SmppSettings,
    private readonly deps: SmppTransportDeps,
  ) {
    this.logger = deps.logger.child({ transport: 'smpp' });
    this.clock = deps.clock ?? Date.now;
    this.receipts = new MultipartReceipts({ clock: this.clock });
    this.reference = randomInt(0, 256);
    this.session = new SmppSession({
      host: settings.host,
      port: settings.port,
      tls: settings.tls ? (deps.tls ?? true) : false,
      systemId: settings.systemId,
      password: settings.password,
      systemType: settings.systemType,
      enquireLinkIntervalMs: settings.enquireLinkMs,
      responseTimeoutMs: settings.timeoutMs,
      window: settings.window,
      ...(deps.reconnectMinMs !== undefined && { reconnectMinMs: deps.reconnectMinMs }),
      ...(deps.reconnectMaxMs !== undefined && { reconnectMaxMs: deps.reconnectMaxMs }),
      logger: this.logger,
      onDeliverSm: (pdu) => this.onDeliverSm(pdu),
    });
  }

  start(): void {
    this.session.start();
  }

  async send(message: OutgoingMessage): Promise<DeliveryResult> {
    const started = Date.now();
    const text = message.text;
    if (text === undefined || text === '') return refuse('the SMS text is empty');
    const destination = message.to.startsWith('+') ? message.to.slice(1) : message.to;
    if (!/^[0-9]{1,20}$/.test(destination)) {
      return refuse(`destination ${maskDestination(message.to)} is not an international phone number (digits only)`);
    }
    const source = this.sourceAddress(message.from);
    if (typeof source === 'string') return refuse(source);

    const regulatoryTlvs = this.regulatoryTlvs(message);
    const encoded: EncodedSms = encodeSmsText(text);
    const total = encoded.parts.length;
    if (total > MAX_PARTS) return refuse(`the text needs ${total} SMS parts; at most ${MAX_PARTS} can be concatenated`);
    const multipart = total > 1;
    const reference = multipart ? this.nextReference() : 0;
    const tracking = multipart && this.settings.registeredDelivery !== 0 ? this.receipts.begin() : undefined;
    const deadline = started + this.settings.timeoutMs;

    let lastId = '';
    for (let index = 0; index < total; index++) {
      const part = encoded.parts[index] as Buffer;
      const label = multipart ? ` (part ${index + 1} of ${total}${index > 0 ? `; ${index} already accepted, a retry sends the whole message again` : ''})` : '';
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        if (tracking) this.receipts.abandon(tracking);
        return { ok: false, retryable: true, error: `SMPP send took longer than ${this.settings.timeoutMs} ms${label}` };
      }
      const pdu: SubmitSm = {
        serviceType: this.settings.serviceType,
        sourceAddrTon: source.ton,
        sourceAddrNpi: source.npi,
        sourceAddr: source.addr,
        destAddrTon: this.settings.destTon,
        destAddrNpi: this.settings.destNpi,
        destinationAddr: destination,
        esmClass: multipart ? ESM_CLASS_UDHI : 0,
        registeredDelivery: this.settings.registeredDelivery,
        dataCoding: encoded.dataCoding,
        shortMessage: multipart ? Buffer.concat([concatenationUdh(reference, total, index + 1), part]) : part,
        ...(regulatoryTlvs.length > 0 && { tlvs: regulatoryTlvs }),
      };
      let commandStatus: number;
      try {
        const resp = await this.session.submit(pdu, { timeoutMs: remaining });
        commandStatus = resp.commandStatus;
        lastId = resp.messageId;
      } catch (err) {
        if (tracking) this.receipts.abandon(tracking);
        if (err instanceof SmppSessionError) return { ok: false, retryable: err.retryable, error: `SMPP: ${err.message}${label}` };
        throw err;
      }
      if (commandStatus !== ESME_ROK) {
        if (tracking) this.receipts.abandon(tracking);
        const retryable = RETRYABLE_STATUSES.has(commandStatus);
        const error = `the SMSC refused submit_sm with ${describeCommandStatus(commandStatus)}${label}`;
        // The SMSC asks us to slow down: the pacer pauses and submits again. Only before any part
        // went through: past that, sending again repeats the accepted parts, so it is an ordinary retry.
        if (index === 0 && SLOW_DOWN_STATUSES.has(commandStatus)) return { ok: false, retryable: true, error, throttled: {} };
        return { ok: false, retryable, error };
      }
      if (tracking && lastId !== '') this.receipts.addPart(tracking, lastId);
    }

    this.logger.debug(
      { to: maskDestination(destination), pinId: message.pinId, parts: total, encoding: encoded.encoding, providerMessageId: lastId },
      'SMS submitted over SMPP',
    );
    if (tracking && lastId !== '') {
      const outcome = this.receipts.complete(tracking, lastId);
      // A fast SMSC's receipts can overtake the last submit_sm_resp; they are reported once the id is known.
      if (outcome.kind === 'report') setImmediate(() => this.emit(outcome.providerMessageId, outcome.status, outcome.error));
    } else if (tracking) {
      this.receipts.abandon(tracking);
    }
    return lastId === '' ? { ok: true } : { ok: true, providerMessageId: lastId };
  }

  async close(): Promise<void> {
    await this.session.close();
  }

  private nextReference(): number {
    this.reference = (this.reference + 1) & 0xff;
    return this.reference;
  }

  /** The route's regulatory fields as the SMSC's vendor TLVs (India DLT), octet strings of their digits. */
  private regulatoryTlvs(message: OutgoingMessage): { tag: number; value: Buffer }[] {
    const tlvs: { tag: number; value: Buffer }[] = [];
    const { dltEntityId, dltTemplateId } = message.regulatory ?? {};
    if (dltEntityId !== undefined) tlvs.push({ tag: this.settings.dltEntityTlv, value: Buffer.from(dltEntityId, 'ascii') });
    if (dltTemplateId !== undefined) tlvs.push({ tag: this.settings.dltTemplateTlv, value: Buffer.from(dltTemplateId, 'ascii') });
    return tlvs;
  }

  private sourceAddress(from: string | undefined): { addr: string; ton: number; npi: number } | string {
    const { sourceTon, sourceNpi } = this.settings;
    const pick = (ton: number, npi: number, addr: string) => ({ addr, ton: sourceTon ?? ton, npi: sourceNpi ?? npi });
    if (from === undefined || from === '') return pick(TON_UNKNOWN, NPI_UNKNOWN, '');
    const numeric = /^(\+?)([0-9]+)$/.exec(from);
    if (numeric) {
      const digits = numeric[2] as string;
      if (digits.length > NUMERIC_SENDER_MAX_DIGITS) return `sender ${from} is longer than ${NUMERIC_SENDER_MAX_DIGITS} digits`;
      const international = numeric[1] === '+' || digits.length > SHORT_CODE_MAX_DIGITS;
      return international ? pick(TON_INTERNATIONAL, NPI_ISDN, digits) : pick(TON_UNKNOWN, NPI_ISDN, digits);
    }
    if (from.length > ALPHANUMERIC_SENDER_MAX || !/^[\x20-\x7E]+$/.test(from)) {
      return `sender "${from}" cannot be an SMPP source address: an alphanumeric sender is at most ${ALPHANUMERIC_SENDER_MAX} printable ASCII characters`;
    }
    return pick(TON_ALPHANUMERIC, NPI_UNKNOWN, from);
  }

  private onDeliverSm(pdu: DeliverSm): void {
    if ((pdu.esmClass & ESM_CLASS_DELIVERY_RECEIPT) === 0) {
      // A reply from a phone (mobile-originated message): acknowledged, but nothing here reads replies.
      this.logger.debug({ esmClass: pdu.esmClass }, 'SMPP deliver_sm that is not a delivery receipt acknowledged and ignored');
      return;
    }
    const parsed = parseDeliveryReceipt(pdu, this.settings.receiptPattern);
    if (!parsed.ok) {
      // The id at most: the text may quote the message, and with it the PIN.
      this.logger.warn({ providerMessageId: parsed.messageId, reason: parsed.reason }, 'malformed SMPP delivery receipt acknowledged and ignored');
      return;
    }
    if (parsed.status === 'pending') {
      this.logger.debug({ providerMessageId: parsed.messageId, state: parsed.state }, 'SMPP intermediate receipt ignored');
      return;
    }
    const outcome = this.receipts.receipt(parsed.messageId, parsed.status, parsed.error);
    if (outcome.kind === 'untracked') this.emit(parsed.messageId, parsed.status, parsed.error);
    else if (outcome.kind === 'report') this.emit(outcome.providerMessageId, outcome.status, outcome.error);
  }

  private emit(providerMessageId: string, status: DeliveryReceipt['status'], error: string | undefined): void {
    const receipt: DeliveryReceipt = { transport: this.name, providerMessageId, status, at: this.clock() };
    if (error !== undefined) receipt.error = error;
    try {
      this.deps.onReceipt(receipt);
    } catch (err) {
      this.logger.error({ err, providerMessageId }, 'delivery receipt listener failed');
    }
  }
}

function refuse(error: string): DeliveryResult {
  return { ok: false, retryable: false, error };
}

/** Reads and checks an smpp:// or smpps:// DSN. Every error names the variable and shows an example. */
export function parseSmppDsn(variable: string, url: URL): SmppSettings {
  const fail = (problem: string): never => {
    throw new Error(`${variable}: ${problem}; expected e.g. ${EXAMPLE}`);
  };
  const scheme = url.protocol.replace(/:$/, '').toLowerCase();
  if (scheme !== 'smpp' && scheme !== 'smpps') fail(`the SMPP DSN must start with smpp:// or smpps://, not ${scheme}://`);
  const tls = scheme === 'smpps';

  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') fail('the SMPP DSN needs the SMSC host');
  const port = url.port === '' ? (tls ? DEFAULT_TLS_PORT : DEFAULT_PORT) : Number(url.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) fail(`port ${url.port} is not a TCP port`);

  const systemId = decode(url.username);
  const password = decode(url.password);
  if (systemId === undefined || password === undefined) fail('the system_id or password is not valid percent-encoding');
  if (systemId === '') fail('the SMPP DSN needs the system_id as the user name (SYSTEM_ID:PASSWORD@)');
  if (!/^[\x20-\x7E]*$/.test(systemId as string) || !/^[\x20-\x7E]*$/.test(password as string)) {
    fail('the system_id and password must be printable ASCII (SMPP C-octet strings)');
  }
  if (url.pathname !== '' && url.pathname !== '/') fail(`the SMPP DSN has no path (found ${url.pathname})`);

  const params = new Map<Parameter, string>();
  // Split by hand: URLSearchParams would turn a `+` of a dlr_regex into a space.
  for (const pair of url.search.replace(/^\?/, '').split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const name = decode(at === -1 ? pair : pair.slice(0, at)) ?? pair;
    const value = decode(at === -1 ? '' : pair.slice(at + 1));
    if (!(PARAMETERS as readonly string[]).includes(name)) fail(`unknown SMPP DSN parameter "${name}" (known: ${PARAMETERS.join(', ')})`);
    if (value === undefined) fail(`parameter ${name} is not valid percent-encoding`);
    if (params.has(name as Parameter)) fail(`parameter ${name} is given twice`);
    params.set(name as Parameter, value as string);
  }

  const integer = (name: Parameter, allowed: (n: number) => boolean, rule: string, fallback: number): number => {
    const text = params.get(name);
    if (text === undefined) return fallback;
    const n = /^[0-9]{1,6}$/.test(text) ? Number(text) : Number.NaN;
    if (!allowed(n)) fail(`${name}=${text} is not valid: ${rule}`);
    return n;
  };
  const optionalCode = (name: Parameter, set: Set<number>): number | undefined =>
    params.has(name) ? integer(name, (n) => set.has(n), `must be one of ${[...set].join(', ')}`, 0) : undefined;
  const duration = (name: Parameter, minMs: number, maxMs: number, fallback: number, rule: string): number => {
    const text = params.get(name);
    if (text === undefined) return fallback;
    const ms = parseDuration(text);
    if (ms === null || ms < minMs || ms > maxMs) fail(`${name}=${text} is not valid: ${rule}`);
    return ms as number;
  };

  // SMPP 3.4 §5.3.2: tags 0x1400-0x3FFF are reserved for SMSC vendor-specific TLVs.
  const vendorTag = (name: Parameter, fallback: number): number => {
    const text = params.get(name);
    if (text === undefined) return fallback;
    const tag = /^0x[0-9a-f]{1,4}$/i.test(text) ? Number.parseInt(text.slice(2), 16) : /^[0-9]{1,5}$/.test(text) ? Number(text) : Number.NaN;
    if (!(tag >= 0x1400 && tag <= 0x3fff)) fail(`${name}=${text} is not valid: must be a vendor-specific TLV tag from 0x1400 to 0x3FFF, e.g. ${name}=0x1400`);
    return tag;
  };

  let receiptPattern: RegExp | undefined;
  const dlrRegex = params.get('dlr_regex');
  if (dlrRegex !== undefined) {
    const compiled = compileReceiptPattern(dlrRegex);
    if (typeof compiled === 'string') fail(`dlr_regex ${compiled}`);
    receiptPattern = compiled as RegExp;
  }

  return {
    host,
    port,
    tls,
    systemId: systemId as string,
    password: password as string,
    systemType: params.get('system_type') ?? '',
    serviceType: params.get('service_type') ?? '',
    sourceTon: optionalCode('source_ton', TONS),
    sourceNpi: optionalCode('source_npi', NPIS),
    destTon: integer('dest_ton', (n) => TONS.has(n), `must be one of ${[...TONS].join(', ')}`, TON_INTERNATIONAL),
    destNpi: integer('dest_npi', (n) => NPIS.has(n), `must be one of ${[...NPIS].join(', ')}`, NPI_ISDN),
    registeredDelivery: integer('registered_delivery', (n) => n === 0 || n === 1 || n === 2, 'must be 0 (no receipts), 1 (all final outcomes) or 2 (failures only)', 1),
    window: integer('window', (n) => n >= 1 && n <= 1000, 'must be a whole number from 1 to 1000', 10),
    enquireLinkMs: duration('enquire_link', 100, 3_600_000, 30_000, 'must be a duration from 100ms to 1h, e.g. 30s'),
    timeoutMs: duration('timeout', 100, 300_000, 10_000, 'must be a duration from 100ms to 5m, e.g. 10s'),
    receiptPattern,
    dltEntityTlv: vendorTag('dlt_entity_tlv', DEFAULT_DLT_ENTITY_TLV),
    dltTemplateTlv: vendorTag('dlt_template_tlv', DEFAULT_DLT_TEMPLATE_TLV),
  };
}

function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
