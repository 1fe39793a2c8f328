// Passkeys of an application's users, tried from this browser: set the relying party (this page's
// domain and origin by default), register a passkey for a user, then approve a challenge with it.
// The ceremonies run in this browser (@simplewebauthn/browser) against the same use cases as
// Twilio's /Passkeys routes: what is registered here answers Twilio's challenges too.
import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { useEffect, useState } from 'preact/hooks';
import type { Application, PasskeySettings } from '../../../src/client/index.js';
import { FormMessage, SelectField, TextField } from '../components/fields.js';
import { Loading, useLoad } from '../components/load.js';
import { useSubmission } from '../components/submission.js';
import { useClient } from '../context.js';
import { problemOf, unplacedFields, type Problem } from '../problems.js';
import { Link, useLocation } from '../router.js';

const LEVELS = ['required', 'preferred', 'discouraged'].map((v) => ({ value: v, label: v }));
const ATTACHMENTS = [
  { value: 'any', label: 'any (this device or a security key)' },
  { value: 'platform', label: 'platform (this device)' },
  { value: 'cross-platform', label: 'cross-platform (a security key or phone)' },
];

function RelyingPartyForm({ appId, settings, onSaved }: { appId: string; settings: PasskeySettings; onSaved: (s: PasskeySettings) => void }) {
  const client = useClient();
  const rp = settings.relyingParty;
  const [id, setId] = useState(rp.id ?? window.location.hostname);
  const [name, setName] = useState(rp.name ?? '');
  const [origins, setOrigins] = useState((rp.origins ?? [window.location.origin]).join(' '));
  const [attachment, setAttachment] = useState(settings.authenticatorAttachment ?? 'any');
  const [discoverable, setDiscoverable] = useState(settings.discoverableCredentials ?? 'preferred');
  const [verification, setVerification] = useState(settings.userVerification ?? 'preferred');
  const { busy, problem, run } = useSubmission();
  const [saved, setSaved] = useState(false);

  async function save(event: Event) {
    event.preventDefault();
    setSaved(false);
    await run(async () => {
      onSaved(await client.passkeys.updateSettings(appId, {
        relyingParty: { id: id.trim(), name: name.trim() === '' ? null : name.trim(), origins: origins.split(/[\s,]+/).filter((o) => o !== '') },
        authenticatorAttachment: attachment, discoverableCredentials: discoverable, userVerification: verification,
      }));
      setSaved(true);
    });
  }

  const fields = ['relyingParty.id', 'relyingParty.name', 'relyingParty.origins', 'authenticatorAttachment', 'discoverableCredentials', 'userVerification'];
  return (
    <section class="panel narrow" aria-labelledby="relying-party">
      <h2 id="relying-party">Relying party</h2>
      <form class="form" onSubmit={save} noValidate aria-label="Relying party">
        <TextField id="rp-id" label="Relying party id" value={id} onValue={setId} error={problem?.fields['relyingParty.id']} required
          hint="The site's domain, without scheme or port: passkeys work on it and its subdomains." />
        <TextField id="rp-name" label="Relying party name" value={name} onValue={setName} error={problem?.fields['relyingParty.name']} hint="Shown by the authenticator; the id when empty." />
        <TextField id="rp-origins" label="Origins" value={origins} onValue={setOrigins} error={problem?.fields['relyingParty.origins']} required
          hint="The pages that may use the passkeys, separated by spaces: https://example.com (http only on localhost)." />
        <SelectField id="rp-attachment" label="Authenticator attachment" value={attachment} onValue={setAttachment} options={ATTACHMENTS} error={problem?.fields['authenticatorAttachment']} />
        <SelectField id="rp-discoverable" label="Discoverable credentials" value={discoverable} onValue={setDiscoverable} options={LEVELS} error={problem?.fields['discoverableCredentials']} />
        <SelectField id="rp-verification" label="User verification" value={verification} onValue={setVerification} options={LEVELS} error={problem?.fields['userVerification']} />
        <div class="actions"><button type="submit" disabled={busy}>{busy ? 'Saving…' : 'Save relying party'}</button></div>
        <FormMessage error={problem?.message} extra={unplacedFields(problem, fields)} />
        <div role="status" aria-live="polite">{saved ? <p class="notice success">Saved.</p> : null}</div>
      </form>
    </section>
  );
}

