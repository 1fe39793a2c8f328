// `smtp://user:pass@host:port` / `smtps://user:pass@host:port`: email through the operator's mail
// server, by nodemailer over a small pool of kept-open connections. `smtp://` upgrades with
// STARTTLS and, for any host but the machine itself, refuses a server that does not offer it
// (require_tls, see smtpRequireTls); `smtps://` speaks TLS from the first byte (port 465).
//
// Outcome of a send, in the terms of RFC 5321's reply classes:
//   2xx for the message                 -> sent; its Message-ID is the provider message id
//   5xx (except 503), e.g. 550 no such user, 552 too big, 554 refused, 535 bad credentials
//                                       -> failed at once: the server will say the same again
//   4xx (451, 421, 452, ...) and 503    -> retried: the server says "not now"
//   no answer: refused or reset connection, DNS failure, no greeting, silence mid-session, the
//   whole send taking longer than SEND_DEADLINE_FACTOR x timeout
//                                       -> retried
//   a TLS failure (require_tls against a server without STARTTLS, a certificate that does not
//   verify), missing credentials the server demands, no sender, an unusable address
//                                       -> failed at once: only a configuration change helps
import { createHash, randomUUID } from 'node:crypto';
import { createTransport } from 'nodemailer';
import type { Logger } from 'pino';
import { maskDestination, normalizeEmailAddress, parseEmailSender, type EmailSenderResult } from '../../domain/destinations.js';
import { decode, isLoopback, readBoolean, readDsnParams, readTimeout } from '../providers/provider-dsn.js';
import { redactProviderText } from '../providers/redact-provider-text.js';
import type { DeliveryResult, OutgoingMessage, Transport } from '../transport.js';

export const SMTP_TIMEOUT_MS = 10_000;
export const SMTP_DSN_EXAMPLE = 'smtp://user:password@mail.example.com:587?from=noreply@example.com';
const DEFAULT_MAX_CONNECTIONS = 5;
const MAX_CONNECTIONS_LIMIT = 100;
// Each step (connect, greeting, every reply) has `timeout`; a server trickling its replies could
// still hold a send for ever, so the send as a whole gets a few of them.
const SEND_DEADLINE_FACTOR = 3;
const PARAMS = ['from', 'pool', 'max_connections', 'timeout', 'require_tls', 'tls_reject_unauthorized', 'local_domain'] as const;

// Codes nodemailer gives errors that carry no SMTP reply.
const RETRYABLE_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'EPROTOCOL', 'EABORT', 'EMAXLIMIT', 'ECONNREFUSED', 'ECONNRESET']);

// Node's codes for a certificate that does not verify or a TLS handshake that cannot happen
// (DEPTH_ZERO_SELF_SIGNED_CERT, CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID, ERR_SSL_...).
const TLS_FAILURE = /CERT|UNABLE_TO_|^ERR_TLS_|^ERR_SSL_/;

type Sender = { name: string | undefined; address: string };

export interface SmtpTransportOptions {
  host: string;
  port: number;
  /** Implicit TLS from the first byte (smtps). */
  secure: boolean;
  user?: string;
  password?: string;
  /** The sender when neither the message nor its template names one. */
  from?: Sender;
  pool?: boolean;
  maxConnections?: number;
  timeoutMs?: number;
  requireTls?: boolean;
  rejectUnauthorized?: boolean;
  /** The name we greet the server with (EHLO); the machine's host name by default. */
  localDomain?: string;
}

interface SmtpError {
  code?: string;
  responseCode?: number;
  response?: string;
  command?: string;
  timeoutType?: string;
  originalCode?: string;
  message?: string;
}

export class SmtpTransport implements Transport {
  readonly name = 'smtp';
  private readonly mailer: ReturnType<typeof createTransport>;
  private readonly timeoutMs: number;

