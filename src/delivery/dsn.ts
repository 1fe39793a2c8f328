// Turns a channel's DSN (TWOFA_SMS_DSN, TWOFA_VOICE_DSN, TWOFA_EMAIL_DSN, TWOFA_WHATSAPP_DSN,
// TWOFA_TELEGRAM_DSN) into its transport, in the
// style of Symfony Notifier/Mailer: one URL names the provider and carries its settings. Every
// refusal names the variable and shows a working example, because an operator reads it at startup.
//
// The transports that only some deployments use (SMPP, SMTP, SIP voice, the HTTP providers) are
// imported here when a DSN names them, not before: a node that configures none of them never loads
// nodemailer, smpp or the voice stack.
import type { Logger } from 'pino';
import { describeDsn } from '../domain/dsn-masking.js';
import { TRANSPORT_NAME_PATTERN } from '../domain/routes.js';
import type { Metrics } from '../observability/metrics.js';
import { Inbox } from './log/inbox.js';
import { LogTransport } from './log/log-transport.js';
import { isProviderScheme } from './providers/provider-callback.js';
import { RoutedTransport, splitRouteMembers } from './routing/routed-transport.js';
import type { ReceiptListener, Transport } from './transport.js';
import { TransportPacer, type PacingLimits } from './transport-pacer.js';
import { parseWebhookSecret } from './webhook/webhook-signature.js';
import { WebhookTransport } from './webhook/webhook-transport.js';

export { describeDsn };

export class DsnError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DsnError';
  }
}

export interface TransportDeps {
  inbox: Inbox;
  logger: Logger;
  /** Where transports that receive delivery receipts (SMPP) report them. */
  onReceipt?: ReceiptListener;
  /** The node's clock, for transports that tell a provider how long a PIN lives; default Date.now. */
  clock?: () => number;
  /** Where the transports' pacers report the time their providers made them wait. */
  metrics?: Pick<Metrics, 'transportThrottled'>;
  /** The named transports (TWOFA_TRANSPORT_<NAME>) a DSN may name instead of describing one: `failover(smsc infobip)`. */
  named?: ReadonlyMap<string, Transport>;
}

/**
 * The in-flight window and rate of each kind of transport when its DSN sets neither (max_in_flight,
 * max_tps): what the provider is documented to accept, or, where it publishes no figure, a window
 * that keeps a real API busy without a rate of our own (its 429s then slow us down). The sources are
 * in docs/transports.md.
 */
export const DEFAULT_PACING: Record<string, PacingLimits> = {
  log: { maxInFlight: 100 },
  webhook: { maxInFlight: 200 },
  smpp: { maxInFlight: 10 },
  smtp: { maxInFlight: 10 },
  sip: { maxInFlight: 10 },
  twilio: { maxInFlight: 100 },
  infobip: { maxInFlight: 100 },
  vonage: { maxInFlight: 30, maxTps: 30 },
  whatsapp: { maxInFlight: 80, maxTps: 80 },
  telegram: { maxInFlight: 30 },
};
const MAX_IN_FLIGHT_LIMIT = 10_000;
const MAX_TPS_LIMIT = 100_000;