function Ceremonies({ appId }: { appId: string }) {
  const client = useClient();
  const [identity, setIdentity] = useState('');
  const [friendlyName, setFriendlyName] = useState('');
  const registration = useSubmission();
  const approval = useSubmission();
  const [registered, setRegistered] = useState<{ factorSid: string; identity: string } | null>(null);
  const [approved, setApproved] = useState<{ challengeSid: string; identity: string | null } | null>(null);

  async function register(event: Event) {
    event.preventDefault();
    setRegistered(null);
    await registration.run(async () => {
      const factor = await client.passkeys.create(appId, { identity: identity.trim(), friendlyName: friendlyName.trim() });
      const credential = await startRegistration({ optionsJSON: factor.options!.publicKey as Parameters<typeof startRegistration>[0]['optionsJSON'] });
      const verified = await client.passkeys.verify(appId, credential);
      setRegistered({ factorSid: verified.factorSid, identity: verified.identity });
    });
  }

  async function approve(event: Event) {
    event.preventDefault();
    setApproved(null);
    await approval.run(async () => {
      const user = identity.trim();
      const challenge = await client.passkeys.createChallenge(appId, user === '' ? {} : { identity: user });
      const assertion = await startAuthentication({ optionsJSON: challenge.options!.publicKey as Parameters<typeof startAuthentication>[0]['optionsJSON'] });
      const answered = await client.passkeys.approveChallenge(appId, assertion);
      setApproved({ challengeSid: answered.challengeSid, identity: answered.identity });
    });
  }

  return (
    <>
      <section class="panel narrow" aria-labelledby="register-passkey">
        <h2 id="register-passkey">Register a passkey</h2>
        <form class="form" onSubmit={register} noValidate aria-label="Register a passkey">
          <TextField id="passkey-identity" label="User identity" value={identity} onValue={setIdentity} error={registration.problem?.fields['identity']} required autoComplete="off"
            hint="Your id of the user: 8 to 64 letters and digits, dash-separated (no email address or name)." />
          <TextField id="passkey-name" label="Passkey name" value={friendlyName} onValue={setFriendlyName} error={registration.problem?.fields['friendly_name']} required autoComplete="off"
            hint="The authenticator shows it as the user's name, e.g. Ann's laptop." />
          <div class="actions"><button type="submit" disabled={registration.busy}>{registration.busy ? 'Waiting for the passkey…' : 'Register a passkey'}</button></div>
          <FormMessage error={registration.problem?.message} extra={unplacedFields(registration.problem, ['identity', 'friendly_name'])} />
          <div role="status" aria-live="polite">
            {registered ? <p class="notice success" data-testid="passkey-registered">Passkey registered for <strong>{registered.identity}</strong>: factor <code class="id">{registered.factorSid}</code>, verified.</p> : null}
          </div>
        </form>
      </section>
      <section class="panel narrow" aria-labelledby="approve-challenge">
        <h2 id="approve-challenge">Approve a challenge</h2>
        <form class="form" onSubmit={approve} noValidate aria-label="Approve a challenge">
          <p class="muted">Asks for a passkey of the user above, or of any user when the identity is empty (a discoverable passkey names its user), and approves the challenge with it.</p>
          <div class="actions"><button type="submit" disabled={approval.busy}>{approval.busy ? 'Waiting for the passkey…' : 'Sign in with a passkey'}</button></div>
          <FormMessage error={approval.problem?.message} extra={unplacedFields(approval.problem, [])} />
          <div role="status" aria-live="polite">
            {approved ? <p class="notice success" data-testid="challenge-approved">Challenge <code class="id">{approved.challengeSid}</code> approved{approved.identity !== null ? <> for <strong>{approved.identity}</strong></> : null}.</p> : null}
          </div>
        </form>
      </section>
    </>
  );
}

function ApplicationPasskeys({ apps }: { apps: Application[] }) {
  const client = useClient();
  const { query } = useLocation();
  const [appId, setAppId] = useState(query.get('applicationId') ?? apps[0]?.applicationId ?? '');
  const [settings, setSettings] = useState<PasskeySettings | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);

  useEffect(() => {
    if (appId === '') return;
    let current = true;
    setSettings(null);
    client.passkeys.getSettings(appId).then((s) => current && setSettings(s), (e: unknown) => current && setProblem(problemOf(e)));
    return () => { current = false; };
  }, [client, appId]);

  if (apps.length === 0) return <p class="empty">No application yet. <Link href="/applications">Create one</Link> first.</p>;
  const ready = settings !== null && settings.relyingParty.id !== null && (settings.relyingParty.origins ?? []).length > 0;
  return (
    <>
      <div class="panel narrow">
        <SelectField id="passkeys-application" label="Application" value={appId} onValue={setAppId} options={apps.map((a) => ({ value: a.applicationId, label: a.name }))} />
        <FormMessage error={problem?.message} extra={[]} />
      </div>
      {settings ? <RelyingPartyForm key={appId} appId={appId} settings={settings} onSaved={setSettings} /> : null}
      {ready ? <Ceremonies key={appId} appId={appId} /> : <p class="muted">Save the relying party to register passkeys.</p>}
    </>
  );
}

export function Passkeys() {
  const client = useClient();
  const state = useLoad(() => client.applications.list(), [client]);
  return (
    <section>
      <h1 tabIndex={-1}>Passkeys</h1>
      <p class="muted">
        An application's users sign in with passkeys (WebAuthn) through Twilio's <code>/Passkeys</code> routes or <code>/api/v1</code>. Try it here: this browser registers a
        passkey and approves a challenge with it, on the relying party below (this page's domain by default).
      </p>
      <Loading state={state}>{(apps) => <ApplicationPasskeys apps={apps} />}</Loading>
    </section>
  );
}
