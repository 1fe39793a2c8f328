// twofa templates list | show | create | update | create-email | update-email: an application's
// message templates (Infobip's "messages"): the text with {{pin}}, the PIN's alphabet and length.
import { Option, type Command } from 'commander';
import type { EmailMessageRequest, Message, SmsVoiceMessageRequest } from '../client/index.js';
import { PIN_TYPES } from '../domain/pin-generation.js';
import { UsageError } from './cli-errors.js';
import { connect, withConnectionOptions, type ConnectionOptions } from './connection.js';
import { parseEmailTemplateId, parseLanguage, parsePinLength, parsePinType, parseSpeechRate } from './option-parsers.js';
import { note, truncate, writeFields, writeJson, writeLine, writeTable } from './output.js';
import { registerTemplateTextsCommands } from './template-texts-commands.js';

interface SmsVoiceOptions {
  text?: string;
  pinType?: string;
  pinLength?: number;
  sender?: string;
  language?: string;
  voiceName?: string;
  speechRate?: number;
  repeatDtmf?: string;
}

interface EmailOptions {
  emailTemplate?: number;
  from?: string;
  pinType?: string;
  pinLength?: number;
}

interface OutputOptions {
  json?: boolean;
  quiet?: boolean;
}

function pinTypeOption(defaultText?: string): Option {
  return new Option('--pin-type <type>', `alphabet of the PIN: ${PIN_TYPES.join(', ')}${defaultText ? ` (default ${defaultText})` : ''}`).argParser(parsePinType);
}

function addSmsVoiceOptions(command: Command, creating: boolean): Command {
  return command
    .option('--sender <id>', 'sender shown to the recipient: up to 11 characters, or a number')
    .option('--language <code>', 'language of the text (for voice), e.g. en, de, pt_pt', parseLanguage)
    .option('--voice-name <name>', 'voice to speak the text with (voice channel)')
    .option('--speech-rate <rate>', 'speed of the voice, 0.5 to 2', parseSpeechRate)
    .option('--repeat-dtmf <keys>', 'keys that replay a voice message, e.g. "1#"')
    .addOption(pinTypeOption(creating ? 'NUMERIC' : undefined))
    .option('--pin-length <n>', `PIN length, 4 to 16${creating ? ' (default 4)' : ''}`, parsePinLength);
}

function smsVoiceBody(options: SmsVoiceOptions): Partial<SmsVoiceMessageRequest> {
  return {
    ...(options.text !== undefined ? { messageText: options.text } : {}),
    ...(options.pinType !== undefined ? { pinType: options.pinType as SmsVoiceMessageRequest['pinType'] } : {}),
    ...(options.pinLength !== undefined ? { pinLength: options.pinLength } : {}),
    ...(options.sender !== undefined ? { senderId: options.sender } : {}),
    ...(options.language !== undefined ? { language: options.language } : {}),
    ...(options.voiceName !== undefined ? { voiceName: options.voiceName } : {}),
    ...(options.speechRate !== undefined ? { speechRate: options.speechRate } : {}),
    ...(options.repeatDtmf !== undefined ? { repeatDTMF: options.repeatDtmf } : {}),
  };
}

function emailBody(options: EmailOptions): Partial<EmailMessageRequest> {
  return {
    ...(options.emailTemplate !== undefined ? { emailTemplateId: options.emailTemplate } : {}),
    ...(options.from !== undefined ? { from: options.from } : {}),
    ...(options.pinType !== undefined ? { pinType: options.pinType as EmailMessageRequest['pinType'] } : {}),
    ...(options.pinLength !== undefined ? { pinLength: options.pinLength } : {}),
  };
}

function isEmailMessage(message: Message): boolean {
  return message.emailTemplateId !== undefined;
}

export function writeMessage(message: Message): void {
  const email = isEmailMessage(message);
  writeFields([
    ['message', message.messageId],
    ['application', message.applicationId],
    ['kind', email ? 'email' : 'sms/voice'],
    ['pin', `${message.pinLength} × ${message.pinType}`],
    ['text', message.messageText],
    ['language', message.language],
    ['sender', message.senderId],
    ['voice', message.voiceName],
    ['speech rate', message.speechRate],
    ['repeat DTMF', message.repeatDTMF],
    ['email template', message.emailTemplateId],
    ['from', message.from],
    ['landing page', message.landingPageId],
  ]);
}

function messageIdOnly(options: OutputOptions, created: Message, what: string): void {
  if (options.json) return writeJson(created);
  if (options.quiet) return writeLine(created.messageId);
  writeLine(`created ${what} ${created.messageId}`);
  writeMessage(created);
}

