// A user's own authenticators (docs/factors.md): the application's users with factors, and for one
// user (by your id of them) their TOTP factors, a new one shown as the QR code an authenticator app
// scans (its seed is answered once, so it is shown once), and its verification with the first code.
import QRCode from 'qrcode';
import { useEffect, useState } from 'preact/hooks';
import { TwofaApiError, type Factor, type NewFactor } from '../../../src/client/index.js';
import { ACTIONS_COLUMN, DataTable } from '../components/data-table.js';
import { FormMessage, TextField } from '../components/fields.js';
import { Loading, useLoad } from '../components/load.js';
import { useRowActions, useSubmission } from '../components/submission.js';
import { useClient } from '../context.js';
import { dateTime } from '../format.js';
import { unplacedFields } from '../problems.js';
import { Link, navigate } from '../router.js';

const IDENTITY = /^(?=.{8,64}$)[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*$/;

/** The otpauth:// URI as an SVG QR code, for an <img>: made in the browser, the seed never leaves it again. */
function QrCode({ uri }: { uri: string }) {
  const [svg, setSvg] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    void QRCode.toString(uri, { type: 'svg', margin: 2 }).then((text) => { if (current) setSvg(text); });
    return () => { current = false; };
  }, [uri]);
  return svg === null ? <p class="muted" role="status">Drawing the QR code…</p>
    : <img class="qr-code" width={220} height={220} alt="QR code of the new factor: scan it with an authenticator app" src={`data:image/svg+xml;utf8,${encodeURIComponent(svg)}`} />;
}

/** The factor just made: its QR code and seed (shown this once), and the form that verifies it. */
function NewFactorPanel({ appId, identity, factor, onVerified }: { appId: string; identity: string; factor: NewFactor; onVerified: (f: Factor) => void }) {
  const client = useClient();
  const [code, setCode] = useState('');
  const [status, setStatus] = useState(factor.status);
  const [wrong, setWrong] = useState(false);
  const { busy, problem, run } = useSubmission();
  async function verify(event: Event) {
    event.preventDefault();
    await run(async () => {
      const verified = await client.factors.verify(appId, identity, factor.sid, code.trim());
      setStatus(verified.status);
      setWrong(verified.status !== 'verified');
      setCode('');
      if (verified.status === 'verified') onVerified(verified);
    });
  }
  return (
    <section class="panel narrow" aria-labelledby="new-factor-qr">
      <h2 id="new-factor-qr">Scan with an authenticator app</h2>
      <QrCode uri={factor.uri} />
      <p>Or enter the secret <code class="id" data-testid="factor-secret">{factor.secret}</code>. It is shown this once.</p>
      {status === 'verified' ? <p class="notice" role="status">Factor verified.</p> : (
        <form class="form" onSubmit={verify} noValidate>
          <TextField id="factor-code" label="Code the app shows" value={code} onValue={setCode} inputMode="numeric" autocomplete="one-time-code" error={problem?.fields['code']} required
            hint="The factor is verified by its first code; five wrong codes lock it out." />
          <div class="actions"><button type="submit" disabled={busy}>{busy ? 'Checking…' : 'Verify factor'}</button></div>
          <FormMessage error={problem?.message ?? (wrong ? 'Wrong code: the factor is still unverified. Type the code the app shows now.' : undefined)} extra={unplacedFields(problem, ['code'])} />
        </form>
      )}
    </section>
  );
}

