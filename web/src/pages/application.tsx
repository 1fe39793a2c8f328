// One application: its configuration (edited with inline checks), the brute-force budget those
// settings leave an attacker, and its message templates.
import { useState } from 'preact/hooks';
import type { Application, Message } from '../../../src/client/index.js';
import { ApplicationForm, checkApplication, toRequest, valuesOf, type ApplicationValues } from '../components/application-form.js';
import { Loading, useLoad } from '../components/load.js';
import { SecurityPanel } from '../components/security-panel.js';
import { SpendBudgetPanel } from '../components/budget-panel.js';
import { WorkflowPanel } from '../components/workflow-panel.js';
import { useClient } from '../context.js';
import { bruteForceBudget, lifetime, oneIn } from '../brute-force.js';
import { Link } from '../router.js';
import { DataTable } from '../components/data-table.js';

/** The service warns above this worst-case chance per destination and day (src/domain/security-settings.ts). */
const WARN_ABOVE = 1 / 10_000;

function BudgetPanel({ values, templates }: { values: ApplicationValues; templates: Message[] }) {
  const valid = Object.keys(checkApplication(values)).length === 0;
  const budget = valid ? bruteForceBudget(toRequest(values).configuration ?? {}, templates) : null;
  return (
    <aside class="panel budget" aria-labelledby="budget-title" aria-live="polite">
      <h2 id="budget-title">Brute-force budget</h2>
      {!valid ? <p class="muted">Correct the settings to see what they allow.</p>
        : !budget ? <p class="muted">Add a message template: the budget depends on the PIN's type and length.</p> : (
          <dl class="facts">
            <dt>Weakest PIN</dt><dd>{budget.weakest.pinLength} × {budget.weakest.pinType.toLowerCase()} ({budget.pinSpace.toLocaleString()} possible PINs)</dd>
            <dt>Guesses per PIN</dt><dd>{budget.attemptsPerPin} within {lifetime(values.pinTimeToLive)}</dd>
            <dt>Chance per PIN</dt><dd>{oneIn(budget.perPin)}</dd>
            <dt>PINs per destination per day</dt><dd>{Number.isFinite(budget.pinsPerDay) ? budget.pinsPerDay.toLocaleString() : 'unlimited'}</dd>
            <dt>Chance per destination per day</dt><dd class={budget.perDestinationDay > WARN_ABOVE ? 'warn' : ''}>{oneIn(budget.perDestinationDay)}</dd>
          </dl>
        )}
      {budget && budget.perDestinationDay > WARN_ABOVE ? <p class="warn">More than one in ten thousand: lower the attempts or the sends per destination, or lengthen the PIN.</p> : null}
    </aside>
  );
}

function Editor({ app, templates }: { app: Application; templates: Message[] }) {
  const client = useClient();
  const [values, setValues] = useState(valuesOf(app));
  return (
    <div class="with-aside">
      <section class="panel" aria-labelledby="settings-title">
        <h2 id="settings-title">Settings</h2>
        <ApplicationForm initial={valuesOf(app)} submitLabel="Save changes" onChange={setValues} onSubmit={async (request) => {
          const saved = await client.applications.update(app.applicationId, request);
          return `Saved ${saved.name}.`;
        }} />
      </section>
      <BudgetPanel values={values} templates={templates} />
    </div>
  );
}

export function ApplicationPage({ appId }: { appId: string }) {
  const client = useClient();
  const state = useLoad(async () => {
    const [app, templates] = await Promise.all([client.applications.get(appId), client.messages.list(appId)]);
    return { app, templates };
  }, [client, appId]);

  return (
    <section>
      <p class="breadcrumbs"><Link href="/applications">Applications</Link> ›</p>
      <Loading state={state}>
        {({ app, templates }) => (
          <>
            <div class="page-head">
              <h1 tabIndex={-1}>{app.name}</h1>
              <code class="id" title="Application id">{app.applicationId}</code>
            </div>
            <Editor app={app} templates={templates} />
            <section class="panel" aria-labelledby="templates-title">
              <div class="page-head">
                <h2 id="templates-title">Message templates</h2>
                <div class="toolbar">
                  <Link class="button" href={`/applications/${app.applicationId}/templates/new?kind=sms`}>New SMS/voice template</Link>
                  <Link class="button" href={`/applications/${app.applicationId}/templates/new?kind=email`}>New email template message</Link>
                </div>
              </div>
              {templates.length === 0 ? <p class="empty">No template yet: a PIN is sent with a template.</p> : (
                <DataTable columns={['Kind', 'Text or email template', 'PIN', 'Id']}>
                  {templates.map((t) => (
                    <tr key={t.messageId}>
                      <td>{t.emailTemplateId !== undefined ? 'Email' : 'SMS/voice'}</td>
                      <th scope="row"><Link href={`/applications/${app.applicationId}/templates/${t.messageId}`}>
                        {t.emailTemplateId !== undefined ? `Email template #${t.emailTemplateId}` : t.messageText}
                      </Link></th>
                      <td>{t.pinLength} × {t.pinType.toLowerCase()}</td>
                      <td><code class="id">{t.messageId}</code></td>
                    </tr>
                  ))}
                </DataTable>
              )}
            </section>
            <WorkflowPanel appId={app.applicationId} />
            <section class="panel" aria-labelledby="factors-title">
              <h2 id="factors-title">Users' factors</h2>
              <p>TOTP factors (authenticator apps) of the application's users: <Link href={`/applications/${app.applicationId}/factors`}>manage them</Link>.</p>
            </section>
            <SecurityPanel appId={app.applicationId} />
            <SpendBudgetPanel appId={app.applicationId} />
          </>
        )}
      </Loading>
    </section>
  );
}
