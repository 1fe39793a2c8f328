// API keys of the account: create one with its scopes (the key is shown once, here), revoke one.
import { useContext, useState } from 'preact/hooks';
import type { CreatedApiKey } from '../../../src/client/index.js';
import { Checkbox, FormMessage, TextField } from '../components/fields.js';
import { Loading, useLoad } from '../components/load.js';
import { SessionContext, useClient } from '../context.js';
import { dateTime } from '../format.js';
import { unplacedFields } from '../problems.js';
import { useRowActions, useSubmission } from '../components/submission.js';
import { ACTIONS_COLUMN, DataTable } from '../components/data-table.js';

const SCOPES = [
  { scope: '2fa:manage', label: '2fa:manage: everything (applications, templates, keys, statistics, the console)' },
  { scope: '2fa:pin:send', label: '2fa:pin:send: send, resend and verify PINs' },
  { scope: '2fa:pin:approve', label: '2fa:pin:approve: with 2fa:pin:send, approve a Twilio verification without its code' },
] as const;

export function ApiKeys() {
  const client = useClient();
  const session = useContext(SessionContext);
  const state = useLoad(() => client.keys.list(), [client]);
  const [label, setLabel] = useState('');
  const [scopes, setScopes] = useState<string[]>(['2fa:pin:send']);
  const { busy, problem, setProblem, run } = useSubmission();
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const { notice, act } = useRowActions(state.reload);

  async function create(event: Event) {
    event.preventDefault();
    if (scopes.length === 0) return setProblem({ message: 'Choose at least one scope.', fields: { scopes: 'choose at least one scope' } });
    await run(async () => {
      const key = await client.keys.create({ label: label.trim() === '' ? null : label.trim(), scopes: scopes as Array<'2fa:manage'> });
      setCreated(key);
      setLabel('');
      state.reload();
    });
  }

  async function revoke(id: string, name: string) {
    if (!window.confirm(`Revoke the key ${name}? Anything using it stops working at once.`)) return;
    await act(() => client.keys.revoke(id), `Revoked ${name}.`);
  }

  const scopeError = problem?.fields['scopes'] ?? Object.entries(problem?.fields ?? {}).find(([f]) => f.startsWith('scopes.'))?.[1];
  return (
    <section>
      <h1 tabIndex={-1}>API keys</h1>
      <section class="panel narrow" aria-labelledby="new-key">
        <h2 id="new-key">New API key</h2>
        <form class="form" onSubmit={create} noValidate>
          <TextField id="key-label" label="Label" value={label} onValue={setLabel} error={problem?.fields['label']} maxLength={100} hint="What the key is for, e.g. the application that uses it." />
          <fieldset aria-describedby={scopeError ? 'scopes-error' : undefined}>
            <legend>Scopes</legend>
            {SCOPES.map((s) => (
              <Checkbox key={s.scope} id={`scope-${s.scope.replace(/:/g, '-')}`} label={s.label} checked={scopes.includes(s.scope)}
                onChecked={(on) => setScopes(on ? [...scopes, s.scope] : scopes.filter((x) => x !== s.scope))} />
            ))}
            <p id="scopes-error" class="field-error" aria-live="polite">{scopeError ?? ''}</p>
          </fieldset>
          <div class="actions"><button type="submit" disabled={busy}>{busy ? 'Creating…' : 'Create key'}</button></div>
          <FormMessage error={problem?.message} extra={unplacedFields(problem, ['label', 'scopes'])} />
        </form>
        {created ? (
          <div class="notice success secret" role="status">
            <p><strong>Copy the key now: it is not shown again.</strong></p>
            <p><label for="created-key">Key {created.label ? `“${created.label}”` : ''}</label></p>
            <input id="created-key" data-testid="created-key" readOnly value={created.key} onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} />
            <div class="actions">
              <button type="button" class="secondary" onClick={() => { void navigator.clipboard?.writeText(created.key); }}>Copy</button>
              <button type="button" class="link" onClick={() => setCreated(null)}>Done</button>
            </div>
          </div>
        ) : null}
      </section>
      <div role="status" aria-live="polite" class="notice" hidden={!notice}>{notice}</div>
      <Loading state={state}>
        {(keys) => (
          <DataTable caption="API keys of the account" columns={['Key', 'Label', 'Scopes', 'Created', 'Status', ACTIONS_COLUMN]}>
            {keys.map((k) => {
              const self = k.id === session?.me.key.id;
              return (
                <tr key={k.id}>
                  <th scope="row"><code class="id">{k.prefix}…</code></th>
                  <td>{k.label ?? <span class="muted">—</span>}</td>
                  <td>{k.scopes.join(', ')}</td>
                  <td>{dateTime(k.createdAt)}</td>
                  <td>{k.revokedAt !== null ? <span class="badge">Revoked {dateTime(k.revokedAt)}</span> : self ? <span class="badge ok">This session</span> : <span class="badge ok">Active</span>}</td>
                  <td>{k.revokedAt === null && !self ? <button type="button" class="danger" onClick={() => revoke(k.id, k.label ?? k.prefix)}>Revoke<span class="visually-hidden"> {k.label ?? k.prefix}</span></button> : null}</td>
                </tr>
              );
            })}
          </DataTable>
        )}
      </Loading>
    </section>
  );
}
