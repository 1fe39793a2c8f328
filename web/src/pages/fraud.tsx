// Fraud: what the risk score decided (docs/security.md, "Risk score"), from the account's recorded
// decisions (every block and shadow block, one allowed send in 20): the money the blocks saved (and
// the shadow blocks would have), the decisions per hour, the signals, countries and prefixes behind the
// blocks, and the Safe List, where a number or a prefix seen here is put with one button.
import { useState } from 'preact/hooks';
import type { RiskDecisionPage, RiskSavings, SafeListEntry } from '../../../src/client/types.js';
import { formatMicros } from '../../../src/domain/money.js';
import { FormMessage, TextField } from '../components/fields.js';
import { Loading, useLoad } from '../components/load.js';
import { useRowActions, useSubmission } from '../components/submission.js';
import { ACTIONS_COLUMN, DataTable } from '../components/data-table.js';
import { useClient } from '../context.js';
import { count, dateTime, shortTime } from '../format.js';
import { unplacedFields } from '../problems.js';

type Decision = RiskDecisionPage['decisions'][number];

const HOUR = 3_600_000;
/** The recorded decisions the page summarises: the newest. */
const DECISIONS_READ = 1000;

const isBlock = (d: Decision) => d.decision !== 'allow';

/** The 10 000-number prefix of a destination, as the Safe List takes it (+ and its digits). */
const prefixOf = (destination: string) => `+${destination.slice(0, -4)}`;

/** The `limit` most frequent keys, most frequent first. */
function top<T>(items: readonly T[], keysOf: (item: T) => readonly string[], limit = 8): [string, number][] {
  const counts = new Map<string, number>();
  for (const item of items) for (const key of keysOf(item)) counts.set(key, (counts.get(key) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, limit);
}

function perHour(decisions: readonly Decision[]): { hour: number; allow: number; block: number; shadow: number }[] {
  const hours = new Map<number, { hour: number; allow: number; block: number; shadow: number }>();
  for (const d of decisions) {
    const hour = Math.floor(d.createdAt / HOUR) * HOUR;
    const row = hours.get(hour) ?? { hour, allow: 0, block: 0, shadow: 0 };
    if (d.decision === 'block') row.block += 1;
    else if (d.decision === 'shadow_block') row.shadow += 1;
    else row.allow += 1;
    hours.set(hour, row);
  }
  return [...hours.values()].sort((a, b) => b.hour - a.hour);
}

const blocksOf = (n: number, one: string, many: string) => `${count(n)} ${n === 1 ? one : many}`;

/** Per currency, what the blocks saved and the shadow blocks would have saved, as the Spend page writes money. */
function SavingsPanel({ savings }: { savings: RiskSavings }) {
  const { currencies, unpriced } = savings;
  const unpricedCount = unpriced.blocks + unpriced.shadowBlocks;
  return (
    <section class="panel" aria-labelledby="money-saved">
      <h2 id="money-saved">Money blocks saved</h2>
      <p class="muted">Each block's message priced as its budget charge would be (the price list's line for its first transport, per SMS part): what a block saved, and what a shadow block, sent anyway, would have saved blocked. Over every decision still recorded.</p>
      {currencies.length === 0 && unpricedCount === 0 ? <p class="empty">No block yet.</p> : null}
      {currencies.length === 0 && unpricedCount > 0 ? (
        <p class="empty" data-testid="savings-unpriced">No price list applies to these decisions (TWOFA_PRICES_FILE): {blocksOf(unpriced.blocks, 'block', 'blocks')} and {blocksOf(unpriced.shadowBlocks, 'shadow block', 'shadow blocks')} have no price.</p>
      ) : null}
      {currencies.length > 0 ? (
        <>
          <DataTable columns={['Currency', 'Blocks saved', 'Shadow blocks would have saved']}>
            {currencies.map((c) => (
              <tr key={c.currency} data-testid="savings-row">
                <th scope="row">{c.currency}</th>
                <td>{formatMicros(c.blockedMicros)} {c.currency} <span class="muted">({blocksOf(c.blocks, 'block', 'blocks')})</span></td>
                <td>{formatMicros(c.shadowBlockedMicros)} {c.currency} <span class="muted">({blocksOf(c.shadowBlocks, 'shadow block', 'shadow blocks')})</span></td>
              </tr>
            ))}
          </DataTable>
          {unpricedCount > 0 ? <p class="warn" data-testid="savings-unpriced">{blocksOf(unpricedCount, 'decision', 'decisions')} had no known price (no price list line, or an email): not counted above.</p> : null}
        </>
      ) : null}
    </section>
  );
}

