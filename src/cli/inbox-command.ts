// twofa inbox: what the log:// transport delivered, the local stand-in for phones and mailboxes.
import type { Command } from 'commander';
import type { InboxMessage } from '../client/index.js';
import { connect, withConnectionOptions, type ConnectionOptions } from './connection.js';
import { integerBetween } from './option-parsers.js';

const FOLLOW_INTERVAL_MS = 1000;

function print(message: InboxMessage, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(message)}\n`);
    return;
  }
  const when = new Date(message.receivedAt).toISOString();
  const head = `${when}  ${message.channel.padEnd(5)}  to ${message.to}${message.from ? `  from ${message.from}` : ''}  pin ${message.pinId}`;
  const body = message.subject ? `${message.subject}\n${message.text ?? ''}` : message.text ?? '';
  process.stdout.write(`${head}\n    ${body.replace(/\n/g, '\n    ')}\n`);
}

export function registerInboxCommand(program: Command): void {
  withConnectionOptions(program.command('inbox')
    .description('Show messages the log:// transport delivered (the local stand-in for phones and mailboxes), oldest first')
    .option('--to <destination>', 'only messages to this phone number or address')
    .option('-n, --limit <n>', 'how many recent messages to show (1-1000)', integerBetween(1, 1000), 20)
    .option('-f, --follow', 'keep printing new messages as they arrive, like tail -f')
    .option('--json', 'one JSON object per line (JSON Lines), also with --follow'))
    .addHelpText('after', `
Examples:
  $ twofa inbox --to 41793026727 -n 1
  $ twofa inbox --follow
  $ twofa inbox --to 41793026727 -n 1 --json | jq -r .text`)
    .action(async (options: ConnectionOptions & { to?: string; limit: number; follow?: boolean; json?: boolean }) => {
      const connection = connect(options);
      const fetchMessages = (limit: number) => connection.run((client) => client.inbox.list({ limit, ...(options.to !== undefined ? { to: options.to } : {}) }));
      const seen = new Set<string>();
      for (const m of (await fetchMessages(options.limit)).reverse()) {
        seen.add(m.id);
        print(m, options.json === true);
      }
      if (!options.follow) {
        if (seen.size === 0 && !options.json) process.stderr.write(`no messages${options.to !== undefined ? ` to ${options.to}` : ''} (the inbox only holds what log:// delivered since the server started)\n`);
        return;
      }
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, FOLLOW_INTERVAL_MS));
        for (const m of (await fetchMessages(100)).reverse()) {
          if (seen.has(m.id)) continue;
          seen.add(m.id);
          print(m, options.json === true);
        }
      }
    });
}
