// The HTTP ceiling: the same Fastify stack as a twofa node (its server options, its pino logger at
// the same level, request logging included) answering one empty route, and nothing else. Started by
// bench/run.ts as its own process, exactly like the server under test.
import os from 'node:os';
import Fastify from 'fastify';
import { fastifyServerOptions } from '../src/http/server-options.js';
import type { LogLevel } from '../src/config.js';
import { createLogger } from '../src/logger.js';

const port = Number(process.env['BENCH_PORT'] ?? '0');
const level = (process.env['TWOFA_LOG_LEVEL'] ?? 'info') as LogLevel;
const logger = createLogger(level).child({ node: os.hostname() });
const app = Fastify(fastifyServerOptions({ logger, bodyLimitBytes: 65_536 }));
app.get('/empty', async () => ({}));
await app.listen({ host: '127.0.0.1', port });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
