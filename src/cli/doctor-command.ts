// twofa doctor: checks the configuration, secret, data folder, database, channels, webhook peers and
// the server, and says how to fix each problem. Exit 0 when nothing failed (warnings allowed), 1 when
// a check failed; a configuration error is a failed check too (exit 1), so the report is complete.
import type { Command } from 'commander';
import { EXIT_FAILURE, SilentExit } from './cli-errors.js';
import { resolveServerUrl, serverUrlFor } from './connection.js';
import type { CheckResult } from './doctor-checks.js';
import { writeJson, writeLine } from './output.js';

function skipped(names: string[], why: string): CheckResult[] {
  return names.map((name) => ({ name, status: 'skip', message: why }));
}

export async function runDoctor(env: NodeJS.ProcessEnv, url: string | undefined): Promise<CheckResult[]> {
  // Loaded on use: the checks pull in the store and the transports, which other commands do not need.
  const { checkChannels, checkConfiguration, checkDatabaseAndKeys, checkDataDir, checkPeers, checkRedis, checkSecret, checkServer } = await import('./doctor-checks.js');
  const { results, config } = checkConfiguration(env);
  if (config === undefined) {
    const server = url !== undefined ? [await checkServer(resolveServerUrl(url))] : skipped(['server'], 'needs TWOFA_HOST and TWOFA_PORT (or --url)');
    return [...results, ...skipped(['secret', 'data directory', 'database', 'api keys', 'sms channel', 'voice channel', 'email channel'], 'the configuration does not parse'), ...server];
  }
  results.push(...checkSecret(config), checkDataDir(config));
  results.push(...await checkDatabaseAndKeys(config));
  const channels = await checkChannels(config);
  results.push(...channels.results);
  // The network checks each wait up to 3 s; run them together.
  const serverUrl = url !== undefined ? resolveServerUrl(url) : serverUrlFor(config);
  const [redis, peers, server] = await Promise.all([checkRedis(config), checkPeers(channels.peers), checkServer(serverUrl)]);
  if (redis !== undefined) results.push(redis);
  results.push(...peers, server);
  return results;
}

function writeReport(results: CheckResult[]): void {
  const width = Math.max(...results.map((r) => r.name.length));
  for (const r of results) {
    writeLine(`${r.status.padEnd(4)}  ${r.name.padEnd(width)}  ${r.message}`);
    if (r.fix !== undefined) writeLine(`${' '.repeat(6 + width)}  fix: ${r.fix}`);
  }
  const count = (status: string) => results.filter((r) => r.status === status).length;
  const failed = count('fail');
  const warned = count('warn');
  writeLine();
  writeLine(failed > 0 ? `${failed} check${failed === 1 ? '' : 's'} failed, ${warned} warning${warned === 1 ? '' : 's'}`
    : warned > 0 ? `no check failed; ${warned} warning${warned === 1 ? '' : 's'}` : 'all checks passed');
}

export function registerDoctorCommand(program: Command): void {
  program.command('doctor')
    .description('Check the configuration, secret, database, Redis, channels, the hosts they deliver through and the server, with how to fix each problem')
    .option('--url <url>', 'server URL to probe (default: http://$TWOFA_HOST:$TWOFA_PORT)')
    .option('--json', 'print {"ok": boolean, "checks": [{name, status, message, fix?, variable?}]} as JSON')
    .addHelpText('after', `
Each check is ok, warn, fail or skip (when it depends on a check that failed). Exit code: 0 when no
check failed (warnings allowed), 1 when one did, including a TWOFA_* variable that does not parse.
Doctor changes nothing: it opens the database without migrating, and an absent server is only a
warning, so it is just as useful before the first start. It never prints secrets or API keys.

Examples:
  $ twofa doctor
  $ TWOFA_SMS_DSN="webhook+https://hooks.example.com/sms?secret=whsec_..." twofa doctor --json`)
    .action(async (options: { url?: string; json?: boolean }) => {
      const results = await runDoctor(process.env, options.url);
      const ok = !results.some((r) => r.status === 'fail');
      if (options.json) writeJson({ ok, checks: results });
      else writeReport(results);
      if (!ok) throw new SilentExit(EXIT_FAILURE);
    });
}
