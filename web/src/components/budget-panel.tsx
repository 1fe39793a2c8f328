// A budget (the account's, or an application's with `appId`): its daily and monthly caps, per country
// too, what today and this month spent, and a form to set or remove it (docs/routing.md#budgets).
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { TwofaApiError, type Budget, type BudgetRequest } from '../../../src/client/index.js';
import { useClient } from '../context.js';
import { unplacedFields } from '../problems.js';
import { FormMessage, TextArea, TextField } from './fields.js';
import { Loading, useLoad } from './load.js';
import { useSubmission } from './submission.js';

/** Country caps as the form writes them: one per line, `GB daily=2.00 monthly=30`. */
function countryLines(countries: Budget['countries']): string {
  return Object.entries(countries).map(([country, caps]) => [country, caps.daily ? `daily=${caps.daily}` : '', caps.monthly ? `monthly=${caps.monthly}` : ''].filter(Boolean).join(' ')).join('\n');
}

function parseCountryLines(text: string): BudgetRequest['countries'] {
  const countries: NonNullable<BudgetRequest['countries']> = {};
  for (const line of text.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const [country, ...caps] = line.split(/\s+/);
    const pair: { daily?: string; monthly?: string } = {};
    for (const cap of caps) {
      const [period, amount] = cap.split('=');
      if ((period === 'daily' || period === 'monthly') && amount) pair[period] = amount;
    }
    countries[country!] = pair;
  }
  return countries;
}

/** The form of a budget, its fields held as typed (the answer to a save reloads the panel). */
function BudgetForm({ appId, budget, onSaved }: { appId: string | undefined; budget: Budget | null; onSaved: (notice: string) => void }) {
  const client = useClient();
  const [currency, setCurrency] = useState(budget?.currency ?? 'EUR');
  const [daily, setDaily] = useState(budget?.daily ?? '');
  const [monthly, setMonthly] = useState(budget?.monthly ?? '');
  const [countries, setCountries] = useState(budget ? countryLines(budget.countries) : '');
  const { busy, problem, run } = useSubmission();
  const whose = appId === undefined ? 'the account' : 'this application';

  const submit = (event: Event) => {
    event.preventDefault();
    const body: BudgetRequest = { currency: currency.trim(), daily: daily.trim() || null, monthly: monthly.trim() || null, countries: parseCountryLines(countries) };
    void run(async () => {
      await (appId === undefined ? client.budgets.set(body) : client.budgets.setApplication(appId, body));
      onSaved('Budget saved.');
    });
  };
  const remove = () => void run(async () => {
    await (appId === undefined ? client.budgets.delete() : client.budgets.deleteApplication(appId));
    onSaved('Budget removed.');
  });
  return (
    <form class="form" onSubmit={submit} noValidate>
      <TextField id="budget-currency" label="Currency" value={currency} onValue={setCurrency} error={problem?.fields['currency']} required hint="ISO 4217: only messages priced in it count." />
      <TextField id="budget-daily" label="Daily cap" value={daily} onValue={setDaily} error={problem?.fields['daily']} hint="Per UTC day, e.g. 50.00; empty for none." />
      <TextField id="budget-monthly" label="Monthly cap" value={monthly} onValue={setMonthly} error={problem?.fields['monthly']} hint="Per UTC calendar month; empty for none." />
      <TextArea id="budget-countries" label="Caps per country" value={countries} onValue={setCountries} rows={3} hint="One per line, besides the caps above: GB daily=2.00 monthly=30" />
      <div class="actions">
        <button type="submit" disabled={busy}>{busy ? 'Saving…' : 'Save budget'}</button>
        {budget !== null ? <button type="button" class="danger" disabled={busy} onClick={() => { if (window.confirm(`Remove the budget of ${whose}? Its sends will no longer be capped.`)) remove(); }}>Remove budget</button> : null}
      </div>
      <FormMessage error={problem?.message} extra={unplacedFields(problem, ['currency', 'daily', 'monthly'])} />
    </form>
  );
}

export function SpendBudgetPanel({ appId }: { appId?: string }) {
  const client = useClient();
  // No budget yet is a 404: shown as "none", not as an error.
  const state = useLoad(() => (appId === undefined ? client.budgets.get() : client.budgets.getApplication(appId))
    .catch((e: unknown) => (e instanceof TwofaApiError && e.status === 404 ? null : Promise.reject(e))), [client, appId]);
  const [notice, setNotice] = useState<string | null>(null);
  const whose = appId === undefined ? 'the account' : 'this application';
  return (
    <section class="panel" aria-labelledby="spend-budget-title">
      <h2 id="spend-budget-title">Spending budget</h2>
      <p class="muted">A send whose price would take a cap past its amount is refused (429) before anything is queued; messages with no known price count against no cap.</p>
      <div role="status" aria-live="polite" class="notice" hidden={!notice}>{notice}</div>
      <Loading state={state}>
        {(budget) => (
          <>
            {budget === null ? <p class="empty" data-testid="budget-none">No budget: sends of {whose} are not capped.</p> : (
              <dl class="facts" data-testid="budget-facts">
                <dt>Daily cap</dt><dd>{budget.daily ? `${budget.daily} ${budget.currency}` : 'none'}</dd>
                <dt>Spent today (UTC)</dt><dd data-testid="budget-spent-daily">{budget.spent.daily} {budget.currency}</dd>
                <dt>Monthly cap</dt><dd>{budget.monthly ? `${budget.monthly} ${budget.currency}` : 'none'}</dd>
                <dt>Spent this month</dt><dd>{budget.spent.monthly} {budget.currency}</dd>
                {Object.entries(budget.countries).map(([country, caps]) => (
                  <Fragment key={country}><dt>Cap {country}</dt><dd>daily {caps.daily ?? 'none'}, monthly {caps.monthly ?? 'none'}</dd></Fragment>
                ))}
              </dl>
            )}
            <BudgetForm key={budget?.updatedAt ?? 0} appId={appId} budget={budget} onSaved={(text) => { setNotice(text); state.reload(); }} />
          </>
        )}
      </Loading>
    </section>
  );
}
