// twofa email-templates list | create | show | delete: the account's email bodies (subject, text,
// HTML) that 2FA email messages render; they stand in for a provider portal's templates.
import fs from 'node:fs';
import type { Command } from 'commander';
import type { EmailTemplate, EmailTemplateRequest } from '../client/index.js';
import { UsageError } from './cli-errors.js';
import { connect, withConnectionOptions, type ConnectionOptions } from './connection.js';
import { parseEmailTemplateId } from './option-parsers.js';
import { note, truncate, writeFields, writeJson, writeLine, writeTable } from './output.js';

interface OutputOptions {
  json?: boolean;
  quiet?: boolean;
}

function readHtml(file: string): string {
  try {
    return fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    throw new UsageError(`--html-file ${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

function writeEmailTemplate(t: EmailTemplate): void {
  writeFields([
    ['email template', t.id],
    ['name', t.name],
    ['from', t.from],
    ['subject', t.subject],
    ['text', t.text],
    ['html', t.html === null ? null : `${t.html.length} characters (--json shows it)`],
    ['created', new Date(t.createdAt).toISOString()],
    ['updated', new Date(t.updatedAt).toISOString()],
  ]);
}

export function registerEmailTemplatesCommands(program: Command): void {
  const emailTemplates = program.command('email-templates')
    .description('Manage the account\'s email templates (subject, text and HTML with {{pin}}) that 2FA email messages render')
    .addHelpText('after', `
Examples:
  $ twofa email-templates create --name login --subject "Your Acme code" --text "Your code is {{pin}}" --html-file login.html
  $ twofa email-templates list
  $ twofa email-templates show 1
  $ twofa email-templates delete 1`);

  withConnectionOptions(emailTemplates.command('list')
    .description('List the account\'s email templates')
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExample:\n  $ twofa email-templates list --json')
    .action(async (options: ConnectionOptions & OutputOptions) => {
      const list = await connect(options).run((client) => client.emailTemplates.list());
      if (options.json) return writeJson(list);
      if (list.length === 0) return note('no email templates yet; create one with: twofa email-templates create --name NAME --subject SUBJECT --text "Your code is {{pin}}"');
      writeTable(['ID', 'NAME', 'FROM', 'SUBJECT', 'BODY'], list.map((t) => [
        String(t.id), t.name, t.from ?? '', truncate(t.subject, 40), [t.text !== null ? 'text' : '', t.html !== null ? 'html' : ''].filter(Boolean).join('+'),
      ]));
    });

  withConnectionOptions(emailTemplates.command('create')
    .description('Create an email template; the subject, text or HTML must contain {{pin}}, and there must be a text or an HTML body')
    .requiredOption('--name <name>', 'name to tell templates apart')
    .requiredOption('--subject <subject>', 'subject line (may contain {{pin}} and {{name}} placeholders)')
    .option('--text <text>', 'plain-text body')
    .option('--html-file <path>', 'file holding the HTML body (- reads standard input); placeholder values are HTML-escaped')
    .option('--from <sender>', 'default sender, e.g. "Acme <no-reply@acme.example>"')
    .option('--json', 'print the server\'s answer as JSON')
    .option('-q, --quiet', 'print only the id'))
    .addHelpText('after', `
Examples:
  $ twofa email-templates create --name login --subject "Your Acme code" --text "Your code is {{pin}}"
  $ TEMPLATE_ID=$(twofa email-templates create --name login --subject "{{pin}} is your code" --html-file login.html --from "Acme <no-reply@acme.example>" -q)`)
    .action(async (options: ConnectionOptions & OutputOptions & { name: string; subject: string; text?: string; htmlFile?: string; from?: string }) => {
      if (options.text === undefined && options.htmlFile === undefined) throw new UsageError('give a body: --text, --html-file, or both');
      const body: EmailTemplateRequest = {
        name: options.name,
        subject: options.subject,
        ...(options.text !== undefined ? { text: options.text } : {}),
        ...(options.htmlFile !== undefined ? { html: readHtml(options.htmlFile) } : {}),
        ...(options.from !== undefined ? { from: options.from } : {}),
      };
      const created = await connect(options).run((client) => client.emailTemplates.create(body));
      if (options.json) return writeJson(created);
      if (options.quiet) return writeLine(String(created.id));
      writeLine(`created email template ${created.id}`);
      writeEmailTemplate(created);
    });

  withConnectionOptions(emailTemplates.command('show')
    .description('Show one email template')
    .argument('<id>', 'the email template id', parseEmailTemplateId)
    .option('--json', 'print the server\'s answer as JSON (with the HTML body)'))
    .addHelpText('after', '\nExample:\n  $ twofa email-templates show 1 --json | jq -r .html')
    .action(async (id: number, options: ConnectionOptions & OutputOptions) => {
      const template = await connect(options).run((client) => client.emailTemplates.get(id));
      if (options.json) return writeJson(template);
      writeEmailTemplate(template);
    });

  withConnectionOptions(emailTemplates.command('delete')
    .description('Delete an email template (refused while a 2FA email message uses it)')
    .argument('<id>', 'the email template id', parseEmailTemplateId)
    .option('--json', 'print {"deleted": id} as JSON'))
    .addHelpText('after', '\nExample:\n  $ twofa email-templates delete 1')
    .action(async (id: number, options: ConnectionOptions & OutputOptions) => {
      await connect(options).run((client) => client.emailTemplates.delete(id));
      if (options.json) return writeJson({ deleted: id });
      writeLine(`deleted email template ${id}`);
    });
}
