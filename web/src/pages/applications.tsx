import { useState } from 'preact/hooks';
import { ApplicationForm, valuesOf } from '../components/application-form.js';
import { Loading, useLoad } from '../components/load.js';
import { useClient } from '../context.js';
import { Link, navigate } from '../router.js';
import { DataTable } from '../components/data-table.js';

export function Applications() {
  const client = useClient();
  const [creating, setCreating] = useState(false);
  const state = useLoad(() => client.applications.list(), [client]);

  return (
    <section>
      <div class="page-head">
        <h1 tabIndex={-1}>Applications</h1>
        {!creating ? <button type="button" onClick={() => setCreating(true)}>New application</button> : null}
      </div>
      {creating ? (
        <section class="panel" aria-labelledby="new-app">
          <h2 id="new-app">New application</h2>
          <ApplicationForm initial={valuesOf()} submitLabel="Create application" onSubmit={async (request) => {
            const app = await client.applications.create(request);
            navigate(`/applications/${app.applicationId}`);
            return `Created ${app.name}.`;
          }} />
          <button type="button" class="link" onClick={() => setCreating(false)}>Cancel</button>
        </section>
      ) : null}
      <Loading state={state}>
        {(apps) => apps.length === 0 ? <p class="empty">No application yet. Create one to send PINs.</p> : (
          <DataTable caption="Applications" columns={['Name', 'Status', 'PIN lifetime', 'Attempts', 'Sends per destination', 'Id']}>
            {apps.map((app) => (
              <tr key={app.applicationId}>
                <th scope="row"><Link href={`/applications/${app.applicationId}`}>{app.name}</Link></th>
                <td>{app.enabled ? <span class="badge ok">Enabled</span> : <span class="badge">Disabled</span>}</td>
                <td>{app.configuration.pinTimeToLive}</td>
                <td>{app.configuration.pinAttempts}</td>
                <td>{app.configuration.sendPinPerPhoneNumberLimit}</td>
                <td><code class="id">{app.applicationId}</code></td>
              </tr>
            ))}
          </DataTable>
        )}
      </Loading>
    </section>
  );
}
