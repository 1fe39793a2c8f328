// One PIN: its state, attempts, delivery and the history of its messages. Never the PIN.
import { Loading, useLoad } from '../components/load.js';
import { useClient } from '../context.js';
import { dateTime } from '../format.js';
import { Link } from '../router.js';
import { StateBadge } from './pins.js';
import { DataTable } from '../components/data-table.js';

export function PinPage({ pinId }: { pinId: string }) {
  const client = useClient();
  const state = useLoad(() => client.pins.get(pinId), [client, pinId]);
  return (
    <section>
      <p class="breadcrumbs"><Link href="/pins">Verifications</Link> ›</p>
      <Loading state={state}>
        {(pin) => (
          <>
            <div class="page-head">
              <h1 tabIndex={-1}>PIN to {pin.to}</h1>
              <button type="button" class="secondary" onClick={state.reload}>Refresh</button>
            </div>
            <div class="with-aside">
              <section class="panel" aria-labelledby="pin-state">
                <h2 id="pin-state">Verification</h2>
                <dl class="facts">
                  <dt>Status</dt><dd data-testid="pin-state"><StateBadge state={pin.state} /></dd>
                  <dt>Attempts left</dt><dd>{pin.attemptsRemaining}</dd>
                  <dt>Sent</dt><dd>{dateTime(pin.createdAt)}</dd>
                  <dt>Expires</dt><dd>{dateTime(pin.expiresAt)}</dd>
                  <dt>Verified</dt><dd>{dateTime(pin.verifiedAt)}</dd>
                  <dt>Channel</dt><dd>{pin.channel}</dd>
                  <dt>Application</dt><dd><Link href={`/applications/${pin.applicationId}`}><code class="id">{pin.applicationId}</code></Link></dd>
                  <dt>PIN id</dt><dd><code class="id">{pin.pinId}</code></dd>
                </dl>
              </section>
              <section class="panel" aria-labelledby="pin-delivery">
                <h2 id="pin-delivery">Delivery</h2>
                <dl class="facts">
                  <dt>Status</dt><dd>{pin.delivery.status}</dd>
                  <dt>Transport</dt><dd>{pin.delivery.transport ?? '—'}</dd>
                  <dt>Provider message id</dt><dd>{pin.delivery.providerMessageId ?? '—'}</dd>
                  <dt>Handed over</dt><dd>{dateTime(pin.delivery.sentAt)}</dd>
                  <dt>Delivered</dt><dd>{dateTime(pin.delivery.deliveredAt)}</dd>
                  <dt>Messages sent</dt><dd>{pin.sendCount}</dd>
                  {pin.delivery.error ? <><dt>Error</dt><dd class="warn">{pin.delivery.error}</dd></> : null}
                </dl>
              </section>
            </div>
            {pin.workflow ? (
              <section class="panel" aria-labelledby="pin-workflow">
                <h2 id="pin-workflow">Workflow</h2>
                <ol class="timeline">
                  {pin.workflow.map((s) => (
                    <li key={s.step}>
                      <strong>{s.channel}</strong>
                      <span>{s.state}</span>
                      <span class="muted">{s.dueAt ? dateTime(Date.parse(s.dueAt)) : '—'}</span>
                      {s.reason ? <span class={s.state === 'failed' ? 'warn' : 'muted'}>{s.reason}</span> : null}
                    </li>
                  ))}
                </ol>
              </section>
            ) : null}
            <section class="panel" aria-labelledby="pin-messages">
              <h2 id="pin-messages">Messages and prices</h2>
              {pin.messages.length === 0 ? <p class="empty">No transport has taken a message of this PIN yet.</p> : (
                <DataTable columns={['Sent', 'Channel', 'Transport', 'Country', 'SMS parts', 'Price']}>
                  {pin.messages.map((m) => (
                    <tr key={m.deliveryId} data-testid="pin-message">
                      <th scope="row"><time dateTime={new Date(m.sentAt).toISOString()}>{dateTime(m.sentAt)}</time></th>
                      <td>{m.channel}</td>
                      <td>{m.transport}</td>
                      <td>{m.country ?? '—'}</td>
                      <td>{m.segments}</td>
                      <td data-testid="pin-message-price">{m.price === null ? <span class="warn">no known price</span> : `${m.price.amount} ${m.price.currency}`}{m.priceSource === 'provider' ? <span class="muted"> (the provider's)</span> : null}</td>
                    </tr>
                  ))}
                </DataTable>
              )}
            </section>
            <section class="panel" aria-labelledby="pin-history">
              <h2 id="pin-history">History</h2>
              {pin.history.length === 0 ? <p class="empty">Nothing was queued for this PIN (its channel has no transport).</p> : (
                <ol class="timeline">
                  {pin.history.map((e, i) => (
                    <li key={`${e.at}-${i}`}>
                      <time dateTime={new Date(e.at).toISOString()}>{dateTime(e.at)}</time>
                      <strong>{e.event}</strong>
                      <span class="muted">{[e.channel, e.transport, e.providerMessageId].filter(Boolean).join(' · ')}</span>
                      {e.error ? <span class="warn">{e.error}</span> : null}
                    </li>
                  ))}
                </ol>
              )}
            </section>
          </>
        )}
      </Loading>
    </section>
  );
}
