// twofa factors list | add | verify | challenge | answer | remove: a user's TOTP factors and their
// challenges, through /api/v1/applications/{appId}/entities/... (docs/factors.md).
import type { Command } from 'commander';
import QRCode from 'qrcode';
import type { Challenge } from '../client/index.js';
import { connect, withConnectionOptions, type ConnectionOptions } from './connection.js';
import { note, writeJson, writeLine, writeTable } from './output.js';
import { integerBetween } from './option-parsers.js';
import { EXIT_FAILURE, SilentExit } from './cli-errors.js';
import { TOTP_LIMITS } from '../domain/totp.js';

interface UserOptions extends ConnectionOptions {
  app: string;
  identity: string;
  json?: boolean;
  quiet?: boolean;
}

/** The options every factors command takes: the application and the user. */
function forUser(command: Command): Command {
  return withConnectionOptions(command
    .requiredOption('--app <appId>', 'the application (Twilio Service) the user belongs to')
    .requiredOption('--identity <identity>', 'your id of the user: 8 to 64 letters and digits, dash-separated groups')
    .option('--json', 'print the server\'s answer as JSON'));
}

function describeChallenge(c: Challenge): string {
  const left = c.status === 'pending' ? ` (${c.attemptsLeft} attempts left)` : '';
  return `challenge ${c.sid}: ${c.status}${left}`;
}

export function registerFactorsCommands(program: Command): void {
  const factors = program.command('factors')
    .description('Manage a user\'s TOTP factors (authenticator apps) and sign them in with challenges')
    .addHelpText('after', `
Examples:
  $ FACTOR=$(twofa factors add --app $APP_ID --identity user-0001 --name ann@example.com -q)
  $ twofa factors verify --app $APP_ID --identity user-0001 $FACTOR 123456
  $ twofa factors challenge --app $APP_ID --identity user-0001 $FACTOR 654321
  $ twofa factors list --app $APP_ID --identity user-0001`);

  forUser(factors.command('list')
    .description('List a user\'s factors (never their secrets)'))
    .addHelpText('after', '\nExample:\n  $ twofa factors list --app $APP_ID --identity user-0001')
    .action(async (options: UserOptions) => {
      const list = await connect(options).run((client) => client.factors.list(options.app, options.identity));
      if (options.json) return writeJson(list);
      if (list.length === 0) return note('no factors yet; add one with: twofa factors add --app APP --identity ID --name NAME');
      writeTable(['SID', 'TYPE', 'STATUS', 'NAME', 'CREATED'], list.map((f) => [f.sid, f.type, f.status, f.friendlyName, new Date(f.createdAt).toISOString()]));
    });

  forUser(factors.command('add')
    .description('Make a TOTP factor: prints the QR code to scan with an authenticator app (and its otpauth:// URI), once')
    .requiredOption('--name <name>', 'the account name the app shows, e.g. the user\'s email address')
    .option('--code-length <digits>', 'digits, 3 to 8 (default: the Service\'s Totp.CodeLength, else 6)', integerBetween(TOTP_LIMITS.code_length.min, TOTP_LIMITS.code_length.max))
    .option('--time-step <seconds>', 'seconds per code, 20 to 60 (default 30)', integerBetween(TOTP_LIMITS.time_step.min, TOTP_LIMITS.time_step.max))
    .option('--skew <steps>', 'steps accepted on each side of now, 0 to 2 (default 1)', integerBetween(TOTP_LIMITS.skew.min, TOTP_LIMITS.skew.max))
    .option('-q, --quiet', 'print only the factor\'s SID'))
    .addHelpText('after', '\nExample:\n  $ twofa factors add --app $APP_ID --identity user-0001 --name ann@example.com')
    .action(async (options: UserOptions & { name: string; codeLength?: number; timeStep?: number; skew?: number }) => {
      const config = {
        ...(options.codeLength !== undefined ? { codeLength: options.codeLength } : {}),
        ...(options.timeStep !== undefined ? { timeStep: options.timeStep } : {}), ...(options.skew !== undefined ? { skew: options.skew } : {}),
      };
      const made = await connect(options).run((client) => client.factors.create(options.app, options.identity, { type: 'totp', friendlyName: options.name, config }));
      if (options.json) return writeJson(made);
      if (options.quiet) return writeLine(made.sid);
      writeLine(await QRCode.toString(made.uri, { type: 'terminal', small: true }));
      writeLine(`factor ${made.sid} (unverified): scan the QR code, or enter the secret ${made.secret}`);
      writeLine(made.uri);
      writeLine(`then: twofa factors verify --app ${options.app} --identity ${options.identity} ${made.sid} <code>`);
    });

  forUser(factors.command('verify')
    .description('Verify a new factor with the first code its app shows')
    .argument('<factorSid>', 'YF... (twofa factors list)')
    .argument('<code>', 'the code the app shows'))
    .addHelpText('after', '\nExample:\n  $ twofa factors verify --app $APP_ID --identity user-0001 YF0123456789abcdef0123456789abcdef 123456')
    .action(async (factorSid: string, code: string, options: UserOptions) => {
      const factor = await connect(options).run((client) => client.factors.verify(options.app, options.identity, factorSid, code));
      if (options.json) return writeJson(factor);
      writeLine(`factor ${factor.sid}: ${factor.status}`);
      if (factor.status !== 'verified') throw new SilentExit(EXIT_FAILURE);
    });

  forUser(factors.command('challenge')
    .description('Challenge a verified factor; with a code it is answered at once')
    .argument('<factorSid>', 'YF... (twofa factors list)')
    .argument('[code]', 'the code the app shows'))
    .addHelpText('after', '\nExample:\n  $ twofa factors challenge --app $APP_ID --identity user-0001 YF0123456789abcdef0123456789abcdef 654321')
    .action(async (factorSid: string, code: string | undefined, options: UserOptions) => {
      const challenge = await connect(options).run((client) => client.factors.challenge(options.app, options.identity, { factorSid, ...(code !== undefined ? { code } : {}) }));
      if (options.json) return writeJson(challenge);
      writeLine(describeChallenge(challenge));
      if (code !== undefined && challenge.status !== 'approved') throw new SilentExit(EXIT_FAILURE);
    });

  forUser(factors.command('answer')
    .description('Answer a pending challenge with a code')
    .argument('<challengeSid>', 'YC... (twofa factors challenge)')
    .argument('<code>', 'the code the app shows'))
    .addHelpText('after', '\nExample:\n  $ twofa factors answer --app $APP_ID --identity user-0001 YC0123456789abcdef0123456789abcdef 654321')
    .action(async (challengeSid: string, code: string, options: UserOptions) => {
      const challenge = await connect(options).run((client) => client.factors.answerChallenge(options.app, options.identity, challengeSid, code));
      if (options.json) return writeJson(challenge);
      writeLine(describeChallenge(challenge));
      if (challenge.status !== 'approved') throw new SilentExit(EXIT_FAILURE);
    });

  forUser(factors.command('remove')
    .description('Delete a factor with its challenges')
    .argument('<factorSid>', 'YF... (twofa factors list)'))
    .addHelpText('after', '\nExample:\n  $ twofa factors remove --app $APP_ID --identity user-0001 YF0123456789abcdef0123456789abcdef')
    .action(async (factorSid: string, options: UserOptions) => {
      await connect(options).run((client) => client.factors.delete(options.app, options.identity, factorSid));
      if (options.json) return writeJson({ removed: factorSid });
      writeLine(`removed factor ${factorSid}`);
    });
}