  constructor(
    private readonly options: SmtpTransportOptions,
    private readonly logger: Logger,
  ) {
    this.timeoutMs = options.timeoutMs ?? SMTP_TIMEOUT_MS;
    const common = {
      host: options.host,
      port: options.port,
      secure: options.secure,
      ...(options.user !== undefined && { auth: { user: options.user, pass: options.password ?? '' } }),
      requireTLS: options.requireTls ?? false,
      tls: { rejectUnauthorized: options.rejectUnauthorized ?? true, servername: isIp(options.host) ? undefined : options.host },
      connectionTimeout: this.timeoutMs,
      greetingTimeout: this.timeoutMs,
      socketTimeout: this.timeoutMs,
      dnsTimeout: this.timeoutMs,
      ...(options.localDomain !== undefined && { name: options.localDomain }),
      // The message carries the PIN: nodemailer's logger (which can dump the message) stays off.
      logger: false,
      debug: false,
      // Our strings are the whole message: nothing may pull in a file or a URL.
      disableFileAccess: true,
      disableUrlAccess: true,
    } as const;
    this.mailer = options.pool === false
      ? createTransport(common)
      : createTransport({
        ...common,
        pool: true as const,
        maxConnections: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
        // A connection that dies mid-send fails the send instead of being silently replayed on
        // another: the outbox decides about retries and keeps count of them.
        maxRequeues: 0,
      });
    // Without a listener, an error the pool reports outside a send would crash the process.
    this.mailer.on('error', (err: SmtpError) => {
      this.logger.warn({ transport: 'smtp', code: err.code, responseCode: err.responseCode }, 'smtp connection error');
    });
  }

  async send(message: OutgoingMessage): Promise<DeliveryResult> {
    if (message.channel !== 'email') return refuse(`the smtp transport sends email only, not ${message.channel}`);
    if ((message.text === undefined || message.text === '') && (message.html === undefined || message.html === '')) {
      return refuse('the email has neither a text nor an HTML part');
    }
    const recipient = normalizeEmailAddress(message.to);
    if (!recipient.ok) return refuse(`the destination ${maskDestination(message.to)} is not an email address`);

    let sender: Sender;
    if (message.from !== undefined && message.from !== '') {
      const parsed: EmailSenderResult = parseEmailSender(message.from);
      if (!parsed.ok) return refuse(`the email template's from is not usable: ${parsed.error}`);
      sender = { name: parsed.name, address: parsed.address };
    } else if (this.options.from !== undefined) {
      sender = this.options.from;
    } else {
      return refuse(`no sender: the email template has no from and the DSN has no from parameter, e.g. ${SMTP_DSN_EXAMPLE}`);
    }

    const messageId = messageIdFor(message, sender.address);
    try {
      const info = await this.mailer.sendMail({
        from: sender.name === undefined ? sender.address : { name: sender.name, address: sender.address },
        to: { name: '', address: message.to },
        ...(message.subject !== undefined && { subject: message.subject }),
        ...(message.text !== undefined && message.text !== '' && { text: message.text }),
        ...(message.html !== undefined && message.html !== '' && { html: message.html }),
        messageId,
        headers: {
          // RFC 3834: a PIN mail is machine-generated; out-of-office robots must not answer it.
          'Auto-Submitted': 'auto-generated',
          'X-Auto-Response-Suppress': 'All',
        },
        signal: AbortSignal.timeout(this.timeoutMs * SEND_DEADLINE_FACTOR),
      });
      const rejected = (info as { rejectedErrors?: SmtpError[] }).rejectedErrors;
      if (Array.isArray(rejected) && rejected.length > 0) return this.failure(rejected[0] as SmtpError, message);
      return { ok: true, providerMessageId: messageId };
    } catch (err) {
      return this.failure(err as SmtpError, message);
    }
  }

  async close(): Promise<void> {
    this.mailer.close();
  }

