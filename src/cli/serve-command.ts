// `twofa serve` (what npm start runs): parses the configuration once, makes the logger, and calls
// startServer of main.ts, which builds the node (main.ts -> app.ts for HTTP); this file owns the
// process, its signals and its exit code. Reached from cli/twofa.ts (package.json's `bin`).
import type { Command } from 'commander';
import { CONFIG_OPTIONS, loadConfig } from '../config.js';

/**
 * The V8 heap settings `twofa serve` runs with: npm start passes them, docs/deploy sets them as
 * NODE_OPTIONS, and so does the benchmark. An old-generation limit well above the live heap but
 * below 1 GB makes V8 collect the old generation when it has grown by about half instead of
 * fourfold, which keeps the peak RSS under load below 200 MB; a smaller young generation would save
 * more memory at a cost in throughput and tail latency (the measurements are in bench/NOTES.md).
 */
export const SERVE_NODE_OPTIONS = '--max-semi-space-size=16 --max-old-space-size=512';

export function registerServeCommand(program: Command): void {
  program.command('serve')
    .description('Run the HTTP API and the delivery worker (configured by TWOFA_* environment variables)')
    .addHelpText('after', `
Examples:
  $ twofa serve
  $ TWOFA_BOOTSTRAP_API_KEY=$(openssl rand -hex 24) TWOFA_SECRET=$(openssl rand -base64 48) twofa serve
  $ TWOFA_HOST=0.0.0.0 TWOFA_SMS_DSN="webhook+https://hooks.example.com/sms?secret=whsec_..." twofa serve

Environment:\n${CONFIG_OPTIONS.map((o) => `  ${o.env}${o.default !== undefined ? ` (default ${o.default || '""'})` : ''}\n      ${o.doc}`).join('\n')}
  NODE_OPTIONS (recommended "${SERVE_NODE_OPTIONS}")
      V8's heap sizes; npm start and docs/deploy set these, which keep the peak memory low.\n`)
    .action(async () => {
      const config = loadConfig();
      // Loaded here, not at the top: the server's module graph is the slow part of starting the CLI,
      // and only `serve` needs it.
      const [{ createLogger }, { startServer }] = await Promise.all([import('../logger.js'), import('../main.js')]);
      const logger = createLogger(config.logLevel);
      const server = await startServer(config, logger);
      const shutdown = (signal: string) => {
        logger.info({ signal }, 'shutting down: finishing in-flight requests and deliveries');
        // A second signal while draining means "now".
        process.once(signal, () => process.exit(1));
        server.stop().then(() => process.exit(0), (err: unknown) => {
          logger.error({ err }, 'shutdown failed');
          process.exit(1);
        });
      };
      // SIGHUP reads the routes table and TWOFA_PRICES_FILE again (docs/routing.md); an invalid one is
      // refused whole and logged, the one in force kept, and the other still reloaded.
      process.on('SIGHUP', () => {
        server.reloadRoutes();
        void server.reloadPrices().catch(() => undefined);
      });
      process.once('SIGTERM', () => shutdown('SIGTERM'));
      process.once('SIGINT', () => shutdown('SIGINT'));
    });
}
