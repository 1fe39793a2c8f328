// The one reader of process.env. Every option is declared once in CONFIG_OPTIONS: its variable,
// default, parser and documentation; `twofa --help` and the table of docs/configuration.md are written from it.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseDuration, validateLimit, ONE_DAY_MS, parseRateLimit, type RateLimit } from './domain/durations.js';
import { SECURITY_PROFILES, type SecurityProfile } from './domain/security-profile.js';
import { RISK_MODES, type RiskMode } from './domain/risk-score.js';
import { parseRoutes, TRANSPORT_NAME_PATTERN, type RouteRule } from './domain/routes.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  host: string;
  port: number;
  databaseUrl: string;
  dataDir: string;
  /** Undefined when unset: the server then loads or creates `<dataDir>/secret`. */
  secret: string | undefined;
  /** Secrets of earlier deployments, still accepted to verify and resend PINs made under them. */
  previousSecrets: string[];
  bootstrapApiKey: string | undefined;
  smsDsn: string;
  voiceDsn: string;
  emailDsn: string;
  whatsappDsn: string;
  telegramDsn: string;
  logLevel: LogLevel;
  pinRetentionMs: number;
  deliveryMaxAttempts: number;
  /** Most SMS parts one rendered SMS message may take; a send or resend beyond it is refused. */
  smsMaxSegments: number;
  /** The operator's price list (CSV), read at start, on SIGHUP and on `twofa prices reload`; undefined: no prices. */
  pricesFile: string | undefined;
  purgeIntervalMs: number;
  bodyLimitBytes: number;
  nodeId: string;
  /** Most PostgreSQL connections of this node's pool. */
  databasePoolSize: number;
  databaseConnectTimeoutMs: number;
  databaseStatementTimeoutMs: number;
  /** TLS to PostgreSQL; undefined leaves it to the URL's sslmode parameter. */
  databaseSsl: 'disable' | 'require' | 'verify-full' | undefined;
  databaseCaFile: string | undefined;
  /** Bring the schema up to date at start (otherwise `twofa migrate` does). */
  migrateOnStart: boolean;
  /** Count rate limits in Redis instead of the database. */
  redisUrl: string | undefined;
  /** How long a worker owns a claimed message before another node may take it over. */
  deliveryLeaseMs: number;
  /** Oldest wait of a queued message past which /healthz reports `degraded`. */
  deliveryDegradedAfterMs: number;
  /** Proxies (IP addresses or CIDR ranges) whose X-Forwarded-For is believed; empty: none is. */
  trustedProxies: string[];
  /** Longest time a client may take to send a whole request (slow bodies are cut off). */
  requestTimeoutMs: number;
  idempotencyWindowMs: number;
  idempotencyMaxKeys: number;
  /** Floors applied to every application and template (domain/security-profile.ts). */
  securityProfile: SecurityProfile;
  riskDefaultMode: RiskMode;
  /** Let accounts use test numbers (fixed codes, nothing delivered) under the strict profile too. */
  allowTestNumbers: boolean;
  /** How often each account's audit chain head is signed and recorded. */
  auditHeadIntervalMs: number;
  /** Let accounts' webhooks reach loopback, private and link-local addresses (tests, trusted private networks). */
  webhookAllowPrivate: boolean;
  /** Failed authentications per client address, and per presented key prefix, before 429. */
  authFailureLimit: RateLimit;
  /** How long a Twilio Auth Token replaced by a rotation stays a valid login (0: not at all). */
  twilioAuthTokenGraceMs: number;
  /** Named transports (TWOFA_TRANSPORT_<NAME>, or `transports` in the config file): name -> DSN. */
  transports: Record<string, string>;
  /** The routes table (TWOFA_ROUTES, or `routes` in the config file), checked against the named transports. */
  routes: RouteRule[];
  /** Where the routes were read, to read them again on reload: the config file and TWOFA_ROUTES as given. */
  routesSource: { TWOFA_CONFIG?: string; TWOFA_ROUTES?: string };
}

