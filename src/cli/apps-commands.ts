// twofa apps list | create | show | update | workflow | risk: 2FA applications (PIN length of life, attempts,
// limits), their workflows (the channels a PIN goes out on in turn) and their risk score's mode and thresholds.
import type { Command } from 'commander';
import type { Application, ApplicationRequest, ApplicationRisk, ApplicationRiskRequest, Workflow } from '../client/index.js';
import { UsageError } from './cli-errors.js';
import { connect, withConnectionOptions, type ConnectionOptions } from './connection.js';
import { integerBetween, parseSendLimit, parseTimeToLive, parseVerifyLimit } from './option-parsers.js';
import { note, writeFields, writeJson, writeLine, writeTable } from './output.js';

interface ConfigurationOptions {
  pinAttempts?: number;
  pinTtl?: string;
  verifyLimit?: string;
  sendAppLimit?: string;
  sendNumberLimit?: string;
  singleUse?: boolean;
  multipleVerifications?: boolean;
}

interface OutputOptions {
  json?: boolean;
  quiet?: boolean;
}

function addConfigurationOptions(command: Command): Command {
  return command
    .option('--pin-attempts <n>', 'verification attempts a PIN allows, the right one included (1-1000; default 10)', integerBetween(1, 1000))
    .option('--pin-ttl <duration>', 'how long a PIN stays valid, e.g. 5m, 15m, 1h (default 15m)', parseTimeToLive)
    .option('--verify-limit <limit>', 'verifications allowed per destination, e.g. 1/3s (default 1/3s)', parseVerifyLimit)
    .option('--send-app-limit <limit>', 'PINs the application may send, e.g. 10000/1d (default 10000/1d)', parseSendLimit)
    .option('--send-number-limit <limit>', 'PINs per destination, e.g. 3/1d (default 3/1d)', parseSendLimit)
    .option('--single-use', 'a verified PIN cannot be verified again (allowMultiplePinVerifications false)');
}

function configurationFrom(options: ConfigurationOptions): NonNullable<ApplicationRequest['configuration']> {
  return {
    ...(options.pinAttempts !== undefined ? { pinAttempts: options.pinAttempts } : {}),
    ...(options.pinTtl !== undefined ? { pinTimeToLive: options.pinTtl } : {}),
    ...(options.verifyLimit !== undefined ? { verifyPinLimit: options.verifyLimit } : {}),
    ...(options.sendAppLimit !== undefined ? { sendPinPerApplicationLimit: options.sendAppLimit } : {}),
    ...(options.sendNumberLimit !== undefined ? { sendPinPerPhoneNumberLimit: options.sendNumberLimit } : {}),
    ...(options.singleUse ? { allowMultiplePinVerifications: false } : {}),
    ...(options.multipleVerifications ? { allowMultiplePinVerifications: true } : {}),
  };
}

export function writeApplication(app: Application): void {
  const c = app.configuration;
  writeFields([
    ['application', app.applicationId],
    ['name', app.name],
    ['enabled', app.enabled],
    ['pin attempts', c.pinAttempts],
    ['pin time to live', c.pinTimeToLive],
    ['multiple verifications', c.allowMultiplePinVerifications],
    ['verify limit', c.verifyPinLimit],
    ['send limit (application)', c.sendPinPerApplicationLimit],
    ['send limit (destination)', c.sendPinPerPhoneNumberLimit],
  ]);
}

