// The `twofa` command tree, built without running it (twofa.ts runs it; tests inspect it), and the
// mapping from what a command throws to `twofa: <message>` and the exit code.
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.js';
import { packageVersion } from '../version.js';
import { registerAppsCommands } from './apps-commands.js';
import { registerAuditCommand } from './audit-command.js';
import { registerBudgetCommands } from './budget-commands.js';
import { EXIT_FAILURE, EXIT_USAGE, OperationFailedError, ServerUnreachableError, SilentExit, UsageError } from './cli-errors.js';
import { registerDoctorCommand } from './doctor-command.js';
import { registerEmailTemplatesCommands } from './email-templates-commands.js';
import { registerFactorsCommands } from './factors-commands.js';
import { registerInboxCommand } from './inbox-command.js';
import { registerKeysCommands } from './keys-commands.js';
import { registerMigrateCommand } from './migrate-command.js';
import { registerPinCommands } from './pin-commands.js';
import { registerRoutesCommands } from './routes-commands.js';
import { registerServeCommand } from './serve-command.js';
import { registerTemplatesCommands } from './templates-commands.js';
import { registerTestNumbersCommands } from './test-numbers-commands.js';
import { registerSafeListCommands } from './safe-list-commands.js';
import { registerVonageCommands } from './vonage-commands.js';

export function buildProgram(): Command {
  // Settings made before the commands are added are inherited by every subcommand.
  const program = new Command('twofa')
    .description('Self-hosted two-factor one-time-PIN service speaking the Infobip 2FA API v2')
    .version(packageVersion(), '-V, --version')
    .exitOverride()
    .showHelpAfterError('(add --help for usage and examples)')
    .configureOutput({ outputError: (text, write) => write(`twofa: ${text.replace(/^error: /, '')}`) })
    .addHelpText('after', `
Commands that talk to the server take --url (default http://$TWOFA_HOST:$TWOFA_PORT) and --key
(default $TWOFA_API_KEY). Every command but serve takes --json for machine-readable output on stdout.
Exit codes: 0 ok, 1 the operation failed, 2 bad usage or configuration, 3 server unreachable.

Example: a verified PIN (server started with TWOFA_BOOTSTRAP_API_KEY=$TWOFA_API_KEY):
  $ APP_ID=$(twofa apps create --name "Acme login" -q)
  $ MSG_ID=$(twofa templates create $APP_ID --text "Your Acme code is {{pin}}" -q)
  $ PIN_ID=$(twofa send --app $APP_ID --message $MSG_ID --to 41793026727)
  $ twofa inbox --to 41793026727 -n 1
  $ twofa verify $PIN_ID <the PIN from the inbox>`);

  registerServeCommand(program);
  registerMigrateCommand(program);
  registerKeysCommands(program);
  registerAppsCommands(program);
  registerTemplatesCommands(program);
  registerEmailTemplatesCommands(program);
  registerPinCommands(program);
  registerInboxCommand(program);
  registerTestNumbersCommands(program);
  registerFactorsCommands(program);
  registerSafeListCommands(program);
  registerVonageCommands(program);
  registerRoutesCommands(program);
  registerDoctorCommand(program);
  registerAuditCommand(program);
  registerBudgetCommands(program);
  return program;
}

/** The exit code for what a command threw, and the message to print (none when already printed). */
export function exitCodeFor(err: unknown): { code: number; message?: string } {
  if (err instanceof CommanderError) return { code: err.exitCode === 0 ? 0 : EXIT_USAGE }; // commander printed it
  if (err instanceof SilentExit) return { code: err.exitCode };
  if (err instanceof UsageError || err instanceof OperationFailedError || err instanceof ServerUnreachableError) return { code: err.exitCode, message: err.message };
  // DsnError is recognised by name: importing delivery/dsn.js here would load the transports (and
  // pino) for every command, and only serve and doctor read DSNs.
  if (err instanceof ConfigError || (err instanceof Error && err.name === 'DsnError')) return { code: EXIT_USAGE, message: `configuration error: ${(err as Error).message}` };
  return { code: EXIT_FAILURE, message: err instanceof Error ? err.message : String(err) };
}
