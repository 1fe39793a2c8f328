// twofa safe-list list | add | remove: the account's Safe List, numbers and prefixes that the
// destination guards let through and the risk score never blocks nor counts in its baselines
// (docs/security.md, "Safe List").
import type { Command } from 'commander';
import { connect, withConnectionOptions, type ConnectionOptions } from './connection.js';
import { note, writeJson, writeLine, writeTable } from './output.js';

interface OutputOptions {
  json?: boolean;
}

/** What an entry is called on the command line: a number (+41791234567) or a prefix with its * (+4179*). */
function entryName(entry: { phoneNumber?: string; prefix?: string }): string {
  return entry.phoneNumber ?? `${entry.prefix ?? ''}*`;
}

export function registerSafeListCommands(program: Command): void {
  const safeList = program.command('safe-list')
    .description('Manage the account\'s Safe List: numbers and prefixes never blocked by the anti-fraud guards or the risk score (docs/security.md)')
    .addHelpText('after', `
Examples:
  $ twofa safe-list add +41791234567
  $ twofa safe-list add '+4179*'          # every number that starts with +4179
  $ twofa safe-list list
  $ twofa safe-list remove '+4179*'`);

  withConnectionOptions(safeList.command('list')
    .description('List the numbers and prefixes on the account\'s Safe List')
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExample:\n  $ twofa safe-list list --json')
    .action(async (options: ConnectionOptions & OutputOptions) => {
      const { entries } = await connect(options).run((client) => client.safeList.list());
      if (options.json) return writeJson({ entries });
      if (entries.length === 0) return note('the Safe List is empty; add a number or a prefix with: twofa safe-list add +41791234567 (or \'+4179*\')');
      writeTable(['ENTRY', 'KIND', 'SID', 'ADDED'], entries.map((e) => [entryName(e), e.prefix !== undefined ? 'prefix' : 'number', e.sid, new Date(e.createdAt).toISOString()]));
    });

  withConnectionOptions(safeList.command('add')
    .description('Put a number (E.164 with +) or a prefix (its digits followed by *) on the Safe List')
    .argument('<entry>', 'a number, e.g. +41791234567, or a prefix ending with *, e.g. +4179* (quote it in a shell)')
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExamples:\n  $ twofa safe-list add +41791234567\n  $ twofa safe-list add \'+4179*\' --json')
    .action(async (entry: string, options: ConnectionOptions & OutputOptions) => {
      const added = await connect(options).run((client) => client.safeList.add(entry));
      if (options.json) return writeJson(added);
      writeLine(`${entryName(added)} is on the Safe List: never blocked by the guards or the risk score`);
    });

  withConnectionOptions(safeList.command('remove')
    .description('Take a number or a prefix off the Safe List')
    .argument('<entry>', 'the number, e.g. +41791234567, or the prefix with its *, e.g. +4179*')
    .option('--json', 'print {"removed": entry} as JSON'))
    .addHelpText('after', '\nExample:\n  $ twofa safe-list remove \'+4179*\'')
    .action(async (entry: string, options: ConnectionOptions & OutputOptions) => {
      await connect(options).run((client) => client.safeList.remove(entry));
      if (options.json) return writeJson({ removed: entry });
      writeLine(`removed ${entry} from the Safe List`);
    });
}