export function registerAppsCommands(program: Command): void {
  const apps = program.command('apps')
    .description('Manage 2FA applications: how long PINs live, how many attempts they allow, send and verify limits')
    .addHelpText('after', `
Examples:
  $ twofa apps create --name "Acme login" --pin-ttl 5m --pin-attempts 3 --single-use
  $ twofa apps list
  $ twofa apps show 3F1A0C...
  $ twofa apps update 3F1A0C... --disable`);

  withConnectionOptions(apps.command('list')
    .description('List the applications of the key\'s account')
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExample:\n  $ twofa apps list --json')
    .action(async (options: ConnectionOptions & OutputOptions) => {
      const list = await connect(options).run((client) => client.applications.list());
      if (options.json) return writeJson(list);
      if (list.length === 0) return note('no applications yet; create one with: twofa apps create --name NAME');
      writeTable(['APPLICATION ID', 'NAME', 'ENABLED', 'PIN TTL', 'ATTEMPTS', 'MULTI-VERIFY', 'VERIFY LIMIT', 'SEND LIMITS (APP, DEST)'],
        list.map((a) => [a.applicationId, a.name, a.enabled ? 'yes' : 'no', a.configuration.pinTimeToLive, String(a.configuration.pinAttempts),
          a.configuration.allowMultiplePinVerifications ? 'yes' : 'no', a.configuration.verifyPinLimit,
          `${a.configuration.sendPinPerApplicationLimit}, ${a.configuration.sendPinPerPhoneNumberLimit}`]));
    });

  withConnectionOptions(addConfigurationOptions(apps.command('create')
    .description('Create an application; every setting left out takes its default')
    .requiredOption('--name <name>', 'name of the application'))
    .option('--disabled', 'create it disabled (sends are refused until it is enabled)')
    .option('--json', 'print the server\'s answer as JSON')
    .option('-q, --quiet', 'print only the applicationId (for APP_ID=$(twofa apps create ... -q))'))
    .addHelpText('after', `
Examples:
  $ twofa apps create --name "Acme login"
  $ APP_ID=$(twofa apps create --name "Acme login" --pin-ttl 5m --pin-attempts 3 -q)`)
    .action(async (options: ConnectionOptions & ConfigurationOptions & OutputOptions & { name: string; disabled?: boolean }) => {
      const configuration = configurationFrom(options);
      const body: ApplicationRequest = {
        name: options.name,
        ...(options.disabled ? { enabled: false } : {}),
        ...(Object.keys(configuration).length > 0 ? { configuration } : {}),
      };
      const created = await connect(options).run((client) => client.applications.create(body));
      if (options.json) return writeJson(created);
      if (options.quiet) return writeLine(created.applicationId);
      writeLine(`created application ${created.applicationId}`);
      writeApplication(created);
    });

  withConnectionOptions(apps.command('show')
    .description('Show one application and its configuration')
    .argument('<appId>', 'the applicationId')
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExample:\n  $ twofa apps show 3F1A0C... --json')
    .action(async (appId: string, options: ConnectionOptions & OutputOptions) => {
      const app = await connect(options).run((client) => client.applications.get(appId));
      if (options.json) return writeJson(app);
      writeApplication(app);
    });

  withConnectionOptions(addConfigurationOptions(apps.command('update')
    .description('Change an application; settings left out keep their value')
    .argument('<appId>', 'the applicationId')
    .option('--name <name>', 'new name'))
    .option('--multiple-verifications', 'a verified PIN may be verified again while it is valid (the opposite of --single-use)')
    .option('--enable', 'allow sends again')
    .option('--disable', 'refuse new sends (PINs already sent can still be verified)')
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExamples:\n  $ twofa apps update 3F1A0C... --pin-ttl 10m\n  $ twofa apps update 3F1A0C... --disable')
    .action(async (appId: string, options: ConnectionOptions & ConfigurationOptions & OutputOptions & { name?: string; enable?: boolean; disable?: boolean }) => {
      if (options.enable && options.disable) throw new UsageError('--enable and --disable exclude each other');
      if (options.singleUse && options.multipleVerifications) throw new UsageError('--single-use and --multiple-verifications exclude each other');
      const configuration = configurationFrom(options);
      const updated = await connect(options).run(async (client) => {
        // The update requires a name (PUT merges everything else); keep the current one unless given.
        const name = options.name ?? (await client.applications.get(appId)).name;
        return client.applications.update(appId, {
          name,
          ...(options.enable ? { enabled: true } : {}),
          ...(options.disable ? { enabled: false } : {}),
          ...(Object.keys(configuration).length > 0 ? { configuration } : {}),
        });
      });
      if (options.json) return writeJson(updated);
      writeLine(`updated application ${updated.applicationId}`);
      writeApplication(updated);
    });

  registerWorkflowCommands(apps);
  registerRiskCommands(apps);
}

/** `sms`, or `sms:30s` for a step after the first: the channel and how long after the previous step. */
export function parseWorkflowStep(text: string, index: number): Workflow['steps'][number] {
  const [channel, after, extra] = text.split(':');
  if (!channel || extra !== undefined || after === '') throw new UsageError(`step ${index + 1} (${text}): write CHANNEL for the first step, CHANNEL:DELAY (e.g. sms:30s) for the others`);
  return after === undefined ? { channel } : { channel, after };
}

function writeWorkflow(workflow: Workflow): void {
  if (workflow.steps.length === 0) return note('no workflow: PINs go out on the channel the request names');
  writeTable(['STEP', 'CHANNEL', 'AFTER'], workflow.steps.map((s, i) => [String(i + 1), s.channel, s.after ?? 'at once']));
}

function registerWorkflowCommands(apps: Command): void {
  const workflow = apps.command('workflow')
    .description('An application\'s workflow: the channels one PIN goes out on in turn until it is verified (docs/workflows.md)')
    .addHelpText('after', `
Examples:
  $ twofa apps workflow set 3F1A0C... whatsapp sms:30s voice:60s
  $ twofa apps workflow get 3F1A0C...
  $ twofa apps workflow delete 3F1A0C...`);

  withConnectionOptions(workflow.command('get')
    .description('Show the application\'s workflow')
    .argument('<appId>', 'the applicationId')
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExample:\n  $ twofa apps workflow get 3F1A0C... --json')
    .action(async (appId: string, options: ConnectionOptions & OutputOptions) => {
      const current = await connect(options).run((client) => client.workflows.get(appId));
      if (options.json) return writeJson(current);
      writeWorkflow(current);
    });

  withConnectionOptions(workflow.command('set')
    .description('Replace the application\'s workflow: the first step goes at once, each next one DELAY after the one before (1s to 1h), unless the PIN was verified meanwhile; a failed delivery goes to the next step at once')
    .argument('<appId>', 'the applicationId')
    .argument('<steps...>', 'CHANNEL for the first step, CHANNEL:DELAY for each next one (channels: sms, voice, email, whatsapp, telegram)')
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExamples:\n  $ twofa apps workflow set 3F1A0C... whatsapp sms:30s voice:60s\n  $ twofa apps workflow set 3F1A0C... email')
    .action(async (appId: string, steps: string[], options: ConnectionOptions & OutputOptions) => {
      const body: Workflow = { steps: steps.map(parseWorkflowStep) };
      const stored = await connect(options).run((client) => client.workflows.set(appId, body));
      if (options.json) return writeJson(stored);
      writeLine(`workflow of application ${appId} set`);
      writeWorkflow(stored);
    });

  withConnectionOptions(workflow.command('delete')
    .description('Remove the application\'s workflow (PINs already sent keep their steps)')
    .argument('<appId>', 'the applicationId')
    .option('--json', 'print {"steps": []} as JSON, the workflow now'))
    .addHelpText('after', '\nExample:\n  $ twofa apps workflow delete 3F1A0C...')
    .action(async (appId: string, options: ConnectionOptions & OutputOptions) => {
      await connect(options).run((client) => client.workflows.delete(appId));
      if (options.json) return writeJson({ steps: [] });
      writeLine(`workflow of application ${appId} removed`);
    });
}

function writeRisk(risk: ApplicationRisk): void {
  const countries = Object.entries(risk.countryBlockScores).map(([c, v]) => `${c}=${v}`).join(' ');
  writeFields([['application', risk.applicationId], ['mode', risk.mode], ['block score', String(risk.blockScore)], ['per country', countries || 'none']]);
}

const RISK_MODE_CHOICES = ['enforce', 'shadow', 'off'] as const;

function parseRiskMode(raw: string): (typeof RISK_MODE_CHOICES)[number] {
  const mode = RISK_MODE_CHOICES.find((m) => m === raw);
  if (!mode) throw new UsageError(`--mode must be one of ${RISK_MODE_CHOICES.join(', ')}`);
  return mode;
}

/** `GB=50`: a country's own block score. */
function parseCountryScore(raw: string, previous: Record<string, number> = {}): Record<string, number> {
  const match = /^([A-Z]{2})=([0-9]{1,3})$/.exec(raw);
  if (!match || Number(match[2]) < 1 || Number(match[2]) > 100) throw new UsageError(`--country takes CC=SCORE (a country code and 1-100), e.g. GB=50; got ${raw}`);
  return { ...previous, [match[1]!]: Number(match[2]) };
}

function registerRiskCommands(apps: Command): void {
  const risk = apps.command('risk')
    .description('An application\'s risk score: its mode (enforce, shadow, off), its thresholds and its recorded decisions (docs/security.md, "Risk score")')
    .addHelpText('after', `
Examples:
  $ twofa apps risk get 3F1A0C...
  $ twofa apps risk set 3F1A0C... --mode shadow --block-score 60 --country NG=40
  $ twofa apps risk set 3F1A0C... --mode off        # a load or end-to-end test's application
  $ twofa apps risk decisions --app 3F1A0C... --decision block`);

  withConnectionOptions(risk.command('get')
    .description('Show the application\'s risk mode and thresholds')
    .argument('<appId>', 'the applicationId')
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExample:\n  $ twofa apps risk get 3F1A0C... --json')
    .action(async (appId: string, options: ConnectionOptions & OutputOptions) => {
      const current = await connect(options).run((client) => client.risk.get(appId));
      if (options.json) return writeJson(current);
      writeRisk(current);
    });

  withConnectionOptions(risk.command('set')
    .description('Change the application\'s risk mode or thresholds; what is left out keeps its value')
    .argument('<appId>', 'the applicationId')
    .option('--mode <mode>', 'enforce (block), shadow (record what would be blocked, send) or off (score nothing)', parseRiskMode)
    .option('--block-score <n>', 'the score (1-100) at which a send is blocked (default 70)', integerBetween(1, 100))
    .option('--country <CC=SCORE>', 'a country\'s own block score, repeatable; the given ones replace all earlier ones', parseCountryScore)
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExamples:\n  $ twofa apps risk set 3F1A0C... --mode shadow --block-score 60 --country NG=40\n  $ twofa apps risk set 3F1A0C... --mode off')
    .action(async (appId: string, options: ConnectionOptions & OutputOptions & { mode?: ApplicationRiskRequest['mode']; blockScore?: number; country?: Record<string, number> }) => {
      const body: ApplicationRiskRequest = {
        ...(options.mode !== undefined ? { mode: options.mode } : {}),
        ...(options.blockScore !== undefined ? { blockScore: options.blockScore } : {}),
        ...(options.country !== undefined ? { countryBlockScores: options.country } : {}),
      };
      if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give --mode, --block-score or --country');
      const stored = await connect(options).run((client) => client.risk.update(appId, body));
      if (options.json) return writeJson(stored);
      writeRisk(stored);
    });

  withConnectionOptions(risk.command('decisions')
    .description('Recorded risk decisions, newest first: every block and shadow block, one allowed send in 20')
    .option('--app <appId>', 'only this application\'s')
    .option('--country <CC>', 'only sends to this country')
    .option('--decision <decision>', 'allow, block or shadow_block')
    .option('--limit <n>', 'at most this many (default 100)', integerBetween(1, 1000))
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExample:\n  $ twofa apps risk decisions --app 3F1A0C... --decision block --limit 20')
    .action(async (options: ConnectionOptions & OutputOptions & { app?: string; country?: string; decision?: 'allow' | 'block' | 'shadow_block'; limit?: number }) => {
      const page = await connect(options).run((client) => client.risk.decisions({
        ...(options.app !== undefined ? { applicationId: options.app } : {}),
        ...(options.country !== undefined ? { country: options.country } : {}),
        ...(options.decision !== undefined ? { decision: options.decision } : {}),
        ...(options.limit !== undefined ? { limit: options.limit } : {}),
      }));
      if (options.json) return writeJson(page);
      if (page.decisions.length === 0) return note('no decisions recorded');
      writeTable(['WHEN', 'APPLICATION', 'COUNTRY', 'SCORE', 'DECISION', 'SIGNALS'], page.decisions.map((d) => [
        new Date(d.createdAt).toISOString(), d.applicationId, d.country ?? '-', `${d.score}/${d.threshold}`, d.decision,
        d.signals.filter((s) => s.points > 0).map((s) => `${s.name}+${s.points}`).join(' ') || '-',
      ]));
    });
}
