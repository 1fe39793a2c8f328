// The local inbox: what the log:// transport delivered (this node, in memory), shown as a phone
// shows texts and calls and as a mail client shows mail.
import { useEffect, useState } from 'preact/hooks';
import type { InboxMessage } from '../../../src/client/index.js';
import { Checkbox, TextField } from '../components/fields.js';
import { Loading, useLoad } from '../components/load.js';
import { useClient } from '../context.js';
import { dateTime } from '../format.js';
import { Link, navigate, useLocation } from '../router.js';

function Phones({ messages }: { messages: InboxMessage[] }) {
  const byNumber = new Map<string, InboxMessage[]>();
  for (const m of messages) byNumber.set(m.to, [...(byNumber.get(m.to) ?? []), m]);
  if (byNumber.size === 0) return <p class="empty">No text message or call.</p>;
  return (
    <div class="phones">
      {[...byNumber].map(([number, list]) => (
        <section class="phone" key={number} aria-label={`Phone ${number}`}>
          <h3 class="phone-head">+{number}</h3>
          <ol class="thread">
            {[...list].reverse().map((m) => (
              <li key={m.id} class={`bubble ${m.channel}`} data-testid="inbox-message" data-pin-id={m.pinId}>
                <span class="bubble-meta">{m.channel === 'voice' ? 'Voice call' : `SMS${m.from ? ` from ${m.from}` : ''}`} · <time dateTime={new Date(m.receivedAt).toISOString()}>{dateTime(m.receivedAt)}</time></span>
                <span class="bubble-text">{m.text}</span>
                <Link class="bubble-link" href={`/pins/${m.pinId}`}>PIN details</Link>
              </li>
            ))}
          </ol>
        </section>
      ))}
    </div>
  );
}

function Mailbox({ messages }: { messages: InboxMessage[] }) {
  const [openId, setOpenId] = useState<string | null>(messages[0]?.id ?? null);
  const open = messages.find((m) => m.id === openId) ?? messages[0];
  if (messages.length === 0) return <p class="empty">No email.</p>;
  return (
    <div class="mailbox">
      <ul class="mail-list" aria-label="Emails">
        {messages.map((m) => (
          <li key={m.id}>
            <button type="button" class={`mail-item${open?.id === m.id ? ' selected' : ''}`} aria-pressed={open?.id === m.id ? 'true' : 'false'} onClick={() => setOpenId(m.id)}>
              <span class="mail-subject">{m.subject ?? '(no subject)'}</span>
              <span class="mail-meta">To {m.to} · {dateTime(m.receivedAt)}</span>
            </button>
          </li>
        ))}
      </ul>
      {open ? (
        <article class="mail-view" aria-label="Open email" data-testid="inbox-message" data-pin-id={open.pinId}>
          <dl class="mail-head">
            <dt>From</dt><dd>{open.from ?? '—'}</dd>
            <dt>To</dt><dd>{open.to}</dd>
            <dt>Subject</dt><dd>{open.subject ?? ''}</dd>
            <dt>Received</dt><dd>{dateTime(open.receivedAt)}</dd>
          </dl>
          {open.html ? <iframe class="mail-body" title={`Email: ${open.subject ?? ''}`} sandbox="" srcdoc={open.html} /> : null}
          {open.text ? <pre class="mail-text">{open.text}</pre> : null}
          <p><Link href={`/pins/${open.pinId}`}>PIN details</Link></p>
        </article>
      ) : null}
    </div>
  );
}

export function InboxPage() {
  const client = useClient();
  const { query } = useLocation();
  const filter = query.get('to') ?? '';
  const [to, setTo] = useState(filter);
  const [live, setLive] = useState(true);
  const [round, setRound] = useState(0);
  const state = useLoad(() => client.inbox.list({ ...(filter !== '' ? { to: filter.replace(/^\+/, '') } : {}), limit: 200 }), [client, filter, round]);

  // New messages arrive as the delivery worker sends them: look again every few seconds.
  useEffect(() => {
    if (!live) return;
    const timer = window.setInterval(() => setRound((r) => r + 1), 3000);
    return () => window.clearInterval(timer);
  }, [live]);

  return (
    <section>
      <div class="page-head">
        <h1 tabIndex={-1}>Inbox</h1>
        <button type="button" class="secondary" onClick={() => setRound(round + 1)}>Refresh</button>
      </div>
      <p class="muted">Messages the <code>log://</code> transport delivered on this node (kept in memory until it restarts).</p>
      <form class="toolbar" role="search" onSubmit={(e) => { e.preventDefault(); navigate(to.trim() === '' ? '/inbox' : `/inbox?to=${encodeURIComponent(to.trim())}`); }}>
        <TextField id="inbox-to" label="Destination" value={to} onValue={setTo} placeholder="number or address" />
        <button type="submit">Filter</button>
        <Checkbox id="live" label="Update every 3 seconds" checked={live} onChecked={setLive} />
      </form>
      <Loading state={state}>
        {(messages) => (
          <div class="inbox">
            <section aria-labelledby="phones-title">
              <h2 id="phones-title">Phones</h2>
              <Phones messages={messages.filter((m) => m.channel !== 'email')} />
            </section>
            <section aria-labelledby="mail-title">
              <h2 id="mail-title">Mail</h2>
              <Mailbox messages={messages.filter((m) => m.channel === 'email')} />
            </section>
          </div>
        )}
      </Loading>
    </section>
  );
}