function SafeListPanel({ entries, reload }: { entries: SafeListEntry[]; reload: () => void }) {
  const client = useClient();
  const [entry, setEntry] = useState('');
  const { busy, problem, run } = useSubmission();
  const { notice, act } = useRowActions(reload);
  const name = (e: SafeListEntry) => e.phoneNumber ?? `${e.prefix ?? ''}*`;

  async function add(event: Event) {
    event.preventDefault();
    await run(async () => {
      await client.safeList.add(entry.trim());
      setEntry('');
      reload();
    });
  }

  return (
    <section class="panel" aria-labelledby="safe-list">
      <h2 id="safe-list">Safe List</h2>
      <p class="muted">A listed number, or every number a listed prefix starts, is never blocked by the score or the anti-fraud rules, and is not counted in the baselines the score compares sends against.</p>
      <form class="form" onSubmit={add} noValidate>
        <TextField id="safe-list-entry" label="Number or prefix" value={entry} onValue={setEntry} error={problem?.fields['phoneNumber'] ?? problem?.fields['prefix']} required hint="A number, e.g. +41791234567, or a prefix followed by *, e.g. +4179*." />
        <div class="actions"><button type="submit" disabled={busy}>{busy ? 'Adding…' : 'Add to the Safe List'}</button></div>
        <FormMessage error={problem?.message} extra={unplacedFields(problem, ['phoneNumber', 'prefix'])} />
      </form>
      <div role="status" aria-live="polite" class="notice" hidden={!notice}>{notice}</div>
      {entries.length === 0 ? <p class="empty">The Safe List is empty.</p> : (
        <DataTable caption="On the Safe List" columns={['Entry', 'Added', ACTIONS_COLUMN]}>
          {entries.map((e) => (
            <tr key={e.sid}>
              <th scope="row"><code class="id">{name(e)}</code></th>
              <td>{dateTime(e.createdAt)}</td>
              <td class="row-actions">
                <button type="button" class="danger" onClick={() => void act(() => client.safeList.remove(name(e)), `Removed ${name(e)}.`)}>
                  Remove<span class="visually-hidden"> {name(e)}</span>
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

export function Fraud() {
  const client = useClient();
  const state = useLoad(async () => {
    const [page, savings, safeList] = await Promise.all([client.risk.decisions({ limit: DECISIONS_READ }), client.risk.savings(), client.safeList.list()]);
    return { decisions: page.decisions, savings, safeList: safeList.entries };
  }, [client]);
  const { notice, act } = useRowActions(state.reload);
  const listButton = (entry: string) => (
    <button type="button" onClick={() => void act(() => client.safeList.add(entry), `${entry} is on the Safe List.`)}>
      Put on the Safe List<span class="visually-hidden"> {entry}</span>
    </button>
  );

  return (
    <section>
      <h1 tabIndex={-1}>Fraud</h1>
      <p class="muted">What the risk score decided: every block and shadow block is recorded, and one allowed send in 20. Applications choose enforce, shadow or off (docs/security.md).</p>
      <div role="status" aria-live="polite" class="notice" hidden={!notice}>{notice}</div>
      <Loading state={state}>
        {({ decisions, savings, safeList }) => {
          const blocked = decisions.filter(isBlock);
          return (
            <>
              <p>{count(blocked.length)} blocked or shadow-blocked of the {count(decisions.length)} newest recorded decisions.</p>
              <SavingsPanel savings={savings} />
              <section class="panel" aria-labelledby="decisions-per-hour">
                <h2 id="decisions-per-hour">Decisions over time</h2>
                {decisions.length === 0 ? <p class="empty">No decision recorded yet.</p> : (
                  <DataTable columns={['Hour', 'Blocked', 'Shadow-blocked', 'Allowed (1 in 20 recorded)']}>
                    {perHour(decisions).map((h) => (
                      <tr key={h.hour}><th scope="row">{shortTime(h.hour, HOUR)}</th><td>{count(h.block)}</td><td>{count(h.shadow)}</td><td>{count(h.allow)}</td></tr>
                    ))}
                  </DataTable>
                )}
              </section>
              <section class="panel" aria-labelledby="top-signals">
                <h2 id="top-signals">Top signals of the blocks</h2>
                {blocked.length === 0 ? <p class="empty">No block yet.</p> : (
                  <DataTable columns={['Signal', 'Blocks it added points to']}>
                    {top(blocked, (d) => d.signals.filter((s) => s.points > 0).map((s) => s.name)).map(([name, n]) => (
                      <tr key={name}><th scope="row"><code>{name}</code></th><td>{count(n)}</td></tr>
                    ))}
                  </DataTable>
                )}
              </section>
              <section class="panel" aria-labelledby="top-countries">
                <h2 id="top-countries">Top countries and prefixes of the blocks</h2>
                {blocked.length === 0 ? <p class="empty">No block yet.</p> : (
                  <>
                    <DataTable columns={['Country', 'Blocks']}>
                      {top(blocked, (d) => [d.country ?? 'unknown']).map(([country, n]) => (
                        <tr key={country}><th scope="row">{country}</th><td>{count(n)}</td></tr>
                      ))}
                    </DataTable>
                    <DataTable columns={['Prefix', 'Blocks', ACTIONS_COLUMN]}>
                      {top(blocked, (d) => [prefixOf(d.destination)]).map(([prefix, n]) => (
                        <tr key={prefix}><th scope="row"><code>{prefix}</code></th><td>{count(n)}</td><td class="row-actions">{listButton(`${prefix}*`)}</td></tr>
                      ))}
                    </DataTable>
                  </>
                )}
              </section>
              <section class="panel" aria-labelledby="latest-blocks">
                <h2 id="latest-blocks">Latest blocks</h2>
                {blocked.length === 0 ? <p class="empty">No block yet.</p> : (
                  <DataTable columns={['When', 'Number', 'Score', 'Decision', 'Signals', ACTIONS_COLUMN]}>
                    {blocked.slice(0, 20).map((d) => (
                      <tr key={d.id}>
                        <td>{dateTime(d.createdAt)}</td>
                        <th scope="row"><code class="id">+{d.destination}</code></th>
                        <td>{d.score} / {d.threshold}</td>
                        <td>{d.decision === 'block' ? 'blocked' : 'shadow-blocked'}</td>
                        <td>{d.signals.filter((s) => s.points > 0).sort((a, b) => b.points - a.points).map((s) => `${s.name} +${s.points}`).join(', ')}</td>
                        <td class="row-actions">{listButton(`+${d.destination}`)}</td>
                      </tr>
                    ))}
                  </DataTable>
                )}
              </section>
              <SafeListPanel entries={safeList} reload={state.reload} />
            </>
          );
        }}
      </Loading>
    </section>
  );
}
