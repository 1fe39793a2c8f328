// Verifications: the account's PINs, searchable by destination, application, status and date, a
// page at a time; each links to its delivery history. Never the PIN.
import { useState } from 'preact/hooks';
import type { PinListQuery } from '../../../src/client/index.js';
import { SelectField, TextField } from '../components/fields.js';
import { Loading, useLoad } from '../components/load.js';
import { useClient } from '../context.js';
import { dateTime, fromLocalInput, toLocalInput } from '../format.js';
import { Link, navigate, useLocation } from '../router.js';

const STATES = [
  { value: '', label: 'Any status' }, { value: 'pending', label: 'Pending' }, { value: 'verified', label: 'Verified' },
  { value: 'expired', label: 'Expired' }, { value: 'locked', label: 'Locked (no attempts left)' },
];
const CHANNELS = [{ value: '', label: 'Any channel' }, { value: 'sms', label: 'SMS' }, { value: 'voice', label: 'Voice' }, { value: 'email', label: 'Email' }, { value: 'whatsapp', label: 'WhatsApp' }, { value: 'telegram', label: 'Telegram' }];

export function StateBadge({ state }: { state: string }) {
  return <span class={`badge state-${state}`}>{state}</span>;
}

function queryOf(params: URLSearchParams): PinListQuery {
  const q: PinListQuery = { limit: 20 };
  const text = (name: string) => params.get(name) || undefined;
  const to = text('to'); if (to) q.to = to;
  const app = text('applicationId'); if (app) q.applicationId = app;
  const status = text('status'); if (status) q.status = status as PinListQuery['status'];
  const channel = text('channel'); if (channel) q.channel = channel as PinListQuery['channel'];
  const since = text('since'); if (since && /^[0-9]+$/.test(since)) q.since = Number(since);
  const until = text('until'); if (until && /^[0-9]+$/.test(until)) q.until = Number(until);
  const cursor = text('cursor'); if (cursor) q.cursor = cursor;
  return q;
}

export function Verifications() {
  const client = useClient();
  const { query } = useLocation();
  const key = query.toString();
  const [form, setForm] = useState(() => ({
    to: query.get('to') ?? '', applicationId: query.get('applicationId') ?? '', status: query.get('status') ?? '', channel: query.get('channel') ?? '',
    since: query.get('since') ? toLocalInput(Number(query.get('since'))) : '', until: query.get('until') ? toLocalInput(Number(query.get('until'))) : '',
  }));
  // The cursors of the pages before this one, so "Newer" can go back.
  const [previous, setPrevious] = useState<string[]>([]);
  const apps = useLoad(() => client.applications.list(), [client]);
  const state = useLoad(() => client.pins.list(queryOf(new URLSearchParams(key))), [client, key]);

  const go = (params: Record<string, string | undefined>) => {
    const next = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v) next.set(k, v);
    const text = next.toString();
    navigate(text ? `/pins?${text}` : '/pins');
  };
  const filters = () => ({
    to: form.to.trim(), applicationId: form.applicationId, status: form.status, channel: form.channel,
    since: fromLocalInput(form.since)?.toString(), until: fromLocalInput(form.until)?.toString(),
  });

  return (
    <section>
      <h1 tabIndex={-1}>Verifications</h1>
      <form class="filters panel" role="search" aria-label="Search PINs" onSubmit={(e) => { e.preventDefault(); setPrevious([]); go(filters()); }}>
        <TextField id="f-to" label="Destination" value={form.to} onValue={(v) => setForm({ ...form, to: v })} placeholder="number or address, or a part" />
        <SelectField id="f-app" label="Application" value={form.applicationId} onValue={(v) => setForm({ ...form, applicationId: v })}
          options={[{ value: '', label: 'Any application' }, ...(apps.data ?? []).map((a) => ({ value: a.applicationId, label: a.name }))]} />
        <SelectField id="f-status" label="Status" value={form.status} onValue={(v) => setForm({ ...form, status: v })} options={STATES} />
        <SelectField id="f-channel" label="Channel" value={form.channel} onValue={(v) => setForm({ ...form, channel: v })} options={CHANNELS} />
        <TextField id="f-since" label="Sent from" type="datetime-local" value={form.since} onValue={(v) => setForm({ ...form, since: v })} />
        <TextField id="f-until" label="Sent before" type="datetime-local" value={form.until} onValue={(v) => setForm({ ...form, until: v })}
          error={state.problem?.fields['until']} />
        <div class="actions">
          <button type="submit">Search</button>
          <button type="button" class="secondary" onClick={() => { setForm({ to: '', applicationId: '', status: '', channel: '', since: '', until: '' }); setPrevious([]); go({}); }}>Clear</button>
        </div>
      </form>
      <Loading state={state}>
        {(page) => (
          <>
            {page.pins.length === 0 ? <p class="empty">No PIN matches.</p> : (
              <div class="table-wrap">
                <table class="pins">
                  <caption class="visually-hidden">PINs, newest first</caption>
                  <thead>
                    <tr><th scope="col">Sent</th><th scope="col">Destination</th><th scope="col">Application</th><th scope="col">Channel</th><th scope="col">API</th><th scope="col">Status</th><th scope="col">Delivery</th><th scope="col">Attempts left</th></tr>
                  </thead>
                  <tbody>
                    {page.pins.map((p) => (
                      <tr key={p.pinId} data-pin-id={p.pinId}>
                        <td><Link href={`/pins/${p.pinId}`} aria-label={`PIN to ${p.to}, ${dateTime(p.createdAt)}`}>{dateTime(p.createdAt)}</Link></td>
                        <td>{p.to}{p.country ? <span class="muted"> ({p.country})</span> : null}</td>
                        <td>{p.applicationName ?? <code class="id">{p.applicationId}</code>}</td>
                        <td>{p.channel}</td>
                        <td>{p.dialect === 'twilio' ? 'Twilio Verify' : 'Infobip'}</td>
                        <td><StateBadge state={p.state} /></td>
                        <td>{p.deliveryStatus}{p.sendCount > 1 ? <span class="muted"> ({p.sendCount} sends)</span> : null}</td>
                        <td>{p.attemptsRemaining}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            <nav class="pager" aria-label="Pages">
              <button type="button" class="secondary" disabled={previous.length === 0} onClick={() => {
                const before = previous.slice(0, -1);
                const cursor = previous[previous.length - 1];
                setPrevious(before);
                go({ ...filters(), cursor: cursor === '' ? undefined : cursor });
              }}>Newer</button>
              <button type="button" class="secondary" disabled={page.nextCursor === null} onClick={() => {
                setPrevious([...previous, query.get('cursor') ?? '']);
                go({ ...filters(), cursor: page.nextCursor ?? undefined });
              }}>Older</button>
            </nav>
          </>
        )}
      </Loading>
    </section>
  );
}
