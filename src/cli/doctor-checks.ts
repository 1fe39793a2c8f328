// The checks `twofa doctor` runs. Each answers ok, warn or fail with one line saying what was found
// and, unless ok, one line saying how to fix it. Nothing here prints a secret, a key or a DSN's
// credentials: DSNs appear only through describeDsn, secrets only as "set" or "a file".
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { sql } from 'kysely';
import { pino } from 'pino';
import { CONFIG_OPTIONS, loadConfig, type Config } from '../config.js';
import { createTwofaClient } from '../client/index.js';
import { createTransport, describeDsn, DsnError } from '../delivery/dsn.js';
import { Inbox } from '../delivery/log/inbox.js';
import { TRANSPORT_NAME_PATTERN } from '../domain/routes.js';
import type { SecurityProfile } from '../domain/security-profile.js';
import { TELEGRAM_GATEWAY_BASE_URL } from '../delivery/providers/telegram/telegram-transport.js';
import { TWILIO_BASE_URL } from '../delivery/providers/twilio/twilio-transport.js';
import { VONAGE_BASE_URL } from '../delivery/providers/vonage/vonage-transport.js';
import { GRAPH_API_BASE_URL } from '../delivery/providers/whatsapp/whatsapp-transport.js';
import { routeLeaves, splitRouteMembers } from '../delivery/routing/routed-transport.js';
import type { Transport } from '../delivery/transport.js';
import type { KyselyStore } from '../store/kysely-store.js';
import { openStore, postgresOptions } from '../store/open-store.js';
import { isPostgresUrl, redactPostgresUrl } from '../store/postgres/postgres-url.js';

/** Kysely's migration table, as src/store/migrations.ts names it. */
const MIGRATION_TABLE = 'twofa_migrations';

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

export interface CheckResult {
  name: string;
  status: CheckStatus;
  message: string;
  /** What to do about it (absent when ok). */
  fix?: string;
  /** The environment variable the check is about, when there is one. */
  variable?: string;
}

const TCP_TIMEOUT_MS = 3000;
/** /readyz answers at once when the server is well; a busy one gets a little longer than a TCP connect. */
const READY_TIMEOUT_MS = 5000;
const MIN_SECRET_LENGTH = 32;
const CHANNEL_VARIABLES = [
  ['sms', 'TWOFA_SMS_DSN', 'smsDsn'], ['voice', 'TWOFA_VOICE_DSN', 'voiceDsn'], ['email', 'TWOFA_EMAIL_DSN', 'emailDsn'],
  ['whatsapp', 'TWOFA_WHATSAPP_DSN', 'whatsappDsn'], ['telegram', 'TWOFA_TELEGRAM_DSN', 'telegramDsn'],
] as const;
/** Channels off unless configured: left out of the report while their DSN is the default none://. */
const OPTIONAL_CHANNELS: ReadonlySet<string> = new Set(['whatsapp', 'telegram']);

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || h.startsWith('127.');
}

function errorCode(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e.code ?? e.message;
}

/** Every TWOFA_* variable parsed on its own, so that all the bad ones are named, not only the first. */
export function checkConfiguration(env: NodeJS.ProcessEnv): { results: CheckResult[]; config?: Config } {
  const results: CheckResult[] = [];
  for (const option of CONFIG_OPTIONS) {
    const raw = env[option.env];
    if (raw === undefined || raw === '') continue;
    try {
      option.parse(raw, env);
    } catch (err) {
      results.push({
        name: 'configuration', status: 'fail', variable: option.env,
        // Secret-bearing variables are named, never echoed: the parse messages only describe the rule.
        message: `${option.env}: ${(err as Error).message}`,
        fix: `correct or unset ${option.env} (twofa serve --help describes every variable)`,
      });
    }
  }
  if (results.length > 0) return { results };
  try {
    const config = loadConfig(env);
    const set = CONFIG_OPTIONS.filter((o) => env[o.env] !== undefined && env[o.env] !== '').length;
    return { results: [{ name: 'configuration', status: 'ok', message: `the environment parses (${set} TWOFA_* variable${set === 1 ? '' : 's'} set, the rest default)` }], config };
  } catch (err) {
    return { results: [{ name: 'configuration', status: 'fail', message: (err as Error).message, fix: 'correct the variable named above' }] };
  }
}

