// Webhook subscriptions: where twofa POSTs PIN events (signed with the subscription's secret, shown once).
import { useState } from 'preact/hooks';
import type { CreatedWebhook } from '../../../src/client/index.js';
import { ACCOUNT_EVENT_TYPES, PIN_EVENT_TYPES } from '../../../src/domain/pin-events.js';
import { Checkbox, FormMessage, TextField } from '../components/fields.js';
import { Loading, useLoad } from '../components/load.js';
import { useClient } from '../context.js';
import { dateTime } from '../format.js';
import { unplacedFields } from '../problems.js';
import { useRowActions, useSubmission } from '../components/submission.js';
import { ACTIONS_COLUMN, DataTable } from '../components/data-table.js';

/** PIN events, and the account's own (budget.threshold: a spending budget at 80 % or 100 %). */
const EVENT_TYPES = [...PIN_EVENT_TYPES, ...ACCOUNT_EVENT_TYPES] as const;
type EventName = (typeof EVENT_TYPES)[number];

export function Webhooks() {
  const client = useClient();
  const state = useLoad(() => client.webhooks.list(), [client]);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventName[]>(['pin.verified', 'pin.failed']);
  const { busy, problem, setProblem, run } = useSubmission();
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  const { notice, act } = useRowActions(state.reload);

  async function create(event: Event) {
    event.preventDefault();
    if (events.length === 0) return setProblem({ message: 'Choose at least one event.', fields: { events: 'choose at least one event' } });
    await run(async () => {
      setCreated(await client.webhooks.create({ url: url.trim(), events }));
      setUrl('');
      state.reload();
    });
  }

  const eventsError = problem?.fields['events'] ?? Object.entries(problem?.fields ?? {}).find(([f]) => f.startsWith('events.'))?.[1];
  return (
    <section>
      <h1 tabIndex={-1}>Webhooks</h1>
      <p class="muted">twofa POSTs an event to each subscription when a PIN is sent, delivered, failed, verified, expired or locked, and when a spending budget reaches 80 % or 100 %, signed with the subscription's secret.</p>
      <section class="panel narrow" aria-labelledby="new-webhook">
        <h2 id="new-webhook">New subscription</h2>
        <form class="form" onSubmit={create} noValidate>
          <TextField id="webhook-url" label="URL" type="url" value={url} onValue={setUrl} error={problem?.fields['url']} required hint="https://… on a public address (private addresses only where the operator allows them)." />
          <fieldset>
            <legend>Events</legend>
            <div class="checks">
              {EVENT_TYPES.map((e) => (
                <Checkbox key={e} id={`event-${e.replace('.', '-')}`} label={e} checked={events.includes(e)} onChecked={(on) => setEvents(on ? [...events, e] : events.filter((x) => x !== e))} />
              ))}
            </div>
            <p class="field-error" aria-live="polite">{eventsError ?? ''}</p>
          </fieldset>
          <div class="actions"><button type="submit" disabled={busy}>{busy ? 'Creating…' : 'Create subscription'}</button></div>
          <FormMessage error={problem?.message} extra={unplacedFields(problem, ['url', 'events'])} />
        </form>
        {created ? (
          <div class="notice success secret" role="status">
            <p><strong>Copy the signing secret now: it is not shown again.</strong></p>
            <p><label for="created-secret">Secret for {created.url}</label></p>
            <input id="created-secret" readOnly value={created.secret} onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} />
            <div class="actions"><button type="button" class="link" onClick={() => setCreated(null)}>Done</button></div>
          </div>
        ) : null}
      </section>
      <div role="status" aria-live="polite" class="notice" hidden={!notice}>{notice}</div>
      <Loading state={state}>
        {(hooks) => hooks.length === 0 ? <p class="empty">No subscription.</p> : (
          <DataTable columns={['URL', 'Events', 'Status', 'Created', ACTIONS_COLUMN]}>
            {hooks.map((h) => (
              <tr key={h.id}>
                <th scope="row"><code class="id">{h.url}</code></th>
                <td>{h.events.join(', ')}</td>
                <td>{h.enabled ? <span class="badge ok">Enabled</span> : <span class="badge">Paused</span>}</td>
                <td>{dateTime(h.createdAt)}</td>
                <td class="row-actions">
                  <button type="button" class="secondary" onClick={() => act(() => client.webhooks.update(h.id, { enabled: !h.enabled }), h.enabled ? 'Paused.' : 'Enabled.')}>
                    {h.enabled ? 'Pause' : 'Enable'}<span class="visually-hidden"> {h.url}</span>
                  </button>
                  <button type="button" class="danger" onClick={() => { if (window.confirm(`Delete the subscription to ${h.url}?`)) void act(() => client.webhooks.delete(h.id), 'Deleted.'); }}>
                    Delete<span class="visually-hidden"> {h.url}</span>
                  </button>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </Loading>
    </section>
  );
}
