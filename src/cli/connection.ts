// The options every server-talking command shares (--url, --key) and the conversion of what the
// client throws into the command line's failures: an error answer is exit 1 with the server's own
// words, a server that cannot be reached is exit 3.
import type { Command } from 'commander';
import { loadConfig, type Config } from '../config.js';
import { createTwofaClient, TwofaApiError, type TwofaClient } from '../client/index.js';
import { OperationFailedError, ServerUnreachableError, UsageError } from './cli-errors.js';

export interface ConnectionOptions {
  url?: string;
  key?: string;
}

export const API_KEY_VARIABLE = 'TWOFA_API_KEY';

/** Adds --url and --key to a command (each server-talking command carries them itself). */
export function withConnectionOptions(command: Command): Command {
  return command
    .option('--url <url>', 'server URL (default: http://$TWOFA_HOST:$TWOFA_PORT, i.e. http://127.0.0.1:8080)')
    .option('--key <key>', `API key (default: $${API_KEY_VARIABLE}; prefer the variable, a key on the command line lands in shell history)`);
}

/**
 * The URL a client on this machine reaches the configured server at. A wildcard listen address is
 * not somewhere to connect to, so 0.0.0.0 and :: become the loopback address of their family.
 */
export function serverUrlFor(config: Pick<Config, 'host' | 'port'>): string {
  let host = config.host;
  if (host === '0.0.0.0' || host === '') host = '127.0.0.1';
  if (host === '::' || host === '[::]') host = '::1';
  if (host.includes(':') && !host.startsWith('[')) host = `[${host}]`;
  return `http://${host}:${config.port}`;
}

export function defaultServerUrl(): string {
  return serverUrlFor(loadConfig());
}

export function resolveServerUrl(url: string | undefined): string {
  if (url === undefined) return defaultServerUrl();
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--url ${url} is not a URL; expected e.g. http://127.0.0.1:8080`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new UsageError(`--url must be an http:// or https:// URL, not ${parsed.protocol}//`);
  return url.replace(/\/+$/, '');
}

export interface Connection {
  baseUrl: string;
  /** Runs one or more client calls, turning error answers and network failures into CLI failures. */
  run<T>(work: (client: TwofaClient) => Promise<T>): Promise<T>;
}

export function connect(options: ConnectionOptions): Connection {
  const apiKey = options.key ?? process.env[API_KEY_VARIABLE];
  if (apiKey === undefined || apiKey === '') {
    throw new UsageError(`an API key is needed: set ${API_KEY_VARIABLE} or pass --key (create one with: twofa keys create)`);
  }
  const baseUrl = resolveServerUrl(options.url);
  const client = createTwofaClient({ baseUrl, apiKey });
  return {
    baseUrl,
    async run(work) {
      try {
        return await work(client);
      } catch (err) {
        throw toCliError(err, baseUrl);
      }
    },
  };
}

/** Infobip's error envelope as one readable message: status, messageId, text, and each field's problems. */
export function describeApiError(err: TwofaApiError): string {
  const fields = Object.entries(err.validationErrors ?? {});
  // With field errors the text only repeats them ("[to : must be ...]"): one line per field reads better.
  const lines = fields.length > 0
    ? [`the server answered ${err.status} ${err.messageId}:`, ...fields.map(([field, problems]) => `  ${field}: ${problems.join('; ')}`)]
    : [`the server answered ${err.status} ${err.messageId}: ${err.text}`];
  if (err.retryAfterSeconds !== undefined) lines.push(`  retry in ${err.retryAfterSeconds} s`);
  if (err.status === 401) lines.push(`  check the API key (--key or ${API_KEY_VARIABLE}); twofa keys list shows the active ones`);
  if (err.status === 403) lines.push('  the key lacks the scope: management commands need 2fa:manage');
  return lines.join('\n');
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EPIPE', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'ERR_TLS_CERT_ALTNAME_INVALID']);

/** The low-level reason a request never got an answer (ECONNREFUSED, a timeout), or undefined. */
export function networkFailureReason(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    if (e.name === 'TimeoutError' || e.name === 'AbortError') return 'timed out';
  }
  // fetch's own refusals (a blocked port, a bad address) carry their reason as the cause's message.
  if (err instanceof TypeError && err.message === 'fetch failed') return err.cause instanceof Error ? err.cause.message : 'fetch failed';
  return undefined;
}

function toCliError(err: unknown, baseUrl: string): unknown {
  if (err instanceof TwofaApiError) return new OperationFailedError(describeApiError(err));
  const reason = networkFailureReason(err);
  if (reason !== undefined) {
    return new ServerUnreachableError(`cannot reach the twofa server at ${baseUrl} (${reason}); is it running (twofa serve)? Use --url or TWOFA_HOST/TWOFA_PORT to point elsewhere`);
  }
  return err;
}