const SUPPORTED = 'log://, none://, webhook+http(s)://host/path?secret=whsec_..., smpp(s)://user:pass@host:port, smtp(s)://user:pass@host:port, twilio://SID:TOKEN@default, vonage://KEY:SECRET@default, infobip://KEY@host, whatsapp://TOKEN@PHONE_NUMBER_ID?template=NAME&app_secret=..., telegram://TOKEN@default, sip://user:pass@host:port, failover(a b ...) or roundrobin(a b ...)';
const SECRET_EXAMPLE = '?secret=whsec_... (generate one with: echo whsec_$(openssl rand -base64 32))';
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The channel's transport, or null when the DSN switches the channel off (`none://`). */
export async function createTransport(variable: string, dsn: string, deps: TransportDeps): Promise<Transport | null> {
  // A bare name is a named transport, made once and shared by every DSN and route that names it.
  const name = dsn.trim();
  if (TRANSPORT_NAME_PATTERN.test(name)) {
    const transport = deps.named?.get(name);
    if (transport === undefined) {
      const known = [...(deps.named?.keys() ?? [])];
      throw new DsnError(`${variable}: "${name}" is neither a DSN nor a named transport (${known.length === 0 ? 'none is configured: set TWOFA_TRANSPORT_<NAME>=<dsn>' : `named: ${known.join(', ')}`})`);
    }
    return transport;
  }
  const route = /^\s*(failover|roundrobin)\((.*)\)\s*$/s.exec(dsn);
  if (route) return createRoute(variable, route[1] as 'failover' | 'roundrobin', route[2] ?? '', deps);
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(dsn.trim())?.[1]?.toLowerCase();
  if (scheme === undefined) {
    throw new DsnError(`${variable}: "${describeDsn(dsn)}" is not a DSN; expected one of ${SUPPORTED}`);
  }
  if (scheme === 'none') {
    refuseAnythingAfter(variable, scheme, dsn);
    return null;
  }
  const paced = takePacingParams(variable, scheme, dsn.trim());
  const transport = await createLeaf(variable, scheme, paced.dsn, deps);
  const defaults = DEFAULT_PACING[transport.name] ?? { maxInFlight: 10 };
  const limits: PacingLimits = { maxInFlight: paced.maxInFlight ?? defaults.maxInFlight, maxTps: paced.maxTps ?? defaults.maxTps, globalTps: paced.globalTps };
  transport.pacer = new TransportPacer(transport.name, limits, {
    ...(deps.metrics !== undefined && { metrics: deps.metrics }),
    ...(deps.clock !== undefined && { clock: deps.clock }),
    onThrottled: ({ pauseMs, window, tps }) => deps.logger.warn({ variable, transport: transport.name, pauseMs, window, tps }, 'the provider asked to slow down: transport paused, its window and rate halved'),
  });
  return transport;
}

/**
 * The named transports (TWOFA_TRANSPORT_<NAME>=<dsn>), each made once with its own pacer: the channels'
 * DSNs and the routes table share them by name.
 */
export async function createNamedTransports(dsns: Readonly<Record<string, string>>, deps: TransportDeps): Promise<Map<string, Transport>> {
  const named = new Map<string, Transport>();
  for (const [name, dsn] of Object.entries(dsns)) {
    const variable = `TWOFA_TRANSPORT_${name.toUpperCase()}`;
    // A named transport is described by its DSN, never by another name.
    const transport = await createTransport(variable, dsn, { ...deps, named: new Map() });
    if (transport === null) throw new DsnError(`${variable}: none:// is not a transport; remove the variable instead`);
    named.set(name, transport);
  }
  return named;
}

/**
 * `max_in_flight`, `max_tps` and `max_tps_global`, read from any transport's DSN and taken out of it, so that the
 * transport's own parser (which refuses what it does not know) never sees them. For SMPP,
 * max_in_flight is also the bind's submit window unless `window` sets that apart, and `window` alone
 * sets both (it counts submit_sm, one per part of a long message).
 */
