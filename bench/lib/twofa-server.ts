// twofa as the bench runs it: `twofa serve` compiled (processes.ts), on SQLite or PostgreSQL, with the
// production log level and its SMS delivered by webhook to the bench's receiver in its own process.
import path from 'node:path';
import { SERVE_NODE_OPTIONS } from '../../src/cli/serve-command.js';
import { freePort, SCRIPTS, startNodeProcess, type NodeProcess } from './processes.js';
import { BENCH_API_KEY, BENCH_SECRET } from './twofa-fixture.js';

export const RECEIVER_SECRET = 'whsec_YmVuY2gtd2ViaG9vay1zZWNyZXQtMDEyMzQ1Njc4OQ==';

/** The delivery receiver (bench/receiver-server.ts), started once for every send scenario. */
let receiver: NodeProcess | undefined;

/** `keepCodes`: it keeps each message's code for GET /codes (lib/verify-most.ts); only the first start's options count. */
export async function startReceiver(options: { keepCodes?: boolean } = {}): Promise<NodeProcess> {
  if (receiver) return receiver;
  const port = await freePort();
  receiver = await startNodeProcess({ script: SCRIPTS.receiver, env: { BENCH_PORT: String(port), ...(options.keepCodes === true ? { BENCH_RECEIVER_CODES: '1' } : {}) }, port, readyPath: '/' });
  return receiver;
}

export async function stopReceiver(): Promise<void> {
  await receiver?.stop();
  receiver = undefined;
}

export const SERVER_ENV = (dataDir: string, databaseUrl: string, port: number, receiverUrl: string): Record<string, string> => ({
  TWOFA_DATA_DIR: dataDir,
  TWOFA_DATABASE_URL: databaseUrl,
  TWOFA_SECRET: BENCH_SECRET,
  TWOFA_BOOTSTRAP_API_KEY: BENCH_API_KEY,
  TWOFA_HOST: '127.0.0.1',
  TWOFA_PORT: String(port),
  // The production default: every request is logged (to /dev/null here).
  TWOFA_LOG_LEVEL: 'info',
  // Every PIN is rendered and POSTed to the receiver in its own process, as to an SMS gateway.
  TWOFA_SMS_DSN: `webhook+${receiverUrl}/sms?secret=${RECEIVER_SECRET}`,
  // The send scenarios go to a new sequential number each time, none verified: SMS pumping to the risk
  // score, which would block them. Its cost is measured by risk-cost.ts and hot-cpu.ts.
  TWOFA_RISK_DEFAULT_MODE: 'off',
});

/** `twofa serve` on the SQLite file of `fixture` (or `databaseUrl`), as npm start and docs/deploy start it, with their heap settings. */
export async function startTwofa(fixture: { file: string }, cpuProfileDir?: string, databaseUrl = `sqlite:${fixture.file}`): Promise<NodeProcess> {
  const port = await freePort();
  const { url: receiverUrl } = await startReceiver();
  return startNodeProcess({ script: SCRIPTS.server, args: ['serve'], env: { ...SERVER_ENV(path.dirname(fixture.file), databaseUrl, port, receiverUrl), NODE_OPTIONS: SERVE_NODE_OPTIONS }, port, readyPath: '/readyz', cpuProfileDir });
}
