// twofa prices show | reload | check, twofa budget show | set | remove, twofa spend: the operator's
// price list, the account's and applications' budgets, and what the messages cost (docs/routing.md).
import fs from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import { phoneCountry } from '../domain/destinations.js';
import { parsePriceList, PriceListError } from '../domain/price-list.js';
import type { Budget, BudgetRequest, PriceList } from '../client/index.js';
import { OperationFailedError, UsageError } from './cli-errors.js';
import { connect, withConnectionOptions, type ConnectionOptions } from './connection.js';
import { note, writeFields, writeJson, writeLine, writeTable } from './output.js';

interface JsonOption {
  json?: boolean;
}

function writePriceList(list: { lines: readonly PriceList['lines'][number][] }): void {
  if (list.lines.length === 0) return note('no price list: every message is unpriced and no budget counts (set TWOFA_PRICES_FILE)');
  writeTable(['TRANSPORT', 'COUNTRY', 'PREFIX', 'PRICE', 'CURRENCY'], list.lines.map((l) => [l.transport, l.country, l.prefix ?? '', l.amount, l.currency]));
}

function writeBudget(budget: Budget): void {
  writeFields([
    ['scope', budget.scope === 'account' ? 'account' : `application ${budget.applicationId}`], ['currency', budget.currency],
    ['daily cap', budget.daily ?? 'none'], ['spent today', budget.spent.daily], ['monthly cap', budget.monthly ?? 'none'], ['spent this month', budget.spent.monthly],
    ...Object.entries(budget.countries).map(([country, caps]): [string, string] => [`cap ${country}`, `daily ${caps.daily ?? 'none'}, monthly ${caps.monthly ?? 'none'}`]),
  ]);
}

/** Repeatable `--country GB:daily=2.00,monthly=30` into the body's `countries`. */
function collectCountryCaps(value: string, previous: BudgetRequest['countries']): NonNullable<BudgetRequest['countries']> {
  const match = /^([A-Za-z]{2}):(.+)$/.exec(value.trim());
  if (!match) throw new InvalidArgumentError('must be COUNTRY:daily=AMOUNT,monthly=AMOUNT, e.g. GB:daily=2.00');
  const caps: { daily?: string; monthly?: string } = {};
  for (const part of match[2]!.split(',')) {
    const [period, amount] = part.split('=').map((s) => s.trim());
    if ((period !== 'daily' && period !== 'monthly') || !amount) throw new InvalidArgumentError(`"${part}" must be daily=AMOUNT or monthly=AMOUNT`);
    caps[period] = amount;
  }
  return { ...previous, [match[1]!.toUpperCase()]: caps };
}

