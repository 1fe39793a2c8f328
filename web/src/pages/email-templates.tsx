import { Loading, useLoad } from '../components/load.js';
import { useClient } from '../context.js';
import { dateTime } from '../format.js';
import { Link } from '../router.js';
import { DataTable } from '../components/data-table.js';

export function EmailTemplates() {
  const client = useClient();
  const state = useLoad(() => client.emailTemplates.list(), [client]);
  return (
    <section>
      <div class="page-head">
        <h1 tabIndex={-1}>Email templates</h1>
        <Link class="button" href="/email-templates/new">New email template</Link>
      </div>
      <p class="muted">The emails that 2FA email messages (<code>emailTemplateId</code>) send: subject, HTML and text, with <code>{'{{pin}}'}</code> and other placeholders.</p>
      <Loading state={state}>
        {(templates) => templates.length === 0 ? <p class="empty">No email template yet.</p> : (
          <DataTable columns={['Name', 'Subject', 'Sender', 'Id', 'Updated']}>
            {templates.map((t) => (
              <tr key={t.id}>
                <th scope="row"><Link href={`/email-templates/${t.id}`}>{t.name}</Link></th>
                <td>{t.subject}</td>
                <td>{t.from ?? <span class="muted">default</span>}</td>
                <td><code class="id">{t.id}</code></td>
                <td>{dateTime(t.updatedAt)}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </Loading>
    </section>
  );
}
