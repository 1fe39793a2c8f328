// Vonage applications: the twofa applications whose Vonage Verify calls (/v2/verify) log in with a
// JWT signed by the private half of a registered RSA key, and whose callbacks (event, summary) go to
// their callback URL signed with their signature secret. A secret is shown once, in the answer that
// made it (the first callback URL, a rotation); a lost one is rotated.
import { useState } from 'preact/hooks';
import type { VonageApplication } from '../../../src/client/index.js';
import { DataTable, ACTIONS_COLUMN } from '../components/data-table.js';
import { FormMessage, SelectField, TextArea, TextField } from '../components/fields.js';
import { Loading, useLoad } from '../components/load.js';
import { useRowActions, useSubmission } from '../components/submission.js';
import { useClient } from '../context.js';
import { dateTime } from '../format.js';
import { unplacedFields } from '../problems.js';

/** A secret just made, shown until the operator dismisses it. */
function SecretShown({ shown, onDone }: { shown: { applicationId: string; secret: string }; onDone: () => void }) {
  return (
    <div class="notice success secret" role="status">
      <p><strong>Copy the signature secret now: it is not shown again.</strong> Your callback receiver checks each callback's JWT with it (@vonage/jwt's verifySignature).</p>
      <p><label for="signature-secret">Signature secret of {shown.applicationId}</label></p>
      <input id="signature-secret" data-testid="signature-secret" readOnly value={shown.secret} onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} />
      <div class="actions">
        <button type="button" class="secondary" onClick={() => { void navigator.clipboard?.writeText(shown.secret); }}>Copy</button>
        <button type="button" class="link" onClick={onDone}>Done</button>
      </div>
    </div>
  );
}

export function VonageApplications() {
  const client = useClient();
  const state = useLoad(async () => {
    const [applications, vonage] = await Promise.all([client.applications.list(), client.vonage.listApplications()]);
    return { applications, vonage };
  }, [client]);
  const [applicationId, setApplicationId] = useState('');
  const [publicKey, setPublicKey] = useState('');
  const [callbackUrl, setCallbackUrl] = useState('');
  const [secret, setSecret] = useState<{ applicationId: string; secret: string } | null>(null);
  const { busy, problem, run } = useSubmission();
  const { notice, setNotice, act } = useRowActions(state.reload);

  function edit(app: VonageApplication) {
    setApplicationId(app.applicationId);
    setPublicKey('');
    setCallbackUrl(app.callbackUrl ?? '');
    document.getElementById('vonage-application')?.focus();
  }

  async function save(event: Event, registered: boolean) {
    event.preventDefault();
    await run(async () => {
      const key = publicKey.trim();
      const url = callbackUrl.trim();
      // A registered application keeps its key when the field is left empty; a new one needs it.
      const saved = await client.vonage.updateApplication(applicationId, {
        ...(key !== '' || !registered ? { publicKey: key } : {}), ...(url !== '' || registered ? { callbackUrl: url } : {}),
      });
      if (saved.signatureSecret !== undefined) setSecret({ applicationId: saved.applicationId, secret: saved.signatureSecret });
      setPublicKey('');
      setNotice(`Saved the Vonage application ${saved.applicationId}.`);
      state.reload();
    });
  }

  const rotate = (id: string) => act(async () => {
    const rotated = await client.vonage.rotateSignatureSecret(id);
    if (rotated.signatureSecret !== undefined) setSecret({ applicationId: id, secret: rotated.signatureSecret });
  }, `Made a new signature secret for ${id}: callbacks are signed with it from now on.`);
  const remove = (id: string) => act(() => client.vonage.deleteApplication(id), `Removed the Vonage application ${id}: its JWTs no longer log in.`);

  return (
    <section>
      <h1 tabIndex={-1}>Vonage applications</h1>
      <p class="muted">A Vonage application is a twofa application whose Vonage Verify calls (/v2/verify) log in with a JWT signed by the private half of its public key, and whose callbacks (event, summary) go to its callback URL, signed with its signature secret.</p>
      <Loading state={state}>
        {({ applications, vonage }) => {
          const registered = vonage.some((v) => v.applicationId === applicationId);
          const nameOf = (id: string) => applications.find((a) => a.applicationId === id)?.name ?? id;
          return (
            <>
              <section class="panel narrow" aria-labelledby="vonage-form">
                <h2 id="vonage-form">{registered ? 'Change a Vonage application' : 'Register a Vonage application'}</h2>
                <form class="form" onSubmit={(e) => void save(e, registered)} noValidate>
                  <SelectField id="vonage-application" label="Application" value={applicationId} onValue={(v) => { setApplicationId(v); setCallbackUrl(vonage.find((x) => x.applicationId === v)?.callbackUrl ?? ''); }}
                    error={problem?.fields['applicationId']}
                    options={[{ value: '', label: 'Choose an application' }, ...applications.map((a) => ({ value: a.applicationId, label: `${a.name}${vonage.some((v) => v.applicationId === a.applicationId) ? ' (registered)' : ''}` }))]} />
                  <TextArea id="vonage-public-key" label="Public key" value={publicKey} onValue={setPublicKey} error={problem?.fields['publicKey']} rows={6}
                    hint={registered ? 'Leave empty to keep the registered key; a new one ends the JWTs of the old one at once.' : 'The PEM of an RSA public key (-----BEGIN PUBLIC KEY-----), e.g. from: openssl pkey -in private.key -pubout'} />
                  <TextField id="vonage-callback-url" label="Callback URL" value={callbackUrl} onValue={setCallbackUrl} error={problem?.fields['callbackUrl']}
                    hint="Where the Verify callbacks go (https). Empty: none are sent. The first one comes with a new signature secret." />
                  <div class="actions"><button type="submit" disabled={busy || applicationId === ''}>{busy ? 'Saving…' : registered ? 'Save changes' : 'Register'}</button></div>
                  <FormMessage error={problem?.message} extra={unplacedFields(problem, ['applicationId', 'publicKey', 'callbackUrl'])} />
                </form>
                {secret ? <SecretShown shown={secret} onDone={() => setSecret(null)} /> : null}
              </section>
              <div role="status" aria-live="polite" class="notice" hidden={!notice}>{notice}</div>
              {vonage.length === 0 ? <p class="empty">No Vonage application.</p> : (
                <DataTable columns={['Application', 'Callback URL', 'Signature secret', 'Updated', ACTIONS_COLUMN]}>
                  {vonage.map((v) => (
                    <tr key={v.applicationId}>
                      <th scope="row">{nameOf(v.applicationId)}<br /><code class="id">{v.applicationId}</code></th>
                      <td>{v.callbackUrl ?? <span class="muted">none</span>}</td>
                      <td>{v.signatureSecretSet ? 'set' : <span class="muted">none</span>}</td>
                      <td>{dateTime(Date.parse(v.updatedAt))}</td>
                      <td class="row-actions">
                        <button type="button" class="secondary" onClick={() => edit(v)}>Change<span class="visually-hidden"> {v.applicationId}</span></button>
                        <button type="button" class="secondary" onClick={() => void rotate(v.applicationId)}>Rotate secret<span class="visually-hidden"> {v.applicationId}</span></button>
                        <button type="button" class="danger" onClick={() => { if (window.confirm(`Remove the Vonage application ${v.applicationId}? Its JWTs no longer log in and its callbacks stop.`)) void remove(v.applicationId); }}>
                          Remove<span class="visually-hidden"> {v.applicationId}</span>
                        </button>
                      </td>
                    </tr>
                  ))}
                </DataTable>
              )}
            </>
          );
        }}
      </Loading>
    </section>
  );
}
