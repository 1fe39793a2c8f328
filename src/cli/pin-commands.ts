// twofa send | resend | verify: a PIN's life from the command line. In human mode `send` and `resend`
// print only the pinId on stdout (PIN_ID=$(twofa send ...)); what happened goes to stderr.
import { Option, type Command } from 'commander';
import type { SendEmailPinResponse, SendPinResponse, VerifyPinResponse } from '../client/index.js';
import { EXIT_FAILURE, SilentExit, UsageError } from './cli-errors.js';
import { connect, withConnectionOptions, type ConnectionOptions } from './connection.js';
import { CHANNELS, collectPlaceholder, type CliChannel } from './option-parsers.js';
import { note, writeJson, writeLine } from './output.js';

interface SendOptions extends ConnectionOptions {
  app: string;
  message: string;
  to: string;
  channel: CliChannel;
  from?: string;
  placeholder?: Record<string, string>;
  nc: boolean;
  trackDelivery?: boolean;
  locale?: string;
  json?: boolean;
}

interface ResendOptions extends ConnectionOptions {
  channel: CliChannel;
  placeholder?: Record<string, string>;
  json?: boolean;
}

function channelOption(description: string): Option {
  return new Option('--channel <channel>', description).choices(CHANNELS).default('sms');
}

function placeholderOption(): Option {
  return new Option('--placeholder <name=value>', 'fills {{name}} in the message; repeat for several').argParser(collectPlaceholder);
}

/** What the answer says about delivery, as one line for a person. */
function describeSend(verb: string, channel: CliChannel, answer: SendPinResponse | SendEmailPinResponse): string {
  const status = 'emailStatus' in answer && answer.emailStatus ? answer.emailStatus.name
    : 'smsStatus' in answer && answer.smsStatus ? answer.smsStatus
      : 'callStatus' in answer && answer.callStatus ? answer.callStatus : undefined;
  const nc = 'ncStatus' in answer && answer.ncStatus ? `, number lookup ${answer.ncStatus}` : '';
  const external = 'externalMessageId' in answer && answer.externalMessageId ? `, delivery ${answer.externalMessageId}` : '';
  return `${verb} by ${channel} to ${answer.to}${status ? ` (${status}${nc}${external})` : ''}`;
}

function reportSend(verb: string, channel: CliChannel, answer: SendPinResponse | SendEmailPinResponse, json: boolean | undefined): void {
  if (json) {
    writeJson(answer);
  } else {
    writeLine(answer.pinId);
    note(describeSend(verb, channel, answer));
  }
  if ('smsStatus' in answer && answer.smsStatus === 'MESSAGE_NOT_SENT') {
    note(`twofa: warning: the PIN was created but not sent: the ${channel} channel is off on the server (TWOFA_${channel.toUpperCase()}_DSN=none://)`);
  }
}