function UserFactors({ appId, identity }: { appId: string; identity: string }) {
  const client = useClient();
  // A user without a factor has no entity yet: that is an empty list, not a failure.
  const state = useLoad(() => client.factors.list(appId, identity).catch((err: unknown) => {
    if (err instanceof TwofaApiError && err.status === 404 && /Entity/.test(err.text)) return [];
    throw err;
  }), [client, appId, identity]);
  const [name, setName] = useState('');
  const [made, setMade] = useState<NewFactor | null>(null);
  const { busy, problem, run } = useSubmission();
  const { notice, act } = useRowActions(state.reload);

  async function create(event: Event) {
    event.preventDefault();
    await run(async () => {
      setMade(await client.factors.create(appId, identity, { type: 'totp', friendlyName: name.trim() }));
      setName('');
      state.reload();
    });
  }

  return (
    <>
      <section class="panel narrow" aria-labelledby="new-factor">
        <h2 id="new-factor">New TOTP factor</h2>
        <form class="form" onSubmit={create} noValidate>
          <TextField id="factor-name" label="Account name shown in the app" value={name} onValue={setName} error={problem?.fields['friendlyName']} required hint="e.g. the user's email address; up to 64 characters." />
          <div class="actions"><button type="submit" disabled={busy}>{busy ? 'Making…' : 'Make TOTP factor'}</button></div>
          <FormMessage error={problem?.message} extra={unplacedFields(problem, ['friendlyName'])} />
        </form>
      </section>
      {made ? <NewFactorPanel key={made.sid} appId={appId} identity={identity} factor={made} onVerified={() => state.reload()} /> : null}
      <div role="status" aria-live="polite" class="notice" hidden={!notice}>{notice}</div>
      <Loading state={state}>
        {(factors) => factors.length === 0 ? <p class="empty">No factor yet.</p> : (
          <DataTable columns={['Factor', 'Type', 'Status', 'Name', 'Made', ACTIONS_COLUMN]}>
            {factors.map((f) => (
              <tr key={f.sid}>
                <th scope="row"><code class="id">{f.sid}</code></th>
                <td>{f.type}</td>
                <td>{f.status}{f.status === 'unverified' && f.verificationAttempts >= 5 ? ' (locked out)' : ''}</td>
                <td>{f.friendlyName}</td>
                <td>{dateTime(f.createdAt)}</td>
                <td class="row-actions">
                  <button type="button" class="danger" onClick={() => { if (window.confirm(`Delete the factor ${f.friendlyName}? The user can no longer sign in with it.`)) void act(() => client.factors.delete(appId, identity, f.sid), `Deleted ${f.friendlyName}.`); }}>
                    Delete<span class="visually-hidden"> {f.friendlyName}</span>
                  </button>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </Loading>
    </>
  );
}

function Users({ appId }: { appId: string }) {
  const client = useClient();
  const state = useLoad(() => client.factors.listEntities(appId, { limit: 200 }), [client, appId]);
  return (
    <Loading state={state}>
      {(entities) => entities.length === 0 ? <p class="empty">No user has a factor yet.</p> : (
        <DataTable columns={['User', 'Since']}>
          {entities.map((e) => (
            <tr key={e.sid}>
              <th scope="row"><Link href={`/applications/${appId}/factors/${encodeURIComponent(e.identity)}`}>{e.identity}</Link></th>
              <td>{dateTime(e.createdAt)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </Loading>
  );
}

export function FactorsPage({ appId, identity }: { appId: string; identity?: string }) {
  const [user, setUser] = useState(identity ?? '');
  const [error, setError] = useState<string | undefined>(undefined);
  function open(event: Event) {
    event.preventDefault();
    if (!IDENTITY.test(user.trim())) return setError('8 to 64 letters and digits, in groups separated by single dashes');
    setError(undefined);
    navigate(`/applications/${appId}/factors/${encodeURIComponent(user.trim())}`);
  }
  return (
    <section>
      <h1 tabIndex={-1}>{identity ? `Factors of ${identity}` : 'Users\' factors'}</h1>
      <p class="muted"><Link href={`/applications/${appId}`}>Back to the application</Link>. A user is named by your id of them (never personal data); their TOTP factors are the authenticator apps they sign in with.</p>
      <form class="form inline" onSubmit={open} noValidate>
        <TextField id="factor-identity" label="User" value={user} onValue={setUser} error={error} required hint="Your id of the user, e.g. a UUID." />
        <div class="actions"><button type="submit">Open</button></div>
      </form>
      {identity ? <UserFactors key={identity} appId={appId} identity={identity} /> : <Users appId={appId} />}
    </section>
  );
}
