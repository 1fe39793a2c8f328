// twofa templates texts list | add | update | remove: the locale texts of an SMS/voice message
// template (Vonage: its fragments), which a send's locale picks at delivery (docs/api.md,
// "Templates with languages").
import { Option, type Command } from 'commander';
import type { MessageText } from '../client/index.js';
import { connect, withConnectionOptions, type ConnectionOptions } from './connection.js';
import { note, truncate, writeFields, writeJson, writeLine, writeTable } from './output.js';

interface TextOptions extends ConnectionOptions {
  locale?: string;
  channel?: 'sms' | 'voice';
  text?: string;
  json?: boolean;
}

function writeText(text: MessageText): void {
  writeFields([['text id', text.id], ['locale', text.locale], ['channel', text.channel ?? 'every phone channel'], ['text', text.text], ['updated', text.updatedAt]]);
}

export function registerTemplateTextsCommands(templates: Command): void {
  const texts = templates.command('texts')
    .description('Manage the texts of an SMS/voice template per locale (and channel): a send\'s locale picks one, else the number\'s country\'s language, else the template\'s text')
    .addHelpText('after', `
Examples:
  $ twofa templates texts add $APP_ID $MSG_ID --locale es --text "Tu código de {{friendly_name}} es {{pin}}"
  $ twofa templates texts list $APP_ID $MSG_ID`);

  withConnectionOptions(texts.command('list')
    .description('List the locale texts of a template')
    .argument('<appId>', 'the applicationId')
    .argument('<msgId>', 'the messageId')
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExample:\n  $ twofa templates texts list $APP_ID $MSG_ID')
    .action(async (appId: string, msgId: string, options: TextOptions) => {
      const list = await connect(options).run((client) => client.messages.listTexts(appId, msgId));
      if (options.json) return writeJson(list);
      if (list.length === 0) return note(`message ${msgId} has no locale texts; add one with: twofa templates texts add ${appId} ${msgId} --locale es --text "Tu código es {{pin}}"`);
      writeTable(['TEXT ID', 'LOCALE', 'CHANNEL', 'TEXT'], list.map((t) => [t.id, t.locale, t.channel ?? 'all', truncate(t.text, 50)]));
    });

  withConnectionOptions(texts.command('add')
    .description('Add the text of a locale (and channel); the text must contain {{pin}}')
    .argument('<appId>', 'the applicationId')
    .argument('<msgId>', 'the messageId')
    .requiredOption('--locale <tag>', 'a BCP-47 tag: es, es-mx, pt-BR')
    .requiredOption('--text <text>', 'the text, containing {{pin}}')
    .addOption(new Option('--channel <channel>', 'only for this channel (default: every phone channel)').choices(['sms', 'voice']))
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExample:\n  $ twofa templates texts add $APP_ID $MSG_ID --locale de --channel voice --text "Ihr Code lautet {{pin}}"')
    .action(async (appId: string, msgId: string, options: TextOptions) => {
      const added = await connect(options).run((client) => client.messages.addText(appId, msgId, {
        locale: options.locale!, text: options.text!, ...(options.channel !== undefined ? { channel: options.channel } : {}),
      }));
      if (options.json) return writeJson(added);
      writeLine(`added text ${added.id}`);
      writeText(added);
    });

  withConnectionOptions(texts.command('update')
    .description('Replace the text of a locale text (its locale and channel stay)')
    .argument('<appId>', 'the applicationId')
    .argument('<msgId>', 'the messageId')
    .argument('<textId>', 'the text id (twofa templates texts list)')
    .requiredOption('--text <text>', 'the new text, containing {{pin}}')
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExample:\n  $ twofa templates texts update $APP_ID $MSG_ID $TEXT_ID --text "Código: {{pin}}"')
    .action(async (appId: string, msgId: string, textId: string, options: TextOptions) => {
      const updated = await connect(options).run((client) => client.messages.updateText(appId, msgId, textId, { text: options.text! }));
      if (options.json) return writeJson(updated);
      writeLine(`updated text ${updated.id}`);
      writeText(updated);
    });

  withConnectionOptions(texts.command('remove')
    .description('Delete a locale text: its locale falls back to the number\'s country\'s language, then the template\'s text')
    .argument('<appId>', 'the applicationId')
    .argument('<msgId>', 'the messageId')
    .argument('<textId>', 'the text id')
    .option('--json', 'print {"removed": textId} as JSON'))
    .addHelpText('after', '\nExample:\n  $ twofa templates texts remove $APP_ID $MSG_ID $TEXT_ID')
    .action(async (appId: string, msgId: string, textId: string, options: TextOptions) => {
      await connect(options).run((client) => client.messages.deleteText(appId, msgId, textId));
      if (options.json) return writeJson({ removed: textId });
      writeLine(`removed text ${textId}`);
    });
}
