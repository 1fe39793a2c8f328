import { Loading, useLoad } from '../components/load.js';
import { useClient } from '../context.js';
import { dateTime } from '../format.js';
import { Link } from '../router.js';

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
          <div class="table-wrap">
            <table>
              <thead><tr><th scope="col">Name</th><th scope="col">Subject</th><th scope="col">Sender</th><th scope="col">Id</th><th scope="col">Updated</th></tr></thead>
              <tbody>
                {templates.map((t) => (
                  <tr key={t.id}>
                    <th scope="row"><Link href={`/email-templates/${t.id}`}>{t.name}</Link></th>
                    <td>{t.subject}</td>
                    <td>{t.from ?? <span class="muted">default</span>}</td>
                    <td><code class="id">{t.id}</code></td>
                    <td>{dateTime(t.updatedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loading>
    </section>
  );
}