export class ConfigError extends Error {
  constructor(readonly variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

interface Option<K extends keyof Config> {
  key: K;
  env: string;
  default: string | undefined;
  doc: string;
  parse: (raw: string, env: NodeJS.ProcessEnv) => Config[K];
}

function option<K extends keyof Config>(o: Option<K>): Option<K> {
  return o;
}

function integerIn(min: number, max: number) {
  return (raw: string): number => {
    if (!/^\d+$/.test(raw)) throw new Error(`must be a whole number between ${min} and ${max}`);
    const value = Number(raw);
    if (value < min || value > max) throw new Error(`must be between ${min} and ${max}`);
    return value;
  };
}

function trueOrFalse(raw: string): boolean {
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new Error('must be true or false');
}

function duration(raw: string): number {
  const ms = parseDuration(raw);
  if (ms === null) throw new Error('must be a duration such as 500ms, 30s, 15m, 2h or 7d');
  return ms;
}

/** `a.b.c.d`, an IPv6 address, or either with a `/prefix`: what the proxy-address check understands. */
function parseTrustedProxies(raw: string): string[] {
  const list = raw.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  for (const entry of list) {
    const [address, prefix, extra] = entry.split('/');
    const family = net.isIP(address ?? '');
    const maxPrefix = family === 4 ? 32 : 128;
    if (family === 0 || extra !== undefined || (prefix !== undefined && (!/^\d{1,3}$/.test(prefix) || Number(prefix) > maxPrefix))) {
      throw new Error(`${entry} is not an IP address or CIDR range (for example 10.0.0.0/8, 192.168.1.10 or fd00::/8)`);
    }
  }
  return list;
}

const LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export const CONFIG_OPTIONS = [
  option({ key: 'host', env: 'TWOFA_HOST', default: '127.0.0.1', doc: 'Address the HTTP server listens on. Use 0.0.0.0 to accept connections from other machines.', parse: (raw) => raw }),
  option({ key: 'port', env: 'TWOFA_PORT', default: '8080', doc: 'TCP port of the HTTP server (0 picks a free port).', parse: integerIn(0, 65535) }),
  option({
    key: 'dataDir', env: 'TWOFA_DATA_DIR', default: './data',
    doc: 'Folder for the SQLite database and the generated secret file.',
    parse: (raw) => path.resolve(raw),
  }),
  option({
    key: 'databaseUrl', env: 'TWOFA_DATABASE_URL', default: undefined,
    doc: 'Database. `sqlite:<file>` (default `sqlite:<TWOFA_DATA_DIR>/twofa.db`, WAL mode) or `sqlite::memory:` for one node; `postgres://user:password@host:5432/database` (or `postgresql://`) for one or several nodes sharing one PostgreSQL (see docs/scaling.md).',
    parse: (raw) => {
      if (/^sqlite:/.test(raw)) return raw;
      if (/^postgres(ql)?:\/\//i.test(raw)) {
        try {
          new URL(raw);
        } catch {
          throw new Error('is not a valid URL (for example postgres://twofa:secret@db.internal:5432/twofa; percent-encode special characters of the password)');
        }
        return raw;
      }
      throw new Error('must start with sqlite: (for example sqlite:./data/twofa.db) or postgres:// (for example postgres://twofa:secret@db.internal:5432/twofa)');
    },
  }),
  option({
    key: 'databasePoolSize', env: 'TWOFA_DATABASE_POOL_SIZE', default: '10',
    doc: 'PostgreSQL: most connections this node opens (plus one that listens for new messages). Size the server\'s max_connections for nodes × (pool size + 1) plus headroom.',
    parse: integerIn(1, 1000),
  }),
  option({
    key: 'databaseConnectTimeoutMs', env: 'TWOFA_DATABASE_CONNECT_TIMEOUT', default: '5s',
    doc: 'PostgreSQL: longest a request waits for a pool connection, or for a new one to open. Past it the request is answered 503 with Retry-After (the database is unreachable or the pool is exhausted).',
    parse: duration,
  }),
  option({
    key: 'databaseStatementTimeoutMs', env: 'TWOFA_DATABASE_STATEMENT_TIMEOUT', default: '5s',
    doc: 'PostgreSQL: longest a statement may run (the server\'s statement_timeout, which rolls it back); a statement whose answer has not come 1 s after that ends its connection (a stalled network). The request is answered 503 with Retry-After, or 500 when a write may have committed without its answer. Migrations and `twofa audit verify` are not bounded.',
    parse: duration,
  }),
  option({
    key: 'databaseSsl', env: 'TWOFA_DATABASE_SSL', default: undefined,
    doc: 'PostgreSQL TLS: `disable`; `require` (encrypted, server certificate not checked); `verify-full` (certificate chain and host name checked, against TWOFA_DATABASE_CA_FILE or the system CAs). Unset: as the URL\'s sslmode parameter says, else no TLS.',
    parse: (raw) => {
      if (raw !== 'disable' && raw !== 'require' && raw !== 'verify-full') throw new Error('must be disable, require or verify-full');
      return raw;
    },
  }),
  option({
    key: 'databaseCaFile', env: 'TWOFA_DATABASE_CA_FILE', default: undefined,
    doc: 'PostgreSQL: PEM file of the certificate authorities that sign the server\'s certificate (for a private CA, e.g. a managed database\'s). Implies TWOFA_DATABASE_SSL=verify-full when that is unset.',
    parse: (raw) => path.resolve(raw),
  }),
  option({
    key: 'migrateOnStart', env: 'TWOFA_MIGRATE_ON_START', default: 'true',
    doc: 'Bring the database schema up to date at start (`true`, `false`). Several nodes starting at once migrate once (PostgreSQL advisory lock). Set `false` to run `twofa migrate` as a separate deployment step.',
    parse: trueOrFalse,
  }),
  option({
    key: 'redisUrl', env: 'TWOFA_REDIS_URL', default: undefined,
    doc: 'Count the rate limits (sendPinPerApplicationLimit, sendPinPerPhoneNumberLimit, verifyPinLimit) in Redis, `redis://[:password@]host:6379[/db]` or `rediss://` (TLS), instead of the database. Every node must use the same Redis. Unset: the database counts them.',
    parse: (raw) => {
      if (!/^rediss?:\/\//i.test(raw)) throw new Error('must start with redis:// or rediss:// (for example redis://127.0.0.1:6379)');
      try {
        new URL(raw);
      } catch {
        throw new Error('is not a valid URL (for example redis://:password@redis.internal:6379/0)');
      }
      return raw;
    },
  }),
  option({
    key: 'secret', env: 'TWOFA_SECRET', default: undefined,
    doc: 'Key material (32 or more characters) from which the PIN HMAC and encryption keys are derived. Every node of one deployment shares it. Unset: a random one is created in `<TWOFA_DATA_DIR>/secret` (mode 0600) at first start.',
    parse: (raw) => {
      if (raw.length < 32) throw new Error('must be at least 32 characters long (generate one with: openssl rand -base64 48)');
      return raw;
    },
  }),
  option({
    key: 'previousSecrets', env: 'TWOFA_PREVIOUS_SECRETS', default: '',
    doc: 'Comma-separated earlier values of TWOFA_SECRET. PINs created under them can still be verified and resent; new PINs always use TWOFA_SECRET. Remove an old secret once its PINs have expired.',
    parse: (raw) => {
      const list = raw.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
      for (const s of list) if (s.length < 32) throw new Error('every secret must be at least 32 characters long');
      return list;
    },
  }),
  option({
    key: 'bootstrapApiKey', env: 'TWOFA_BOOTSTRAP_API_KEY', default: undefined,
    doc: 'An API key (any string of 32 or more characters, e.g. `openssl rand -hex 24`) created at start, with all scopes, in the account `default`, if it does not exist yet.',
    parse: (raw) => {
      // Keys are stored as unsalted SHA-256 and listed by their first characters: a short key could be guessed offline.
      if (raw.length < 32) throw new Error('must be at least 32 characters long (generate one with: openssl rand -hex 24)');
      return raw;
    },
  }),
  option({ key: 'smsDsn', env: 'TWOFA_SMS_DSN', default: 'log://', doc: 'Where SMS PINs go: `log://` (local inbox), `webhook+https://host/path?secret=whsec_...`, or `none://` (channel off).', parse: (raw) => raw }),
  option({ key: 'voiceDsn', env: 'TWOFA_VOICE_DSN', default: 'log://', doc: 'Where voice PINs go (same forms as TWOFA_SMS_DSN; the text to speak is sent).', parse: (raw) => raw }),
  option({ key: 'emailDsn', env: 'TWOFA_EMAIL_DSN', default: 'log://', doc: 'Where email PINs go (same forms as TWOFA_SMS_DSN).', parse: (raw) => raw }),
  option({ key: 'whatsappDsn', env: 'TWOFA_WHATSAPP_DSN', default: 'none://', doc: 'Where WhatsApp PINs go (POST /2fa/2/pin/whatsapp): `whatsapp://ACCESS_TOKEN@PHONE_NUMBER_ID?template=NAME&language=en_US&app_secret=SECRET` (Meta\'s WhatsApp Cloud API, an authentication template; optional `version`, `verify_token`, `base_url`, `timeout`), `log://`, a route, or `none://` (off, the default). Status webhooks: /api/v1/callbacks/whatsapp.', parse: (raw) => raw }),
  option({ key: 'telegramDsn', env: 'TWOFA_TELEGRAM_DSN', default: 'none://', doc: 'Where Telegram PINs go (POST /2fa/2/pin/telegram): `telegram://TOKEN@default?sender_username=NAME&callback_url=https://twofa.example.com/api/v1/callbacks/telegram` (the Telegram Gateway API; optional `check_send_ability`, `base_url`, `timeout`), `log://`, a route, or `none://` (off, the default).', parse: (raw) => raw }),
  option({
    key: 'logLevel', env: 'TWOFA_LOG_LEVEL', default: 'info',
    doc: `Log level: ${LOG_LEVELS.join(', ')}. Logs are JSON lines on stdout; destinations are masked and PINs, keys and secrets are never written.`,
    parse: (raw) => {
      if (!LOG_LEVELS.includes(raw as LogLevel)) throw new Error(`must be one of ${LOG_LEVELS.join(', ')}`);
      return raw as LogLevel;
    },
  }),
  option({ key: 'pinRetentionMs', env: 'TWOFA_PIN_RETENTION', default: '30d', doc: 'How long a PIN row is kept after it expired (for verification status and history) before it is deleted.', parse: duration }),
  option({ key: 'purgeIntervalMs', env: 'TWOFA_PURGE_INTERVAL', default: '1m', doc: 'How often ended PINs are erased (their resend ciphertext) and old ones purged.', parse: duration }),
  option({
    key: 'deliveryLeaseMs', env: 'TWOFA_DELIVERY_LEASE', default: '10s',
    doc: 'How long a node\'s claim on a message (or webhook event, or workflow step) holds unless renewed. A node renews the claims of what it is still delivering every third of this, so a delivery may take longer (a voice call); a node that dies leaves its messages to another node after at most this, and one that restarts under the same TWOFA_NODE_ID takes its own back at once.',
    parse: duration,
  }),
  option({
    key: 'deliveryDegradedAfterMs', env: 'TWOFA_DELIVERY_DEGRADED_AFTER', default: '30s',
    doc: 'When the oldest message waiting for delivery was accepted longer ago than this, GET /healthz answers `{"status":"degraded","reason":...}` (still 200) and the console shows it: users are waiting for their codes (a slow or throttling provider, a backlog). The age is also exported as twofa_outbox_oldest_age_seconds.',
    parse: duration,
  }),
  option({ key: 'deliveryMaxAttempts', env: 'TWOFA_DELIVERY_MAX_ATTEMPTS', default: '8', doc: 'Delivery attempts per message before it is recorded as failed (exponential backoff with jitter, capped at 5 minutes, never past the PIN\'s expiry).', parse: integerIn(1, 100) }),
  option({
    key: 'pricesFile', env: 'TWOFA_PRICES_FILE', default: undefined,
    doc: 'Path of the price list, a CSV of `transport,country,prefix,price,currency` lines (docs/routing.md#prices): each message gets the price of its transport and destination (longest prefix first, then the country; an SMS costs its price per part), shown on the message and summed in GET /api/v1/stats/spend, and budgets count it. Read at start (an invalid list stops the start), again on SIGHUP and on `twofa prices reload` (an invalid list is refused whole and the previous one kept). Unset: no message has a price and no budget counts.',
    parse: (raw) => raw,
  }),
  option({
    key: 'smsMaxSegments', env: 'TWOFA_SMS_MAX_SEGMENTS', default: '3',
    doc: 'Most SMS parts one PIN message may take once its placeholders are filled (GSM-7: 160 characters alone, 153 per part when concatenated; UCS-2: 70 / 67). A send or resend by SMS whose message would take more is refused with 400 and nothing is sent, so long placeholder values cannot multiply the cost of one send. Voice and email are not limited by it.',
    parse: integerIn(1, 255),
  }),
  option({
    key: 'trustedProxies', env: 'TWOFA_TRUSTED_PROXIES', default: '',
    doc: 'Comma-separated IP addresses or CIDR ranges (e.g. `10.0.0.0/8,::1`) of the reverse proxies in front of the service. Only a request coming from one of them has its `X-Forwarded-For` believed for the client address (per-IP send limits, audit log); from anyone else the header is ignored. Empty: the header is never believed.',
    parse: parseTrustedProxies,
  }),
  option({
    key: 'securityProfile', env: 'TWOFA_SECURITY_PROFILE', default: 'compatible',
    doc: '`compatible`: Infobip\'s defaults and ranges (10 attempts, several verifications of one PIN, 4-digit PINs, TTL up to a year, anti-fraud guards off). '
      + '`strict`: floors on every application and template, old and new, used by send and verify and shown by GET/POST/PUT: PINs of at least 6 characters '
      + '(20 bits: NIST SP 800-63B §5.1.3.2, ASVS 5.0 6.5.4), at most 5 attempts per PIN (ASVS 5.0 6.6.3; NIST §5.2.2 allows 100), pinTimeToLive at most 10m '
      + '(NIST §5.1.3.2, ASVS 4.0.3 2.7.2, ASVS 5.0 6.5.5), one successful verification per PIN, allowMultiplePinVerifications false (NIST §5.1.3.2, ASVS 5.0 6.5.1), '
      + 'and the anti-fraud guards on, with premium-rate numbers refused and the conversion breaker watching (ASVS 5.0 2.4.1). Stored values are kept: back to `compatible` restores them.',
    parse: (raw) => {
      if (!SECURITY_PROFILES.includes(raw as SecurityProfile)) throw new Error(`must be one of ${SECURITY_PROFILES.join(', ')}`);
      return raw as SecurityProfile;
    },
  }),
  option({
    key: 'riskDefaultMode', env: 'TWOFA_RISK_DEFAULT_MODE', default: 'enforce',
    doc: 'The risk mode of applications that have never set one (PUT /api/v1/applications/{appId}/risk; docs/security.md, "Risk score"): `enforce` blocks sends whose risk score reaches the threshold, '
      + '`shadow` records what it would block and sends, `off` scores nothing. Applications that existed before the score were set to `shadow` by their migration. '
      + 'A load or end-to-end test environment, whose traffic looks like pumping (many new numbers, none verified), sets `off`. Ignored under TWOFA_SECURITY_PROFILE=strict (always enforce).',
    parse: (raw) => {
      if (!RISK_MODES.includes(raw as RiskMode)) throw new Error(`must be one of ${RISK_MODES.join(', ')}`);
      return raw as RiskMode;
    },
  }),
  option({
    key: 'allowTestNumbers', env: 'TWOFA_ALLOW_TEST_NUMBERS', default: 'false',
    doc: 'Under TWOFA_SECURITY_PROFILE=strict, let accounts keep test numbers (POST /api/v1/test-numbers: destinations whose sends deliver nothing and whose fixed code verifies, for app-store review and end-to-end tests; see docs/test-numbers.md). '
      + 'Off, strict refuses to add them and sends ignore existing ones. Risk when on: whoever knows a test number\'s code passes the second factor for that destination; codes must then be at least 6 characters. Under `compatible` test numbers are always allowed.',
    parse: trueOrFalse,
  }),
  option({
    key: 'auditHeadIntervalMs', env: 'TWOFA_AUDIT_HEAD_INTERVAL', default: '5m',
    doc: 'How often the server signs the newest entry of each account\'s audit chain and records it outside the audit table (table `audit_heads`, file `<TWOFA_DATA_DIR>/audit-heads.json`, and an `audit chain head recorded` log line); it also does on shutdown. `twofa audit verify` reports a chain that lost entries recorded in a head. Entries written since the last head can be deleted undetected: a shorter interval narrows that window.',
    parse: duration,
  }),
  option({
    key: 'webhookAllowPrivate', env: 'TWOFA_WEBHOOK_ALLOW_PRIVATE', default: 'false',
    doc: 'Let accounts\' webhook subscriptions (POST /api/v1/webhooks) reach loopback, private, link-local, unique-local and other non-public addresses, and http:// on this machine. Off, such URLs are refused when saved and checked again at every connection (DNS rebinding). Risk when on: any account can make the service send requests into its own network (cloud metadata, admin ports, databases). Only for tests or a private network whose every account is trusted. Operator DSNs (TWOFA_*_DSN) are never checked.',
    parse: trueOrFalse,
  }),
  option({
    key: 'authFailureLimit', env: 'TWOFA_AUTH_FAILURE_LIMIT', default: '20/1m',
    doc: 'Failed authentications (401 to a request that presented credentials) allowed per client address (X-Forwarded-For only from TWOFA_TRUSTED_PROXIES; IPv6 per /64) and per presented key prefix, as `{attempts}/{timeLength}{timeUnit}` (sliding window). Past it the address gets 429 with Retry-After before its key is looked up; a prefix past it is refused from addresses that failed themselves, so the key\'s owner elsewhere is unaffected. Counted in each node\'s memory (several nodes: up to nodes × the limit).',
    parse: (raw) => {
      const problem = validateLimit(raw, ONE_DAY_MS);
      if (problem !== null) throw new Error(problem);
      return parseRateLimit(raw)!;
    },
  }),
  option({
    key: 'twilioAuthTokenGraceMs', env: 'TWOFA_TWILIO_AUTH_TOKEN_GRACE', default: '0',
    doc: 'How long an account\'s Twilio Auth Token replaced by a rotation (POST /api/v1/twilio/auth-token) is still accepted as the password of HTTP Basic under /v2, beside the new one, so running clients can move over; then never again. `0` (the default, as Twilio\'s own rotation): the old token stops working at once. Webhook events are signed with the new token from the rotation on, whatever this says. Only the replaced token\'s SHA-256 is kept for it.',
    parse: (raw) => (raw === '0' ? 0 : duration(raw)),
  }),
  option({
    key: 'routes', env: 'TWOFA_ROUTES', default: undefined,
    doc: 'The routes table, a JSON array of rules (or `routes` in twofa.config.json, where it is reloaded on SIGHUP and by `twofa routes reload`): each rule names a `channel`, '
      + 'what it matches (`countries`, ISO codes; `prefixes` of the international number: the longest prefix wins over a country, the first rule among equals), its named '
      + '`transports` in order (TWOFA_TRANSPORT_<NAME>; failover per message, or `"strategy": "cheapest"` with a `minConversion`), its `sender` and `fallbackSender` '
      + '(`{"id": "Acme", "kind": "alphanumeric"}`, `long_code`, `short_code`) and `regulatory` fields (India DLT `dltEntityId`, `dltTemplateId`). A table with any error is refused whole. '
      + 'Unset: no routes, each channel delivers through its TWOFA_*_DSN. Named transports are TWOFA_TRANSPORT_<NAME>=<dsn> variables (or a `transports` object in the config file), '
      + 'also usable by name in a channel DSN (`TWOFA_SMS_DSN=failover(smsc infobip)`). See docs/routing.md.',
    parse: (raw) => {
      try {
        return JSON.parse(raw) as RouteRule[];
      } catch (err) {
        throw new Error(`is not valid JSON: ${(err as Error).message}`);
      }
    },
  }),
  option({ key: 'requestTimeoutMs', env: 'TWOFA_REQUEST_TIMEOUT', default: '30s', doc: 'Longest time a client may take to send a whole request, headers and body; a slower one (slowloris) is cut off with 408.', parse: duration }),
  option({ key: 'idempotencyWindowMs', env: 'TWOFA_IDEMPOTENCY_WINDOW', default: '24h', doc: 'How long an Idempotency-Key is remembered with its answer: a repeat within it gets the same answer without running again; after it the key is purged and may be used anew.', parse: duration }),
  option({ key: 'idempotencyMaxKeys', env: 'TWOFA_IDEMPOTENCY_MAX_KEYS', default: '10000', doc: 'Idempotency-Keys one account may hold within TWOFA_IDEMPOTENCY_WINDOW: a request with a new key beyond them is answered 429 (IDEMPOTENCY_KEYS_FULL) until the oldest key\'s window ends. Bounds what one account stores (at most 4 KiB of answer per key).', parse: integerIn(1, 10_000_000) }),
  option({ key: 'bodyLimitBytes', env: 'TWOFA_BODY_LIMIT', default: '65536', doc: 'Largest accepted request body in bytes; larger ones are answered 413.', parse: integerIn(1024, 10 * 1024 * 1024) }),
  option({
    key: 'nodeId', env: 'TWOFA_NODE_ID', default: undefined,
    doc: 'Name of this node in logs and metrics (default: the host name). Claims on messages record it: give every node its own, since a node that starts takes back the messages claimed under its name.',
    parse: (raw) => {
      if (!/^[A-Za-z0-9._:-]{1,64}$/.test(raw)) throw new Error('must be 1 to 64 letters, digits, dots, dashes, colons or underscores');
      return raw;
    },
  }),
] as const;

export const CONFIG_FILE_NAME = 'twofa.config.json';

/**
 * The optional config file: TWOFA_CONFIG names it, else `twofa.config.json` in the working folder is
 * used if present. Its keys are the option names without the TWOFA_ prefix, in camel case or as the
 * variable itself (`"port": 8080` or `"TWOFA_PORT": "8080"`); environment variables override it.
 */
function readConfigFile(env: NodeJS.ProcessEnv): ConfigFile | undefined {
  const named = env['TWOFA_CONFIG'];
  const file = named !== undefined && named !== '' ? path.resolve(named) : path.resolve(CONFIG_FILE_NAME);
  if (!fs.existsSync(file)) {
    if (named) throw new ConfigError('TWOFA_CONFIG', `${file} does not exist`);
    return undefined;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(file, `is not valid JSON: ${(err as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError(file, 'must hold a JSON object');
  const values: Record<string, string> = {};
  let transports: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(parsed)) {
    // The two structured settings are JSON in the file itself, not strings.
    if (key === 'transports') {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ConfigError(file, '"transports" must be an object of named transports, e.g. {"smsc": "smpp://user:pass@smsc.example.com:2775"}');
      transports = value as Record<string, unknown>;
      continue;
    }
    if (key === 'routes' || key === 'TWOFA_ROUTES') {
      values['TWOFA_ROUTES'] = typeof value === 'string' ? value : JSON.stringify(value);
      continue;
    }
    const opt = CONFIG_OPTIONS.find((o) => o.env === key || o.env === `TWOFA_${key}` || fileKey(o.env) === key);
    if (!opt) throw new ConfigError(file, `unknown option "${key}"; known options: ${[...CONFIG_OPTIONS.map((o) => fileKey(o.env)), 'transports'].join(', ')}`);
    if (!['string', 'number', 'boolean'].includes(typeof value)) throw new ConfigError(file, `"${key}" must be a string or a number`);
    values[opt.env] = String(value);
  }
  return { file, values, ...(transports !== undefined && { transports }) };
}

interface ConfigFile {
  file: string;
  values: Record<string, string>;
  transports?: Record<string, unknown>;
}

const TRANSPORT_VARIABLE_PREFIX = 'TWOFA_TRANSPORT_';

/**
 * The named transports: `TWOFA_TRANSPORT_<NAME>=<dsn>` variables (NAME in any case: SMSC1 is `smsc1`)
 * over the config file's `transports` object. Their DSNs are checked when the transports are made.
 */
function readNamedTransports(env: NodeJS.ProcessEnv, fromFile: ConfigFile | undefined): Record<string, string> {
  const named: Record<string, string> = {};
  const add = (where: string, name: string, dsn: unknown) => {
    if (!TRANSPORT_NAME_PATTERN.test(name)) throw new ConfigError(where, `"${name}" is not a transport name: a letter, then up to 31 letters, digits, _ or -`);
    if (typeof dsn !== 'string' || dsn.trim() === '') throw new ConfigError(where, 'must be a transport DSN, e.g. smpp://user:pass@smsc.example.com:2775');
    named[name] = dsn;
  };
  for (const [name, dsn] of Object.entries(fromFile?.transports ?? {})) add(`transports.${name} in ${fromFile?.file}`, name.toLowerCase(), dsn);
  for (const [variable, dsn] of Object.entries(env)) {
    if (!variable.startsWith(TRANSPORT_VARIABLE_PREFIX) || dsn === undefined || dsn === '') continue;
    add(variable, variable.slice(TRANSPORT_VARIABLE_PREFIX.length).toLowerCase(), dsn);
  }
  return named;
}

/**
 * The routes table as configured now, checked against `transportNames`: what a reload puts in place.
 * `source` is where the server read them at start (Config.routesSource): the config file is read again.
 */
export function loadRoutes(transportNames: readonly string[], source: Config['routesSource']): RouteRule[] {
  const env: NodeJS.ProcessEnv = source;
  const fromFile = source.TWOFA_CONFIG === undefined ? undefined : readConfigFile(env);
  const fromEnv = env['TWOFA_ROUTES'] !== undefined && env['TWOFA_ROUTES'] !== '' ? env['TWOFA_ROUTES'] : undefined;
  const raw = fromEnv ?? fromFile?.values['TWOFA_ROUTES'];
  if (raw === undefined) return [];
  const where = fromEnv === undefined ? `routes in ${fromFile?.file}` : 'TWOFA_ROUTES';
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    throw new ConfigError(where, `is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = parseRoutes(value, transportNames);
  if (!parsed.ok) throw new ConfigError(where, `refused whole, nothing changed: ${parsed.errors.join('; ')}`);
  return parsed.rules;
}

/** TWOFA_SMS_DSN -> smsDsn: the spelling of an option in the config file. */
export function fileKey(variable: string): string {
  return variable.replace(/^TWOFA_/, '').toLowerCase().replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}

/** Parses the environment (over the config file, if any) once; a bad value throws ConfigError naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const fromFile = readConfigFile(env);
  const config: Record<string, unknown> = {};
  for (const opt of CONFIG_OPTIONS) {
    const fromEnv = env[opt.env] !== undefined && env[opt.env] !== '' ? env[opt.env] : undefined;
    const raw = fromEnv ?? fromFile?.values[opt.env] ?? opt.default;
    if (raw === undefined) {
      config[opt.key] = undefined;
      continue;
    }
    try {
      config[opt.key] = opt.parse(raw, env);
    } catch (err) {
      const where = fromEnv === undefined && fromFile?.values[opt.env] !== undefined ? `${opt.env} (${fileKey(opt.env)} in ${fromFile.file})` : opt.env;
      throw new ConfigError(where, (err as Error).message);
    }
  }
  const result = config as unknown as Config;
  result.transports = readNamedTransports(env, fromFile);
  result.routesSource = {
    ...(fromFile !== undefined && { TWOFA_CONFIG: fromFile.file }),
    ...(env['TWOFA_ROUTES'] !== undefined && env['TWOFA_ROUTES'] !== '' && { TWOFA_ROUTES: env['TWOFA_ROUTES'] }),
  };
  result.routes = loadRoutes(Object.keys(result.transports), result.routesSource);
  if (result.databaseUrl === undefined) result.databaseUrl = `sqlite:${path.join(result.dataDir, 'twofa.db')}`;
  if (result.nodeId === undefined) result.nodeId = os.hostname();
  return result;
}
