// Routes: the operator's routes table as the server holds it (which named transports, sender and
// regulatory fields each rule gives), and an explain box: the route one number takes now, the rule and
// why, the transports in order with their prices and conversions, the sender and where it came from.
// The table itself is configuration (TWOFA_ROUTES, twofa.config.json): read here, never edited.
import { useState } from 'preact/hooks';
import type { RouteExplanation, Routes as RoutesTable } from '../../../src/client/index.js';
import { FormMessage, SelectField, TextField } from '../components/fields.js';
import { Loading, useLoad } from '../components/load.js';
import { DataTable } from '../components/data-table.js';
import { useSubmission } from '../components/submission.js';
import { useClient } from '../context.js';
import { unplacedFields } from '../problems.js';

const CHANNELS = ['sms', 'voice', 'whatsapp', 'telegram'].map((c) => ({ value: c, label: c }));

type Rule = RoutesTable['rules'][number];

function matches(rule: Rule): string {
  const parts = [...rule.prefixes.map((p) => `+${p}`), ...rule.countries];
  return parts.length === 0 ? 'every number' : parts.join(', ');
}

function senderText(sender: { id: string; kind: string } | undefined): string {
  return sender === undefined ? '—' : `${sender.id} (${sender.kind.replace('_', ' ')})`;
}

function whyMatched(match: RouteExplanation['outranked'][number]['match']): string {
  return match.by === 'prefix' ? `prefix +${match.prefix ?? ''}` : match.by === 'country' ? `country ${match.country ?? ''}` : 'a rule for every number';
}

export function Routes() {
  const client = useClient();
  const state = useLoad(() => client.routes.list(), [client]);
  return (
    <section>
      <h1 tabIndex={-1}>Routes</h1>
      <p class="muted">Which named transports, sender and regulatory fields each phone number gets. The table is the operator&apos;s configuration (<code>TWOFA_ROUTES</code> or <code>routes</code> in <code>twofa.config.json</code>, reloaded with <code>twofa routes reload</code>); the longest prefix wins over a country, the first rule among equals.</p>
      <ExplainBox />
      <Loading state={state}>
        {(table) => (
          <section aria-labelledby="routes-table">
            <h2 id="routes-table">Rules in force</h2>
            <p>Named transports: {table.transports.map((t, i) => <span key={t}>{i > 0 ? ', ' : ''}<code>{t}</code></span>)}</p>
            {table.rules.length === 0 ? <p class="empty">No rule: every number goes through its channel&apos;s own DSN.</p> : (
              <DataTable columns={['#', 'Name', 'Channel', 'Matches', 'Transports', 'Sender', 'Fallback sender', 'Regulatory']}>
                {table.rules.map((rule) => (
                  <tr key={rule.index}>
                    <th scope="row">{rule.index}</th>
                    <td>{rule.name ?? ''}</td>
                    <td>{rule.channel}</td>
                    <td>{matches(rule)}</td>
                    <td>{rule.strategy === 'cheapest' ? `cheapest converting ≥ ${rule.minConversion ?? ''}: ` : ''}{rule.transports.join(' → ')}</td>
                    <td>{senderText(rule.sender)}</td>
                    <td>{senderText(rule.fallbackSender)}</td>
                    <td>{Object.entries(rule.regulatory).map(([k, v]) => `${k} ${v}`).join(', ') || '—'}</td>
                  </tr>
                ))}
              </DataTable>
            )}
          </section>
        )}
      </Loading>
    </section>
  );
}

function ExplainBox() {
  const client = useClient();
  const [to, setTo] = useState('');
  const [channel, setChannel] = useState('sms');
  const [plan, setPlan] = useState<RouteExplanation | null>(null);
  const { busy, problem, run } = useSubmission();

  async function explain(event: Event) {
    event.preventDefault();
    // An explanation stays on screen only while it answers the number in the box.
    setPlan(null);
    await run(async () => {
      setPlan(await client.routes.explain({ channel, to: to.trim() }));
    });
  }

  return (
    <section class="panel narrow" aria-labelledby="explain-route">
      <h2 id="explain-route">Explain a number</h2>
      <form class="form" onSubmit={explain} noValidate>
        <TextField id="explain-to" label="Phone number" value={to} onValue={setTo} error={problem?.fields['to']} required hint="International, e.g. +919876543210." />
        <SelectField id="explain-channel" label="Channel" value={channel} onValue={setChannel} options={CHANNELS} error={problem?.fields['channel']} />
        <div class="actions"><button type="submit" disabled={busy}>{busy ? 'Explaining…' : 'Explain'}</button></div>
        <FormMessage error={problem?.message} extra={unplacedFields(problem, ['to', 'channel'])} />
      </form>
      {plan === null ? null : <Explanation plan={plan} />}
    </section>
  );
}

function Explanation({ plan }: { plan: RouteExplanation }) {
  return (
    <div class="explanation" role="status" aria-live="polite">
      <p><strong>{plan.channel}</strong> to <code>+{plan.to}</code> ({plan.country ?? 'country unknown'}):{' '}
        {plan.rule === null ? 'no rule matches; the channel\'s own DSN delivers.'
          : <>rule <strong>#{plan.rule.index}{plan.rule.name === null ? '' : ` ${plan.rule.name}`}</strong>, matched by {whyMatched(plan.rule.match)}.</>}
      </p>
      {plan.outranked.length === 0 ? null : <p class="muted">Also matched, and outranked: {plan.outranked.map((o) => `#${o.index}${o.name === null ? '' : ` ${o.name}`} (${whyMatched(o.match)})`).join('; ')}.</p>}
      {plan.decision === null ? null : <p>Cheapest strategy: {plan.decision.reason}.</p>}
      <DataTable caption="Transports, in the order they are tried" columns={['Order', 'Transport', 'Price', 'Conversion']}>
        {plan.transports.map((t, i) => (
          <tr key={t.name}>
            <td>{i + 1}</td>
            <th scope="row"><code>{t.name}</code></th>
            <td>{t.price === null ? 'not priced' : `${t.price.amount} ${t.price.currency}`}</td>
            <td>{t.conversion === null ? '—' : `${t.conversion.verified} / ${t.conversion.sent}`}</td>
          </tr>
        ))}
      </DataTable>
      <p>Sender: {plan.sender.sender === undefined ? 'the transport\'s default' : <code>{plan.sender.sender.id}</code>} (from {plan.sender.source}){plan.sender.note === undefined ? '' : `: ${plan.sender.note}`}.</p>
      {Object.keys(plan.regulatory).length === 0 ? null : <p>Regulatory: {Object.entries(plan.regulatory).map(([k, v]) => `${k} ${v}`).join(', ')}.</p>}
    </div>
  );
}