export function takePacingParams(variable: string, scheme: string, dsn: string): { dsn: string; maxInFlight?: number; maxTps?: number; globalTps?: number } {
  const at = dsn.indexOf('?');
  if (at === -1) return { dsn };
  const kept: string[] = [];
  let maxInFlight: number | undefined;
  let maxTps: number | undefined;
  let globalTps: number | undefined;
  let smppWindow: number | undefined;
  for (const part of dsn.slice(at + 1).split('&')) {
    const [rawName, value = ''] = splitOnce(part, '=');
    const name = safeDecode(rawName);
    if (name === 'max_in_flight') {
      maxInFlight = /^[1-9]\d{0,5}$/.test(value) ? Number(value) : NaN;
      if (!(maxInFlight <= MAX_IN_FLIGHT_LIMIT)) throw new DsnError(`${variable}: max_in_flight must be a whole number from 1 to ${MAX_IN_FLIGHT_LIMIT}, e.g. max_in_flight=100`);
      continue;
    }
    if (name === 'max_tps' || name === 'max_tps_global') {
      const rate = /^\d{1,6}(\.\d{1,3})?$/.test(value) ? Number(value) : NaN;
      if (!(rate > 0 && rate <= MAX_TPS_LIMIT)) throw new DsnError(`${variable}: ${name} must be a number of messages per second above 0 and up to ${MAX_TPS_LIMIT}, e.g. ${name}=30`);
      if (name === 'max_tps') maxTps = rate;
      else globalTps = rate;
      continue;
    }
    if ((scheme === 'smpp' || scheme === 'smpps') && name === 'window' && /^[1-9]\d{0,3}$/.test(value)) smppWindow = Number(value);
    kept.push(part);
  }
  if (scheme === 'smpp' || scheme === 'smpps') {
    if (maxInFlight !== undefined && smppWindow === undefined) kept.push(`window=${Math.min(maxInFlight, 1000)}`);
    maxInFlight ??= smppWindow;
  }
  return {
    dsn: kept.length === 0 ? dsn.slice(0, at) : `${dsn.slice(0, at)}?${kept.join('&')}`,
    ...(maxInFlight !== undefined && { maxInFlight }),
    ...(maxTps !== undefined && { maxTps }),
    ...(globalTps !== undefined && { globalTps }),
  };
}

/** The transport one (non-route) DSN names, without its pacer. */
async function createLeaf(variable: string, scheme: string, dsn: string, deps: TransportDeps): Promise<Transport> {
  switch (scheme) {
    case 'log':
      refuseAnythingAfter(variable, scheme, dsn);
      return new LogTransport(deps.inbox, deps.logger);
    case 'webhook+http':
    case 'webhook+https':
      return createWebhookTransport(variable, dsn.trim(), scheme === 'webhook+https' ? 'https' : 'http', deps.logger);
    case 'smpp':
    case 'smpps': {
      const { createSmppTransport } = await import('./smpp/smpp-transport.js');
      return createFromUrl(variable, dsn, (url) => createSmppTransport(variable, url, { logger: deps.logger, onReceipt: deps.onReceipt ?? (() => {}) }));
    }
    case 'smtp':
    case 'smtps': {
      const { createSmtpTransport } = await import('./smtp/smtp-transport.js');
      return createFromUrl(variable, dsn, (url) => createSmtpTransport(variable, url, { logger: deps.logger }));
    }
    case 'sip': {
      const { createSipTransport } = await import('./voice/sip-transport.js');
      return createFromUrl(variable, dsn, (url) => createSipTransport(variable, url, { logger: deps.logger }));
    }
    default:
      if (isProviderScheme(scheme)) {
        const { createProviderTransport } = await import('./providers/providers.js');
        return createFromUrl(variable, dsn, (url) => createProviderTransport(scheme, variable, url, { logger: deps.logger, ...(deps.clock !== undefined && { clock: deps.clock }) }));
      }
      throw new DsnError(`${variable}: unsupported scheme ${scheme}:// (supported: ${SUPPORTED})`);
  }
}

/**
 * log:// and none:// take no settings: a host, credentials or parameters after them would be ignored,
 * so they are refused like every other transport's unknown parameter (most likely a DSN pasted into
 * the wrong variable). The refusal does not repeat the DSN, whose values may be credentials.
 */
function refuseAnythingAfter(variable: string, scheme: 'log' | 'none', dsn: string): void {
  const rest = dsn.trim().slice(`${scheme}:`.length).replace(/^\/\/\/?/, '');
  if (rest !== '') throw new DsnError(`${variable}: ${scheme}:// takes no host, credentials or parameters; write ${scheme}://`);
}