export function registerPinCommands(program: Command): void {
  withConnectionOptions(program.command('send')
    .description('Send a PIN; prints its pinId (only the pinId on stdout, so PIN_ID=$(twofa send ...) works)')
    .requiredOption('--app <appId>', 'applicationId')
    .requiredOption('--message <msgId>', 'messageId of the template (an email template for --channel email)')
    .requiredOption('--to <destination>', 'phone number in international form (41793026727) or, for email, an address')
    .addOption(channelOption('how to deliver: sms, voice, email, whatsapp or telegram'))
    .option('--from <sender>', 'overrides the template\'s sender')
    .addOption(placeholderOption())
    .option('--no-nc', 'skip the number lookup (ncNeeded=false; SMS only)')
    .option('--track-delivery', 'answer an externalMessageId identifying the delivery (SMS and voice)')
    .option('--locale <tag>', 'send the template\'s text of this locale, e.g. es-mx (twofa templates texts); phone channels only')
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', `
Examples:
  $ PIN_ID=$(twofa send --app $APP_ID --message $MSG_ID --to 41793026727)
  $ twofa send --app $APP_ID --message $MSG_ID --to 41793026727 --channel voice --placeholder firstName=Jane
  $ twofa send --app $APP_ID --message $MSG_ID --to 34612345678 --locale es
  $ twofa send --app $APP_ID --message $EMAIL_MSG_ID --to jane@example.com --channel email --json`)
    .action(async (options: SendOptions) => {
      if (!options.nc && options.channel !== 'sms') throw new UsageError('--no-nc applies to --channel sms only');
      if (options.trackDelivery && options.channel === 'email') throw new UsageError('--track-delivery applies to the phone channels only (sms, voice, whatsapp, telegram)');
      const body = {
        applicationId: options.app,
        messageId: options.message,
        to: options.to,
        ...(options.from !== undefined ? { from: options.from } : {}),
        ...(options.placeholder !== undefined ? { placeholders: options.placeholder } : {}),
      };
      if (options.locale !== undefined && options.channel === 'email') throw new UsageError('--locale applies to the phone channels only (sms, voice, whatsapp, telegram)');
      const tracking = { ...(options.trackDelivery ? { trackDelivery: true } : {}), ...(options.locale !== undefined ? { locale: options.locale } : {}) };
      const answer = await connect(options).run((client) => {
        if (options.channel === 'email') return client.pins.sendEmail(body);
        if (options.channel === 'voice') return client.pins.sendVoice({ ...body, ...tracking });
        if (options.channel === 'whatsapp') return client.pins.sendWhatsapp({ ...body, ...tracking });
        if (options.channel === 'telegram') return client.pins.sendTelegram({ ...body, ...tracking });
        return client.pins.sendSms({ ...body, ...tracking }, options.nc ? {} : { ncNeeded: false });
      });
      reportSend('sent', options.channel, answer, options.json);
    });

  withConnectionOptions(program.command('resend')
    .description('Deliver the same PIN again under the same pinId (attempts and expiry are not reset)')
    .argument('<pinId>', 'the pinId that send printed')
    .addOption(channelOption('how to deliver: sms, voice, whatsapp, telegram (any of them for a PIN sent to a phone number) or email'))
    .addOption(placeholderOption())
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', `
Examples:
  $ twofa resend $PIN_ID
  $ twofa resend $PIN_ID --channel voice`)
    .action(async (pinId: string, options: ResendOptions) => {
      const body = options.placeholder !== undefined ? { placeholders: options.placeholder } : undefined;
      const answer = await connect(options).run((client) => {
        if (options.channel === 'email') return client.pins.resendEmail(pinId, body);
        if (options.channel === 'voice') return client.pins.resendVoice(pinId, body);
        if (options.channel === 'whatsapp') return client.pins.resendWhatsapp(pinId, body);
        if (options.channel === 'telegram') return client.pins.resendTelegram(pinId, body);
        return client.pins.resendSms(pinId, body);
      });
      reportSend('resent', options.channel, answer, options.json);
    });

  withConnectionOptions(program.command('verify')
    .description('Check a PIN: exit 0 and "verified" when it is right; exit 1 with the reason (WRONG_PIN, TTL_EXPIRED, NO_MORE_PIN_ATTEMPTS, ALREADY_VERIFIED) otherwise')
    .argument('<pinId>', 'the pinId that send printed')
    .argument('<pin>', 'the PIN as the user typed it')
    .option('--json', 'print the server\'s answer as JSON (the exit code still says whether it verified)'))
    .addHelpText('after', `
Examples:
  $ twofa verify $PIN_ID 4821 && echo "welcome in"
  $ twofa verify $PIN_ID 4821 --json`)
    .action(async (pinId: string, pin: string, options: ConnectionOptions & { json?: boolean }) => {
      const answer: VerifyPinResponse = await connect(options).run((client) => client.pins.verify(pinId, pin));
      if (options.json) writeJson(answer);
      else if (answer.verified) writeLine('verified');
      else writeLine(`not verified: ${answer.pinError ?? 'UNKNOWN'}, ${answer.attemptsRemaining} attempts remaining`);
      if (!answer.verified) throw new SilentExit(EXIT_FAILURE);
    });
}
