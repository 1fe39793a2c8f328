// Spend and budgets: what the account's messages cost this month (by country, transport or
// application), the account's budget, and the price list in force (docs/routing.md).
import { useState } from 'preact/hooks';
import { SpendBudgetPanel } from '../components/budget-panel.js';
import { DataTable } from '../components/data-table.js';
import { SelectField } from '../components/fields.js';
import { Loading, useLoad } from '../components/load.js';
import { useClient } from '../context.js';
import { count } from '../format.js';

type Dimension = 'country' | 'transport' | 'application';

export function SpendPage() {
  const client = useClient();
  const [by, setBy] = useState<Dimension>('country');
  const spend = useLoad(() => client.stats.spend({ by }), [client, by]);
  const prices = useLoad(() => client.prices.get(), [client]);
  return (
    <section>
      <h1 tabIndex={-1}>Spend and budgets</h1>
      <p class="muted">Every message is priced when its transport takes it: the price list's line for its transport and number (an SMS per part), or the provider's own price where it reports one.</p>
      <section class="panel" aria-labelledby="spend-title">
        <h2 id="spend-title">This month (UTC)</h2>
        <SelectField id="spend-by" label="Group by" value={by} onValue={(v) => setBy(v as Dimension)}
          options={[{ value: 'country', label: 'Country' }, { value: 'transport', label: 'Transport' }, { value: 'application', label: 'Application' }]} />
        <Loading state={spend}>
          {(s) => (
            <>
              {s.groups.length === 0 ? <p class="empty">No message sent this month.</p> : (
                <DataTable columns={[by === 'application' ? 'Application' : by === 'transport' ? 'Transport' : 'Country', 'Cost', 'Messages', 'SMS parts']}>
                  {s.groups.map((g) => (
                    <tr key={`${g.key}-${g.currency}`} data-testid="spend-row">
                      <th scope="row">{by === 'application' && g.key ? <code class="id">{g.key}</code> : (g.key ?? '—')}</th>
                      <td>{g.currency === null ? <span class="warn">no known price</span> : `${g.amount} ${g.currency}`}</td>
                      <td>{count(g.messages)}</td>
                      <td>{count(g.segments)}</td>
                    </tr>
                  ))}
                </DataTable>
              )}
              {s.totals.map((t) => <p key={t.currency} data-testid="spend-total"><strong>Total {t.amount} {t.currency}</strong> <span class="muted">({t.messages === 1 ? '1 message' : `${count(t.messages)} messages`})</span></p>)}
              {s.unpriced > 0 ? <p class="warn">{count(s.unpriced)} message(s) had no known price: they count against no budget. Add their transport and country to the price list.</p> : null}
            </>
          )}
        </Loading>
      </section>
      <SpendBudgetPanel />
      <section class="panel" aria-labelledby="prices-title">
        <h2 id="prices-title">Price list</h2>
        <Loading state={prices}>
          {(list) => list.lines.length === 0 ? <p class="empty">No price list (TWOFA_PRICES_FILE): no message has a price and no budget counts.</p> : (
            <DataTable caption={list.file ?? undefined} columns={['Transport', 'Country', 'Prefix', 'Price per message (SMS part)']}>
              {list.lines.map((l) => (
                <tr key={`${l.transport}-${l.country}-${l.prefix}`}>
                  <th scope="row">{l.transport}</th><td>{l.country}</td><td>{l.prefix ?? 'whole country'}</td><td>{l.amount} {l.currency}</td>
                </tr>
              ))}
            </DataTable>
          )}
        </Loading>
      </section>
    </section>
  );
}