export function registerTemplatesCommands(program: Command): void {
  const templates = program.command('templates')
    .description('Manage an application\'s message templates: the text around {{pin}} and the PIN\'s alphabet and length')
    .addHelpText('after', `
Examples:
  $ twofa templates create $APP_ID --text "Your Acme code is {{pin}}" --pin-length 6 --sender Acme
  $ twofa templates create-email $APP_ID --email-template 1 --pin-length 6
  $ twofa templates list $APP_ID
  $ twofa templates show $APP_ID $MSG_ID
  $ twofa templates update $APP_ID $MSG_ID --text "{{pin}} is your Acme code"`);

  withConnectionOptions(templates.command('list')
    .description('List the message templates (SMS/voice and email) of an application')
    .argument('<appId>', 'the applicationId')
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExample:\n  $ twofa templates list $APP_ID')
    .action(async (appId: string, options: ConnectionOptions & OutputOptions) => {
      const list = await connect(options).run((client) => client.messages.list(appId));
      if (options.json) return writeJson(list);
      if (list.length === 0) return note(`application ${appId} has no message templates; create one with: twofa templates create ${appId} --text "Your code is {{pin}}"`);
      writeTable(['MESSAGE ID', 'KIND', 'PIN', 'LANGUAGE', 'SENDER', 'TEXT'], list.map((m) => [
        m.messageId, isEmailMessage(m) ? 'email' : 'sms/voice', `${m.pinLength} × ${m.pinType}`, m.language ?? '',
        (isEmailMessage(m) ? m.from : m.senderId) ?? '',
        isEmailMessage(m) ? `email template ${m.emailTemplateId}` : truncate(m.messageText ?? '', 50),
      ]));
    });

  withConnectionOptions(templates.command('show')
    .description('Show one message template')
    .argument('<appId>', 'the applicationId')
    .argument('<msgId>', 'the messageId')
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExample:\n  $ twofa templates show $APP_ID $MSG_ID --json')
    .action(async (appId: string, msgId: string, options: ConnectionOptions & OutputOptions) => {
      const message = await connect(options).run((client) => client.messages.get(appId, msgId));
      if (options.json) return writeJson(message);
      writeMessage(message);
    });

  withConnectionOptions(addSmsVoiceOptions(templates.command('create')
    .description('Create an SMS/voice template; the text must contain {{pin}} and may use {{name}} placeholders filled at send time')
    .argument('<appId>', 'the applicationId')
    .requiredOption('--text <text>', 'message text containing {{pin}}'), true)
    .option('--json', 'print the server\'s answer as JSON')
    .option('-q, --quiet', 'print only the messageId (for MSG_ID=$(twofa templates create ... -q))'))
    .addHelpText('after', `
Examples:
  $ twofa templates create $APP_ID --text "Your Acme code is {{pin}}"
  $ MSG_ID=$(twofa templates create $APP_ID --text "Hi {{firstName}}, your code is {{pin}}" --pin-type ALPHANUMERIC --pin-length 6 --sender Acme -q)`)
    .action(async (appId: string, options: ConnectionOptions & SmsVoiceOptions & OutputOptions) => {
      const body = { pinType: 'NUMERIC', ...smsVoiceBody(options) } as SmsVoiceMessageRequest;
      const created = await connect(options).run((client) => client.messages.create(appId, body));
      messageIdOnly(options, created, 'message template');
    });

  withConnectionOptions(addSmsVoiceOptions(templates.command('update')
    .description('Change an SMS/voice template; settings left out keep their value')
    .argument('<appId>', 'the applicationId')
    .argument('<msgId>', 'the messageId')
    .option('--text <text>', 'new message text containing {{pin}}'), false)
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExample:\n  $ twofa templates update $APP_ID $MSG_ID --pin-length 8 --sender Acme')
    .action(async (appId: string, msgId: string, options: ConnectionOptions & SmsVoiceOptions & OutputOptions) => {
      const body = smsVoiceBody(options);
      if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give at least one of --text, --pin-type, --pin-length, --sender, --language, ...');
      const updated = await connect(options).run((client) => client.messages.update(appId, msgId, body));
      if (options.json) return writeJson(updated);
      writeLine(`updated message template ${updated.messageId}`);
      writeMessage(updated);
    });

  withConnectionOptions(templates.command('create-email')
    .description('Create an email template of the application, rendering one of the account\'s email templates (see twofa email-templates)')
    .argument('<appId>', 'the applicationId')
    .requiredOption('--email-template <id>', 'id of the email template (twofa email-templates list)', parseEmailTemplateId)
    .option('--from <sender>', 'sender, e.g. "Acme <no-reply@acme.example>" (default: the email template\'s)')
    .addOption(pinTypeOption('NUMERIC'))
    .option('--pin-length <n>', 'PIN length, 4 to 16 (default 4)', parsePinLength)
    .option('--json', 'print the server\'s answer as JSON')
    .option('-q, --quiet', 'print only the messageId'))
    .addHelpText('after', '\nExample:\n  $ twofa templates create-email $APP_ID --email-template 1 --from "Acme <no-reply@acme.example>" --pin-length 6')
    .action(async (appId: string, options: ConnectionOptions & EmailOptions & OutputOptions) => {
      const body = emailBody(options) as EmailMessageRequest;
      const created = await connect(options).run((client) => client.messages.createEmail(appId, body));
      messageIdOnly(options, created, 'email message template');
    });

  withConnectionOptions(templates.command('update-email')
    .description('Change an email template of the application; settings left out keep their value')
    .argument('<appId>', 'the applicationId')
    .argument('<msgId>', 'the messageId')
    .option('--email-template <id>', 'id of another email template', parseEmailTemplateId)
    .option('--from <sender>', 'new sender')
    .addOption(pinTypeOption())
    .option('--pin-length <n>', 'PIN length, 4 to 16', parsePinLength)
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExample:\n  $ twofa templates update-email $APP_ID $MSG_ID --pin-length 8')
    .action(async (appId: string, msgId: string, options: ConnectionOptions & EmailOptions & OutputOptions) => {
      const body = emailBody(options);
      if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give at least one of --email-template, --from, --pin-type, --pin-length');
      const updated = await connect(options).run((client) => client.messages.updateEmail(appId, msgId, body));
      if (options.json) return writeJson(updated);
      writeLine(`updated email message template ${updated.messageId}`);
      writeMessage(updated);
    });

  registerTemplateTextsCommands(templates);
}