/** Parses a URL-shaped DSN and builds its transport, turning the factory's refusals into DsnErrors. */
function createFromUrl(variable: string, dsn: string, build: (url: URL) => Transport): Transport {
  let url: URL;
  try {
    url = new URL(dsn.trim());
  } catch {
    throw new DsnError(`${variable}: "${describeDsn(dsn)}" is not a valid URL`);
  }
  try {
    return build(url);
  } catch (err) {
    if (err instanceof DsnError) throw err;
    throw new DsnError((err as Error).message.startsWith(`${variable}:`) ? (err as Error).message : `${variable}: ${(err as Error).message}`);
  }
}

async function createRoute(variable: string, mode: 'failover' | 'roundrobin', inner: string, deps: TransportDeps): Promise<Transport> {
  let members: string[];
  try {
    members = splitRouteMembers(inner);
  } catch (err) {
    throw new DsnError(`${variable}: ${mode}(...) has ${(err as Error).message}; expected e.g. ${mode}(smpp://user:pass@smsc1:2775 twilio://SID:TOKEN@default?from=%2B15005550006)`);
  }
  if (members.length < 2) throw new DsnError(`${variable}: ${mode}(...) needs at least two transports separated by spaces`);
  // One after the other: the first member that is not usable is the one the error names.
  const transports: Transport[] = [];
  for (const member of members) {
    const transport = await createTransport(variable, member, deps);
    if (transport === null) throw new DsnError(`${variable}: none:// cannot be part of ${mode}(...)`);
    transports.push(transport);
  }
  return new RoutedTransport(mode, transports, { logger: deps.logger });
}

function createWebhookTransport(variable: string, dsn: string, protocol: 'http' | 'https', logger: Logger): Transport {
  let parsed: URL;
  try {
    parsed = new URL(dsn);
  } catch {
    throw new DsnError(`${variable}: "${describeDsn(dsn)}" is not a valid URL; expected e.g. webhook+https://hooks.example.com/sms${SECRET_EXAMPLE}`);
  }
  if (parsed.host === '') {
    throw new DsnError(`${variable}: the webhook DSN needs a host, e.g. webhook+https://hooks.example.com/sms${SECRET_EXAMPLE}`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new DsnError(`${variable}: the webhook DSN must not carry user:password@; requests are authenticated by their signature (the secret parameter)`);
  }

  // The raw query is split by hand: URLSearchParams would turn a `+` of the base64 secret into a
  // space. Parameters other than `secret` belong to the endpoint and are passed on unchanged.
  const kept: string[] = [];
  let secret: string | undefined;
  for (const part of parsed.search.replace(/^\?/, '').split('&')) {
    if (part === '') continue;
    const [name, value = ''] = splitOnce(part, '=');
    if (safeDecode(name) === 'secret') secret = safeDecode(value);
    else kept.push(part);
  }
  if (secret === undefined || secret === '') {
    throw new DsnError(`${variable}: webhook DSN needs a secret query parameter in the whsec_<base64> form, e.g. ${SECRET_EXAMPLE}`);
  }
  const checked = parseWebhookSecret(secret);
  if (!checked.ok) throw new DsnError(`${variable}: webhook DSN secret is not usable: ${checked.error}`);

  const url = new URL(`${protocol}://${parsed.host}${parsed.pathname === '' ? '/' : parsed.pathname}`);
  if (kept.length > 0) url.search = `?${kept.join('&')}`;
  if (protocol === 'http' && !LOOPBACK_HOSTS.has(url.hostname)) {
    logger.warn({ variable, dsn: describeDsn(dsn) }, 'webhook over plain http: PINs cross the network unencrypted; use webhook+https:// outside a trusted network');
  }
  return new WebhookTransport({ url, secret });
}

function splitOnce(text: string, separator: string): [string, string?] {
  const at = text.indexOf(separator);
  return at === -1 ? [text] : [text.slice(0, at), text.slice(at + 1)];
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