/** The nearest existing folder at or above `dir`, and whether this process may create entries in it. */
function writableAncestor(dir: string): { existing: string; writable: boolean } {
  let current = path.resolve(dir);
  while (!fs.existsSync(current)) {
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  try {
    fs.accessSync(current, fs.constants.W_OK | fs.constants.X_OK);
    return { existing: current, writable: true };
  } catch {
    return { existing: current, writable: false };
  }
}

export function checkDataDir(config: Config): CheckResult {
  const dir = config.dataDir;
  const name = 'data directory';
  if (fs.existsSync(dir)) {
    if (!fs.statSync(dir).isDirectory()) return { name, status: 'fail', variable: 'TWOFA_DATA_DIR', message: `${dir} exists but is not a folder`, fix: 'point TWOFA_DATA_DIR at a folder' };
    const { writable } = writableAncestor(dir);
    return writable
      ? { name, status: 'ok', message: `${dir} is writable` }
      : { name, status: 'fail', variable: 'TWOFA_DATA_DIR', message: `${dir} is not writable by this user`, fix: `give the user running twofa write access (chown/chmod ${dir}) or set TWOFA_DATA_DIR` };
  }
  const { existing, writable } = writableAncestor(dir);
  return writable
    ? { name, status: 'ok', message: `${dir} does not exist yet; it will be created at first start` }
    : { name, status: 'fail', variable: 'TWOFA_DATA_DIR', message: `${dir} does not exist and ${existing} is not writable, so it cannot be created`, fix: `create ${dir} for the user running twofa, or set TWOFA_DATA_DIR` };
}

export function checkSecret(config: Config): CheckResult[] {
  if (config.secret !== undefined) {
    const previous = config.previousSecrets.length;
    return [{ name: 'secret', status: 'ok', message: `TWOFA_SECRET is set${previous > 0 ? ` (and ${previous} previous secret${previous === 1 ? '' : 's'} in TWOFA_PREVIOUS_SECRETS)` : ''}` }];
  }
  const file = path.join(config.dataDir, 'secret');
  const productionFix = `set TWOFA_SECRET for production (every node must share it), e.g. from the file: TWOFA_SECRET="$(cat ${file})"`;
  if (!fs.existsSync(file)) {
    const { writable } = writableAncestor(config.dataDir);
    if (!writable) return [{ name: 'secret', status: 'fail', variable: 'TWOFA_SECRET', message: `TWOFA_SECRET is not set and ${file} cannot be created`, fix: 'set TWOFA_SECRET (generate one with: openssl rand -base64 48), or make TWOFA_DATA_DIR writable' }];
    return [{ name: 'secret', status: 'warn', variable: 'TWOFA_SECRET', message: `TWOFA_SECRET is not set: twofa serve will generate ${file} (mode 0600) at first start`, fix: 'set TWOFA_SECRET for production (generate one with: openssl rand -base64 48)' }];
  }
  const results: CheckResult[] = [];
  let content: string;
  try {
    content = fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    return [{ name: 'secret', status: 'fail', variable: 'TWOFA_SECRET', message: `${file} cannot be read (${errorCode(err)})`, fix: `let the user running twofa read ${file}, or set TWOFA_SECRET` }];
  }
  if (content.length < MIN_SECRET_LENGTH) {
    results.push({ name: 'secret', status: 'fail', variable: 'TWOFA_SECRET', message: `${file} holds a secret shorter than ${MIN_SECRET_LENGTH} characters; the server refuses it`, fix: `delete ${file} (pending PINs will then fail) or set TWOFA_SECRET` });
  } else {
    results.push({ name: 'secret', status: 'warn', variable: 'TWOFA_SECRET', message: `using the generated secret file ${file}`, fix: productionFix });
  }
  if (process.platform !== 'win32') {
    const mode = fs.statSync(file).mode & 0o777;
    const octal = mode.toString(8).padStart(4, '0');
    results.push((mode & 0o077) !== 0
      ? { name: 'secret file mode', status: 'warn', message: `${file} is readable or writable by group or others (mode ${octal})`, fix: `chmod 600 ${file}` }
      : { name: 'secret file mode', status: 'ok', message: `${file} has mode ${octal}` });
  }
  return results;
}

/** The migration names this version knows: those that bring an empty in-memory database up to date. */
async function knownMigrations(): Promise<string[]> {
  const scratch = await openStore('sqlite::memory:');
  try {
    return await appliedMigrations(scratch);
  } finally {
    await scratch.close();
  }
}

/** Names in the migration table (none when the table does not exist yet), on either dialect. */
async function appliedMigrations(store: KyselyStore): Promise<string[]> {
  const tables = await store.db.introspection.getTables({ withInternalKyselyTables: true });
  if (!tables.some((t) => t.name === MIGRATION_TABLE)) return [];
  const rows = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)} order by name`.execute(store.db);
  return rows.rows.map((r) => r.name);
}

function keysUnknown(config: Config, why: string): CheckResult {
  return config.bootstrapApiKey !== undefined
    ? { name: 'api keys', status: 'ok', message: `${why}; TWOFA_BOOTSTRAP_API_KEY will be created at start` }
    : { name: 'api keys', status: 'warn', message: `${why}; the server creates a first key at start and prints it once`, fix: 'set TWOFA_BOOTSTRAP_API_KEY, or run twofa keys create once the database exists' };
}

/** Checks the database (opened without migrating, so doctor changes nothing) and then its API keys. */
export async function checkDatabaseAndKeys(config: Config): Promise<CheckResult[]> {
  const name = 'database';
  const variable = 'TWOFA_DATABASE_URL';
  const postgres = isPostgresUrl(config.databaseUrl);
  let shown: string;
  if (postgres) {
    shown = redactPostgresUrl(config.databaseUrl);
  } else {
    const file = config.databaseUrl.slice('sqlite:'.length);
    if (file === '' || file === ':memory:') {
      return [
        { name, status: 'warn', variable, message: 'in-memory database: everything is lost when the server stops, and other twofa commands (keys, migrate) cannot see it', fix: 'set TWOFA_DATABASE_URL=sqlite:<file> (or leave it unset) outside tests' },
        keysUnknown(config, 'an in-memory database starts empty'),
      ];
    }
    shown = path.resolve(file);
    if (!fs.existsSync(shown)) {
      const { existing, writable } = writableAncestor(path.dirname(shown));
      if (!writable) return [{ name, status: 'fail', variable, message: `${shown} does not exist and ${existing} is not writable`, fix: `make ${path.dirname(shown)} writable for the user running twofa, or change TWOFA_DATABASE_URL` }];
      return [{ name, status: 'ok', message: `${shown} does not exist yet; twofa serve (or twofa migrate) creates it` }, keysUnknown(config, 'no database yet')];
    }
    try {
      fs.accessSync(shown, fs.constants.R_OK | fs.constants.W_OK);
    } catch (err) {
      return [{ name, status: 'fail', variable, message: `${shown} is not readable and writable by this user (${errorCode(err)})`, fix: `chown/chmod ${shown} for the user running twofa` }];
    }
  }
  const unreachableFix = postgres
    ? 'check that PostgreSQL runs and accepts this node (host, port, user, password, pg_hba.conf, TWOFA_DATABASE_SSL)'
    : 'check that the file is a twofa SQLite database (restore it from a backup if it is damaged)';
  let store: KyselyStore;
  try {
    store = await openStore(config.databaseUrl, { migrate: false, postgres: { ...postgresOptions(config), poolSize: 1 } });
  } catch (err) {
    return [{ name, status: 'fail', variable, message: `${shown} cannot be opened: ${(err as Error).message}`, fix: unreachableFix }];
  }
  try {
    let applied: string[];
    try {
      await store.ping();
      applied = await appliedMigrations(store);
    } catch (err) {
      return [{ name, status: 'fail', variable, message: `${shown} cannot be read: ${errorCode(err)}`, fix: unreachableFix }];
    }
    const results: CheckResult[] = [];
    const known = await knownMigrations();
    const unknown = applied.filter((m) => !known.includes(m));
    const pending = known.filter((m) => !applied.includes(m));
    if (unknown.length > 0) {
      results.push({ name, status: 'fail', variable, message: `${shown} has migrations this version does not know (${unknown.join(', ')}): a newer twofa wrote it`, fix: 'run the newer twofa version, or restore a backup made for this one' });
    } else if (pending.length > 0) {
      const what = `${shown} opens; ${pending.length} migration${pending.length === 1 ? ' is' : 's are'} pending (${pending.join(', ')})`;
      results.push(config.migrateOnStart
        ? { name, status: 'warn', message: `${what}; twofa serve applies them at start`, fix: 'nothing to do, or run twofa migrate first' }
        : { name, status: 'fail', variable: 'TWOFA_MIGRATE_ON_START', message: `${what} and TWOFA_MIGRATE_ON_START=false`, fix: 'run twofa migrate before starting the server' });
    } else {
      results.push({ name, status: 'ok', message: `${shown} opens and its schema is current (${known.length} migration${known.length === 1 ? '' : 's'})` });
    }
    if (applied.length === 0) {
      results.push(keysUnknown(config, 'the database has no schema yet'));
    } else {
      const count = await store.countActiveApiKeys();
      results.push(count > 0
        ? { name: 'api keys', status: 'ok', message: `${count} active API key${count === 1 ? '' : 's'}` }
        : { name: 'api keys', status: 'warn', message: 'no active API key: no client can call the API', fix: 'run twofa keys create (or set TWOFA_BOOTSTRAP_API_KEY and restart)' });
    }
    if (applied.includes('0004_security')) {
      const guards = await checkGuards(store, config.securityProfile);
      if (guards) results.push(guards);
    }
    return results;
  } finally {
    await store.close();
  }
}

/**
 * The anti-fraud guards are off until turned on per application (Infobip-compatible default): doctor
 * recommends them for every application that has not. Absent when there is no application yet.
 * TWOFA_SECURITY_PROFILE=strict runs them for every application.
 */
async function checkGuards(store: KyselyStore, profile: SecurityProfile): Promise<CheckResult | undefined> {
  const apps = await store.db.selectFrom('applications').select('id').execute();
  if (apps.length === 0) return undefined;
  if (profile === 'strict') return { name: 'anti-fraud guards', status: 'ok', message: `on for all ${apps.length} application${apps.length === 1 ? '' : 's'} (TWOFA_SECURITY_PROFILE=strict)` };
  const rows = await store.db.selectFrom('security_settings').select(['application_id', 'settings']).execute();
  const on = new Set(rows.filter((r) => (JSON.parse(r.settings) as { enabled?: boolean }).enabled === true).map((r) => r.application_id));
  const off = apps.filter((a) => !on.has(a.id)).length;
  if (off === 0) return { name: 'anti-fraud guards', status: 'ok', message: `on for all ${apps.length} application${apps.length === 1 ? '' : 's'}` };
  return {
    name: 'anti-fraud guards', status: 'warn', message: `off for ${off} of ${apps.length} application${apps.length === 1 ? '' : 's'}: no country or prefix lists, per-IP limit, premium-number refusal or conversion breaker against SMS pumping`,
    fix: 'PUT /api/v1/applications/{appId}/security {"enabled": true, "perIpSendLimit": "10/1h", "perPrefixSendLimit": "20/1h", "conversionBreaker": {"enabled": true}} (and allowedCountries for the countries you serve)',
  };
}

/** Rate limits in Redis: every node depends on reaching it. */
export async function checkRedis(config: Config): Promise<CheckResult | undefined> {
  if (config.redisUrl === undefined) return undefined;
  const url = new URL(config.redisUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
  const port = url.port !== '' ? Number(url.port) : 6379;
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const reason = await tcpConnect(host, port);
  return reason === undefined
    ? { name: 'redis', status: 'ok', message: `${where} accepts connections` }
    : { name: 'redis', status: 'fail', variable: 'TWOFA_REDIS_URL', message: `cannot connect to ${where} (${reason}): sends and verifications would fail`, fix: 'start Redis, or correct TWOFA_REDIS_URL (or unset it to count limits in the database)' };
}

/** A host a channel's transport connects to, and what kind of peer it is. */
export interface DeliveryPeer {
  channel: string;
  variable: string;
  kind: string;
  host: string;
  port: number;
}

const DEFAULT_PORTS: Record<string, number> = { 'webhook+http': 80, 'webhook+https': 443, smtp: 587, smtps: 465, smpp: 2775, smpps: 3550 };
const PROVIDER_DEFAULT_URLS: Record<string, string> = { twilio: TWILIO_BASE_URL, vonage: VONAGE_BASE_URL, whatsapp: GRAPH_API_BASE_URL, telegram: TELEGRAM_GATEWAY_BASE_URL };

/**
 * The hosts a (valid) DSN makes the server connect to; a failover/roundrobin route has several. A
 * member that names a transport (TWOFA_TRANSPORT_<NAME>) stands for that transport's DSN.
 */
export function deliveryPeers(channel: string, variable: string, dsn: string, named: Readonly<Record<string, string>> = {}): DeliveryPeer[] {
  const route = /^\s*(failover|roundrobin)\((.*)\)\s*$/s.exec(dsn);
  const members = route ? splitRouteMembers(route[2] ?? '') : [dsn.trim()];
  const peers: DeliveryPeer[] = [];
  for (const member of members) {
    if (TRANSPORT_NAME_PATTERN.test(member)) {
      const namedDsn = named[member];
      if (namedDsn !== undefined) peers.push(...deliveryPeers(channel, namedVariable(member), namedDsn));
      continue;
    }
    const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(member)?.[1]?.toLowerCase() ?? '';
    const url = new URL(member);
    const kind = scheme.replace(/^webhook\+https?$/, 'webhook').replace(/s$/, '');
    let target: URL | undefined;
    let port: number | undefined;
    if (scheme in DEFAULT_PORTS) {
      target = url;
      port = url.port !== '' ? Number(url.port) : DEFAULT_PORTS[scheme];
    } else if (scheme === 'infobip') {
      target = url;
      port = url.port !== '' ? Number(url.port) : url.searchParams.get('scheme') === 'http' ? 80 : 443;
    } else if (scheme in PROVIDER_DEFAULT_URLS) {
      target = new URL(url.searchParams.get('base_url') ?? PROVIDER_DEFAULT_URLS[scheme] ?? '');
      port = target.port !== '' ? Number(target.port) : target.protocol === 'http:' ? 80 : 443;
    }
    if (target !== undefined && port !== undefined) peers.push({ channel, variable, kind, host: target.hostname.replace(/^\[|\]$/g, ''), port });
  }
  return peers;
}

function namedVariable(name: string): string {
  return `TWOFA_TRANSPORT_${name.toUpperCase()}`;
}

/**
 * Parses each named transport's DSN and each channel's as the server would, and says what they mean
 * for the deployment. Named transports are checked (and their hosts reached) once each, as SMS peers:
 * the routes table may send any phone channel through them.
 */
export async function checkChannels(config: Config): Promise<{ results: CheckResult[]; peers: DeliveryPeer[] }> {
  const results: CheckResult[] = [];
  const peers: DeliveryPeer[] = [];
  const named = new Map<string, Transport>();
  for (const [transportName, dsn] of Object.entries(config.transports)) {
    const variable = namedVariable(transportName);
    try {
      const transport = await createTransport(variable, dsn, { inbox: new Inbox(), logger: pino({ level: 'silent' }), named: new Map() });
      if (transport === null) throw new DsnError(`${variable}: none:// is not a transport; remove the variable instead`);
      named.set(transportName, transport);
      results.push({ name: `transport ${transportName}`, status: 'ok', message: `${transport.name} ${describeDsn(dsn.trim())}` });
      peers.push(...deliveryPeers('sms', variable, dsn));
    } catch (err) {
      if (!(err instanceof DsnError)) throw err;
      results.push({ name: `transport ${transportName}`, status: 'fail', variable, message: err.message, fix: `correct ${variable} (docs/transports.md has examples)` });
    }
  }
  try {
    await checkChannelDsns(config, named, results, peers);
  } finally {
    for (const transport of named.values()) await transport.close?.();
  }
  return { results, peers };
}