export function registerBudgetCommands(program: Command): void {
  const prices = program.command('prices')
    .description('The price list (TWOFA_PRICES_FILE): what one message (one SMS part) costs through a transport to a country or prefix')
    .addHelpText('after', `
Examples:
  $ twofa prices check /etc/twofa/prices.csv
  $ twofa prices reload
  $ twofa prices show`);

  withConnectionOptions(prices.command('show')
    .description('Show the price list in force on the server that answers')
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExample:\n  $ twofa prices show --json')
    .action(async (options: ConnectionOptions & JsonOption) => {
      const list = await connect(options).run((client) => client.prices.get());
      if (options.json) return writeJson(list);
      writePriceList(list);
    });

  withConnectionOptions(prices.command('reload')
    .description('Make the server read TWOFA_PRICES_FILE again (as SIGHUP does); an invalid file is refused whole and the list in force kept. Each node reads its own: run it against every node, or send each SIGHUP')
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExample:\n  $ twofa prices reload --url http://10.0.0.12:8080')
    .action(async (options: ConnectionOptions & JsonOption) => {
      const list = await connect(options).run((client) => client.prices.reload());
      if (options.json) return writeJson(list);
      writeLine(`reloaded ${list.file}: ${list.lines.length} line(s) in force`);
    });

  prices.command('check')
    .description('Check a price list file without a server: every bad line is named, and the exit code is 1 when any is')
    .argument('<file>', 'the CSV file (transport,country,prefix,price,currency)')
    .option('--json', 'print the lines as JSON')
    .addHelpText('after', '\nExample:\n  $ twofa prices check prices.csv && sudo systemctl kill -s HUP twofa')
    .action((file: string, options: JsonOption) => {
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch (err) {
        throw new UsageError(`cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
      }
      try {
        const list = parsePriceList(text, file, phoneCountry);
        if (options.json) return writeJson({ file, lines: list.lines });
        writePriceList(list);
      } catch (err) {
        if (err instanceof PriceListError) throw new OperationFailedError(err.message);
        throw err;
      }
    });

  const budget = program.command('budget')
    .description('Budgets: daily and monthly caps on what the account\'s or an application\'s messages cost; a send past a cap is refused')
    .addHelpText('after', `
Examples:
  $ twofa budget set --currency EUR --daily 50 --monthly 1000
  $ twofa budget set --app 3F2A9C0E5B7D41A8B6C1D0E9F8A7B6C5 --currency EUR --daily 10 --country GB:daily=2.00
  $ twofa budget show --app 3F2A9C0E5B7D41A8B6C1D0E9F8A7B6C5
  $ twofa budget remove`);

  withConnectionOptions(budget.command('show')
    .description('Show the account\'s budget, or an application\'s with --app, with what today and this month spent')
    .option('--app <appId>', 'the application\'s budget rather than the account\'s')
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExample:\n  $ twofa budget show --app 3F2A9C0E5B7D41A8B6C1D0E9F8A7B6C5')
    .action(async (options: ConnectionOptions & JsonOption & { app?: string }) => {
      const shown = await connect(options).run((client) => (options.app === undefined ? client.budgets.get() : client.budgets.getApplication(options.app)));
      if (options.json) return writeJson(shown);
      writeBudget(shown);
    });

  withConnectionOptions(budget.command('set')
    .description('Set (replace) the account\'s budget, or an application\'s with --app: caps per UTC day and month in one currency, per country too')
    .requiredOption('--currency <code>', 'ISO 4217, the currency of the price list lines it counts, e.g. EUR')
    .option('--daily <amount>', 'cap per UTC day, e.g. 50.00')
    .option('--monthly <amount>', 'cap per UTC calendar month, e.g. 1000')
    .option('--country <caps>', 'caps of one country, besides: COUNTRY:daily=AMOUNT,monthly=AMOUNT (repeatable)', collectCountryCaps)
    .option('--app <appId>', 'the application\'s budget rather than the account\'s')
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExamples:\n  $ twofa budget set --currency EUR --daily 50 --monthly 1000\n  $ twofa budget set --app 3F2A9C0E5B7D41A8B6C1D0E9F8A7B6C5 --currency EUR --monthly 200 --country NG:daily=5')
    .action(async (options: ConnectionOptions & JsonOption & { app?: string; currency: string; daily?: string; monthly?: string; country?: BudgetRequest['countries'] }) => {
      const body: BudgetRequest = {
        currency: options.currency, ...(options.daily !== undefined && { daily: options.daily }), ...(options.monthly !== undefined && { monthly: options.monthly }),
        ...(options.country !== undefined && { countries: options.country }),
      };
      const set = await connect(options).run((client) => (options.app === undefined ? client.budgets.set(body) : client.budgets.setApplication(options.app, body)));
      if (options.json) return writeJson(set);
      writeBudget(set);
    });

  withConnectionOptions(budget.command('remove')
    .description('Remove the account\'s budget, or an application\'s with --app: its sends are no longer capped')
    .option('--app <appId>', 'the application\'s budget rather than the account\'s')
    .option('--json', 'print {"removed": "account"|appId} as JSON'))
    .addHelpText('after', '\nExample:\n  $ twofa budget remove --app 3F2A9C0E5B7D41A8B6C1D0E9F8A7B6C5')
    .action(async (options: ConnectionOptions & JsonOption & { app?: string }) => {
      await connect(options).run((client) => (options.app === undefined ? client.budgets.delete() : client.budgets.deleteApplication(options.app)));
      if (options.json) return writeJson({ removed: options.app ?? 'account' });
      writeLine(`removed the ${options.app === undefined ? 'account\'s' : `application ${options.app}'s`} budget`);
    });

  withConnectionOptions(program.command('spend')
    .description('What the account\'s messages cost, by country, transport or application and currency (default: this UTC month); unpriced messages counted apart')
    .option('--by <dimension>', 'country, transport or application', 'country')
    .option('--from <time>', 'start, inclusive: ISO 8601 or UNIX ms (default: the start of this UTC month)')
    .option('--to <time>', 'end, exclusive: ISO 8601 or UNIX ms (default: now)')
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExamples:\n  $ twofa spend\n  $ twofa spend --by transport --from 2026-11-01T00:00:00Z --to 2026-12-01T00:00:00Z')
    .action(async (options: ConnectionOptions & JsonOption & { by: 'country' | 'transport' | 'application'; from?: string; to?: string }) => {
      const spend = await connect(options).run((client) => client.stats.spend({ by: options.by, ...(options.from !== undefined && { from: options.from }), ...(options.to !== undefined && { to: options.to }) }));
      if (options.json) return writeJson(spend);
      writeTable([options.by.toUpperCase(), 'CURRENCY', 'AMOUNT', 'MESSAGES', 'PARTS', 'UNPRICED'], spend.groups.map((g) => [g.key ?? '-', g.currency ?? '-', g.amount ?? '-', String(g.messages), String(g.segments), String(g.unpriced)]));
      for (const total of spend.totals) writeLine(`total ${total.amount} ${total.currency} (${total.messages} messages)`);
      if (spend.unpriced > 0) note(`${spend.unpriced} message(s) had no known price: add their transport and country to the price list`);
    });
}