  private failure(err: SmtpError, message: OutgoingMessage): DeliveryResult {
    const code = typeof err.responseCode === 'number' ? err.responseCode : undefined;
    if (code !== undefined && code >= 200 && code < 600) {
      const permanent = code >= 500 && code !== 503;
      return { ok: false, retryable: !permanent, error: `SMTP server answered ${describeReply(code, err, message)}` };
    }
    const timeoutMs = this.timeoutMs;
    switch (err.timeoutType) {
      case 'CONNECT_TIMEOUT':
        return retry(`could not connect to the SMTP server within ${timeoutMs / 1000} s`);
      case 'GREETING_TIMEOUT':
        return retry(`the SMTP server did not send its greeting within ${timeoutMs / 1000} s`);
      case 'UPGRADE_TIMEOUT':
        return retry(`the TLS upgrade with the SMTP server did not finish within ${timeoutMs / 1000} s`);
      case 'SOCKET_TIMEOUT':
        // Before the greeting (command CONN) the socket's idle timer can fire first.
        return retry(err.command === 'CONN'
          ? `the SMTP server did not send its greeting within ${timeoutMs / 1000} s`
          : `the SMTP server went silent for ${timeoutMs / 1000} s`);
    }
    const name = (err as Error).name;
    if (name === 'TimeoutError' || err.code === 'EABORT') {
      return retry(`the SMTP send did not finish within ${(timeoutMs * SEND_DEADLINE_FACTOR) / 1000} s`);
    }
    const cause = err.originalCode ?? err.code;
    if (err.code === 'ETLS' || err.code === 'EREQUIRETLS' || (err.originalCode !== undefined && TLS_FAILURE.test(err.originalCode))) {
      return refuse(`TLS with the SMTP server failed (${err.originalCode ?? err.code}): ${redactProviderText(err.message ?? '', message)}; check require_tls and the server's certificate`);
    }
    if (err.code === 'EAUTH' || err.code === 'ENOAUTH') {
      return refuse(`SMTP authentication failed (${err.code}); check the user and password in the DSN`);
    }
    if (cause !== undefined && RETRYABLE_CODES.has(cause)) return retry(`SMTP connection failed: ${cause}`);
    if (err.code !== undefined && RETRYABLE_CODES.has(err.code)) return retry(`SMTP connection failed: ${err.code}`);
    if (err.code === 'EENVELOPE' || err.code === 'EMESSAGE') {
      return refuse(`the SMTP server refused the message (${err.code}): ${redactProviderText(err.message ?? '', message)}`);
    }
    // Anything else is unexpected: assume the infrastructure and let the outbox try again.
    return retry(`SMTP send failed${cause !== undefined ? ` (${cause})` : ''}: ${redactProviderText(err.message ?? '', message)}`);
  }
}

function describeReply(code: number, err: SmtpError, message: OutgoingMessage): string {
  // "550 5.1.1 <john@example.com>: Recipient address rejected" -> code, enhanced code, reason.
  let reply = (err.response ?? '').trim().replace(/^\d{3}[ -]?/, '');
  const enhanced = /^([245]\.\d{1,3}\.\d{1,3})\s*/.exec(reply);
  if (enhanced !== null) reply = reply.slice(enhanced[0].length);
  const command = err.command === undefined ? '' : ` to ${err.command.split(/[\s:]/)[0]?.toUpperCase() ?? ''}`;
  const text = redactProviderText(reply, message);
  return `${code}${enhanced !== null ? ` ${enhanced[1]}` : ''}${command}${text !== '' ? `: ${text}` : ''}`;
}

function refuse(error: string): DeliveryResult {
  return { ok: false, retryable: false, error };
}

function retry(error: string): DeliveryResult {
  return { ok: false, retryable: true, error };
}

/**
 * `<deliveryId.hash@sender-domain>`: the same for every attempt at one outbox row (a server that
 * saw the first attempt can tell the retry for what it is), different across installations and
 * PINs, and without the pinId itself, which stays between us and the API client. The sender's
 * domain keeps spam filters that distrust foreign Message-ID domains quiet.
 */
function messageIdFor(message: OutgoingMessage, senderAddress: string): string {
  const series = message.deliveryId ?? randomUUID();
  const tag = createHash('sha256').update(`${message.pinId}\u0000${series}`).digest('hex').slice(0, 16);
  const domain = senderAddress.slice(senderAddress.lastIndexOf('@') + 1);
  const local = `${series}.${tag}`.replace(/[^A-Za-z0-9._-]/g, '-');
  return `<${local}@${domain}>`;
}