async function checkChannelDsns(config: Config, named: ReadonlyMap<string, Transport>, results: CheckResult[], peers: DeliveryPeer[]): Promise<void> {
  for (const [channel, variable, key] of CHANNEL_VARIABLES) {
    const dsn = config[key];
    if (OPTIONAL_CHANNELS.has(channel) && /^\s*none:\/\/\s*$/i.test(dsn)) continue;
    const name = `${channel} channel`;
    const warnings: string[] = [];
    // The transports' own warnings (plain-http webhooks) come through their logger: collect them.
    const logger = pino({ level: 'warn' }, { write: (line: string) => { warnings.push(String((JSON.parse(line) as { msg?: string }).msg ?? line)); } });
    let transport;
    try {
      transport = await createTransport(variable, dsn, { inbox: new Inbox(), logger, named });
    } catch (err) {
      if (!(err instanceof DsnError)) throw err;
      results.push({ name, status: 'fail', variable, message: err.message, fix: `correct ${variable} (twofa serve --help lists the DSN forms; docs/transports.md has examples)` });
      continue;
    }
    try {
      const shown = describeDsn(dsn.trim());
      if (transport === null) {
        results.push({ name, status: 'warn', variable, message: `channel off (${shown}): ${channel} PINs are not delivered`, fix: `set ${variable} to a transport if ${channel} PINs are needed` });
      } else if (transport.name === 'log') {
        results.push(isLoopbackHost(config.host)
          ? { name, status: 'ok', message: `${shown}: PINs go to the local inbox (twofa inbox), for development` }
          : { name, status: 'warn', variable, message: `${shown} while TWOFA_HOST=${config.host} listens beyond loopback: PINs are readable through the inbox API`, fix: `configure a real transport in ${variable} for production, or listen on 127.0.0.1` });
      } else {
        results.push(warnings.length > 0
          ? { name, status: 'warn', variable, message: `${transport.name} ${shown}: ${warnings.join('; ')}`, fix: `use the encrypted form of the transport in ${variable} (webhook+https, smtps, smpps, https)` }
          : { name, status: 'ok', message: `${transport.name} ${shown}` });
        // Members that name a transport are left out: their hosts were listed with the named transports.
        peers.push(...deliveryPeers(channel, variable, dsn));
      }
    } finally {
      // Named transports are closed once, after every channel that names them.
      const shared = new Set(named.values());
      for (const leaf of transport ? routeLeaves(transport) : []) if (!shared.has(leaf)) await leaf.close?.();
    }
  }
}

