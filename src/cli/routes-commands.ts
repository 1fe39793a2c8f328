// twofa routes list | explain | reload: the operator's routes table as the server holds it, the route
// one number takes (which rule and why, the transports in order with their prices, the sender, the
// regulatory fields), and reading the table again without a restart (docs/routing.md).
import type { Command } from 'commander';
import type { RouteExplanation } from '../client/index.js';
import { connect, withConnectionOptions, type ConnectionOptions } from './connection.js';
import { note, writeJson, writeLine, writeTable } from './output.js';

interface ExplainOptions extends ConnectionOptions {
  channel: string;
  app?: string;
  json?: boolean;
}

export function registerRoutesCommands(program: Command): void {
  const routes = program.command('routes')
    .description('The routes table: which named transports, sender and regulatory fields each number gets (docs/routing.md)')
    .addHelpText('after', `
Examples:
  $ twofa routes list
  $ twofa routes explain +919876543210
  $ twofa routes explain 14155552671 --channel voice --app 0E5B7D41A8B6C1D0E9F8A7B6C53F2A9C
  $ twofa routes reload`);

  withConnectionOptions(routes.command('list')
    .description('Show the routes table in force and the named transports')
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExample:\n  $ twofa routes list --json')
    .action(async (options: ConnectionOptions & { json?: boolean }) => {
      const table = await connect(options).run((client) => client.routes.list());
      if (options.json) return writeJson(table);
      writeLine(`named transports: ${table.transports.join(', ')}`);
      if (table.rules.length === 0) return note('no rules: every number goes through its channel\'s TWOFA_*_DSN');
      writeTable(['#', 'NAME', 'CHANNEL', 'MATCHES', 'TRANSPORTS', 'SENDER'], table.rules.map((r) => [
        String(r.index), r.name ?? '', r.channel, [...r.prefixes.map((p) => `+${p}`), ...r.countries].join(' ') || '(any)',
        `${r.strategy === 'cheapest' ? `cheapest>=${r.minConversion} ` : ''}${r.transports.join(' > ')}`,
        [r.sender?.id, r.fallbackSender === undefined ? undefined : `fallback ${r.fallbackSender.id}`].filter(Boolean).join(', '),
      ]));
    });

  withConnectionOptions(routes.command('explain')
    .description('Explain the route a number takes now: the rule that matched and why, the transports in order with their prices, the sender and the regulatory fields')
    .argument('<number>', 'the phone number, international (e.g. +919876543210)')
    .option('--channel <channel>', 'sms, voice, whatsapp or telegram', 'sms')
    .option('--app <applicationId>', 'an application: its own sender for the country is shown as it applies')
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExamples:\n  $ twofa routes explain +919876543210\n  $ twofa routes explain 447700900123 --channel voice --json')
    .action(async (number: string, options: ExplainOptions) => {
      const plan = await connect(options).run((client) => client.routes.explain({ channel: options.channel, to: number, ...(options.app !== undefined && { applicationId: options.app }) }));
      if (options.json) return writeJson(plan);
      for (const line of describePlan(plan)) writeLine(line);
    });

  withConnectionOptions(routes.command('reload')
    .description('Read the configured routes table again on the server (as SIGHUP does); an invalid table is refused whole and the current one stays')
    .option('--json', 'print the server\'s answer as JSON'))
    .addHelpText('after', '\nExample:\n  $ twofa routes reload --url http://10.0.0.5:8080')
    .action(async (options: ConnectionOptions & { json?: boolean }) => {
      const table = await connect(options).run((client) => client.routes.reload());
      if (options.json) return writeJson(table);
      writeLine(`routes reloaded: ${table.rules.length} rule${table.rules.length === 1 ? '' : 's'} in force on this node`);
    });
}

/** The explanation as lines a person reads. */
export function describePlan(plan: RouteExplanation): string[] {
  const lines = [`${plan.channel} to +${plan.to} (${plan.country ?? 'country unknown'})`];
  if (plan.rule === null) lines.push('rule: none matches; the channel\'s own DSN delivers');
  else {
    const { match } = plan.rule;
    const why = match.by === 'prefix' ? `prefix +${match.prefix}` : match.by === 'country' ? `country ${match.country}` : 'a rule for every number';
    lines.push(`rule: #${plan.rule.index}${plan.rule.name === null ? '' : ` (${plan.rule.name})`}, matched by ${why}`);
  }
  for (const lost of plan.outranked) lines.push(`  outranks #${lost.index}${lost.name === null ? '' : ` (${lost.name})`}, matched by ${lost.match.by}`);
  if (plan.decision !== null) lines.push(`strategy: ${plan.decision.decided}: ${plan.decision.reason}`);
  plan.transports.forEach((t, i) => {
    const price = t.price === null ? 'no price' : `${t.price.amount} ${t.price.currency}`;
    const conversion = t.conversion === null ? '' : `, conversion ${t.conversion.verified}/${t.conversion.sent}`;
    lines.push(`  ${i + 1}. ${t.name} (${price}${conversion})`);
  });
  const sender = plan.sender.sender;
  lines.push(`sender: ${sender === undefined ? 'the transport\'s default' : `${sender.id} (${sender.kind})`} from ${plan.sender.source}${plan.sender.note === undefined ? '' : `: ${plan.sender.note}`}`);
  const regulatory = Object.entries(plan.regulatory);
  if (regulatory.length > 0) lines.push(`regulatory: ${regulatory.map(([k, v]) => `${k}=${v}`).join(' ')}`);
  return lines;
}