function isIp(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(':');
}

/**
 * Whether STARTTLS is required: `require_tls` when given, else true for every host but loopback.
 * Taking STARTTLS only when offered lets whoever sits on the path strip the offer from the EHLO
 * reply and read the PIN in clear; a mail relay on the machine itself has no such path.
 */
export function smtpRequireTls(variable: string, host: string, value: string | undefined): boolean {
  return readBoolean(variable, 'require_tls', value, !isLoopback(host));
}

/**
 * The transport an `smtp://` or `smtps://` DSN describes; throws an Error naming `variable`, with
 * an example, when the DSN is unusable.
 */
export function createSmtpTransport(variable: string, url: URL, deps: { logger: Logger }): Transport {
  const scheme = url.protocol.replace(/:$/, '').toLowerCase();
  if (scheme !== 'smtp' && scheme !== 'smtps') throw new Error(`${variable}: expected an smtp:// or smtps:// DSN, e.g. ${SMTP_DSN_EXAMPLE}`);
  const params = readDsnParams(variable, url, PARAMS, SMTP_DSN_EXAMPLE);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === '') throw new Error(`${variable}: the smtp DSN needs a host, e.g. ${SMTP_DSN_EXAMPLE}`);
  if (url.pathname !== '' && url.pathname !== '/') throw new Error(`${variable}: the smtp DSN takes no path, e.g. ${SMTP_DSN_EXAMPLE}`);

  let port = scheme === 'smtps' ? 465 : 587;
  if (url.port !== '') {
    port = Number(url.port);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`${variable}: the smtp DSN port must be 1 to 65535`);
  }
  // Port 465 is TLS from the first byte (RFC 8314); a plain smtp:// there would wait for a
  // greeting that never comes.
  const secure = scheme === 'smtps' || port === 465;

  const user = decode(url.username);
  const password = decode(url.password);
  if (user === '' && password !== '') throw new Error(`${variable}: the smtp DSN has a password but no user`);

  let from: Sender | undefined;
  const fromText = params.get('from');
  if (fromText !== undefined && fromText !== '') {
    const parsed = parseEmailSender(fromText);
    if (!parsed.ok) throw new Error(`${variable}: DSN parameter from ${parsed.error}`);
    from = { name: parsed.name, address: parsed.address };
  }

  const maxText = params.get('max_connections');
  let maxConnections = DEFAULT_MAX_CONNECTIONS;
  if (maxText !== undefined) {
    maxConnections = Number(maxText);
    if (!/^\d+$/.test(maxText) || maxConnections < 1 || maxConnections > MAX_CONNECTIONS_LIMIT) {
      throw new Error(`${variable}: DSN parameter max_connections must be a whole number from 1 to ${MAX_CONNECTIONS_LIMIT}`);
    }
  }
  const rejectUnauthorized = readBoolean(variable, 'tls_reject_unauthorized', params.get('tls_reject_unauthorized'), true);
  if (!rejectUnauthorized && !isLoopback(host)) {
    deps.logger.warn({ variable, transport: 'smtp' }, 'tls_reject_unauthorized=false: the mail server is not authenticated, so whoever sits on the path can read PINs');
  }
  const localDomain = params.get('local_domain');
  if (localDomain !== undefined && !/^[A-Za-z0-9.-]+$/.test(localDomain)) {
    throw new Error(`${variable}: DSN parameter local_domain must be a host name`);
  }

  return new SmtpTransport({
    host,
    port,
    secure,
    ...(user !== '' && { user, password }),
    ...(from !== undefined && { from }),
    pool: readBoolean(variable, 'pool', params.get('pool'), true),
    maxConnections,
    timeoutMs: readTimeout(variable, params.get('timeout'), SMTP_TIMEOUT_MS),
    requireTls: smtpRequireTls(variable, host, params.get('require_tls')),
    rejectUnauthorized,
    ...(localDomain !== undefined && localDomain !== '' && { localDomain }),
  }, deps.logger);
}