/** Resolves with undefined once a TCP connection opens, or with the reason it did not within the timeout. */
export function tcpConnect(host: string, port: number, timeoutMs = TCP_TIMEOUT_MS): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (reason: string | undefined) => {
      socket.destroy();
      resolve(reason);
    };
    socket.setTimeout(timeoutMs, () => done(`no answer within ${timeoutMs / 1000} s`));
    socket.once('connect', () => done(undefined));
    socket.once('error', (err) => done(errorCode(err)));
  });
}

/**
 * Every peer's reachability. Inside a failover/roundrobin route an unreachable member is only a
 * warning while another member of the same channel answers: the route delivers through the others.
 */
export async function checkPeers(peers: DeliveryPeer[]): Promise<CheckResult[]> {
  const results = await Promise.all(peers.map(checkPeer));
  return results.map((result, i) => {
    const channel = peers[i]?.channel;
    const siblings = results.filter((_r, j) => j !== i && peers[j]?.channel === channel);
    if (result.status !== 'fail' || !siblings.some((r) => r.status === 'ok')) return result;
    return { ...result, status: 'warn', message: `${result.message.replace(/: \w+ PINs would not be delivered$/, '')}; the route delivers through the other transports meanwhile` };
  });
}

async function checkPeer(peer: DeliveryPeer): Promise<CheckResult> {
  const where = `${peer.host.includes(':') ? `[${peer.host}]` : peer.host}:${peer.port}`;
  const name = `${peer.channel} ${peer.kind}`;
  const reason = await tcpConnect(peer.host, peer.port);
  return reason === undefined
    ? { name, status: 'ok', message: `${where} accepts connections` }
    : { name, status: 'fail', variable: peer.variable, message: `cannot connect to ${where} (${reason}): ${peer.channel} PINs would not be delivered`, fix: `start the ${peer.kind === 'webhook' ? 'webhook receiver' : `${peer.kind} server`} or open the network path to it, or correct the host and port in ${peer.variable}` };
}

/** Whether a server answers /readyz at `url`. Not running is only a warning: doctor also runs before start. */
export async function checkServer(url: string): Promise<CheckResult> {
  const name = 'server';
  const client = createTwofaClient({ baseUrl: url, apiKey: 'doctor-needs-no-key', timeoutMs: READY_TIMEOUT_MS });
  if (await client.health.ready()) return { name, status: 'ok', message: `${url} is ready` };
  const parsed = new URL(url);
  const port = parsed.port !== '' ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
  const reason = await tcpConnect(parsed.hostname.replace(/^\[|\]$/g, ''), port);
  return reason === undefined
    ? { name, status: 'warn', message: `something listens at ${url} but /readyz is not 200 (shutting down, database unreachable, or not twofa)`, fix: 'look at the server\'s log; check that --url or TWOFA_HOST/TWOFA_PORT point at twofa' }
    : { name, status: 'warn', message: `no server at ${url} (${reason})`, fix: 'start it with twofa serve (or pass --url if it runs elsewhere)' };
}
