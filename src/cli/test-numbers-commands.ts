// twofa test-numbers list | add | remove: the account's test numbers, destinations whose sends deliver
// nothing and whose fixed code verifies (app-store review, end-to-end tests; docs/test-numbers.md).
import type { Command } from 'commander';
import { connect, withConnectionOptions, type ConnectionOptions } from './connection.js';
import { note, writeJson, writeLine, writeTable } from './output.js';

interface OutputOptions {
  json?: boolean;
  quiet?: boolean;
}

export function registerTestNumbersCommands(program: Command): void {
  const testNumbers = program.command('test-numbers')
    .description('Manage the account\'s test numbers: sends to them deliver nothing and their fixed code verifies (app-store review, end-to-end tests)')
    .addHelpText('after', `
Examples:
  $ twofa test-numbers add 41790000001 123456
  $ twofa test-numbers add review@example.com 246810
  $ twofa test-numbers list
  $ twofa test-numbers remove 3F2A9C0E5B7D41A8B6C1D0E9F8A7B6C5`);

  withConnectionOptions(testNumbers.command('list')
    .description('List the account\'s test numbers (their codes are never shown)')
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExample:\n  $ twofa test-numbers list --json')
    .action(async (options: ConnectionOptions & OutputOptions) => {
      const list = await connect(options).run((client) => client.testNumbers.list());
      if (options.json) return writeJson(list);
      if (list.length === 0) return note('no test numbers yet; add one with: twofa test-numbers add DESTINATION CODE');
      writeTable(['ID', 'DESTINATION', 'CREATED'], list.map((t) => [t.id, t.destination, new Date(t.createdAt).toISOString()]));
    });

  withConnectionOptions(testNumbers.command('add')
    .description('Add a test number: a phone number (international digits) or an email address, and its fixed code (4 to 16 letters or digits)')
    .argument('<destination>', 'phone number, e.g. 41790000001, or email address')
    .argument('<code>', 'the fixed code that verifies its PINs')
    .option('--json', 'print the server\'s answer as JSON')
    .option('-q, --quiet', 'print only the id'))
    .addHelpText('after', '\nExamples:\n  $ twofa test-numbers add 41790000001 123456\n  $ TEST_ID=$(twofa test-numbers add review@example.com 246810 -q)')
    .action(async (destination: string, code: string, options: ConnectionOptions & OutputOptions) => {
      const added = await connect(options).run((client) => client.testNumbers.create({ destination, code }));
      if (options.json) return writeJson(added);
      if (options.quiet) return writeLine(added.id);
      writeLine(`added test number ${added.id} for ${added.destination}: its sends deliver nothing, and its code verifies`);
    });

  withConnectionOptions(testNumbers.command('remove')
    .description('Remove a test number: later sends to it are delivered like any other')
    .argument('<id>', 'the test number id (twofa test-numbers list)')
    .option('--json', 'print {"removed": id} as JSON'))
    .addHelpText('after', '\nExample:\n  $ twofa test-numbers remove 3F2A9C0E5B7D41A8B6C1D0E9F8A7B6C5')
    .action(async (id: string, options: ConnectionOptions & OutputOptions) => {
      await connect(options).run((client) => client.testNumbers.delete(id));
      if (options.json) return writeJson({ removed: id });
      writeLine(`removed test number ${id}`);
    });
}
