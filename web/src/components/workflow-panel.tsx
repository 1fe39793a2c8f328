// The application's workflow (/api/v1/applications/{appId}/workflow): the channels a PIN goes out on
// in turn, written as the CLI takes them ("whatsapp, sms:30s, voice:60s"); saved or removed here, and
// checked by the server, whose field errors (steps[1].after, ...) are shown as they come.
import { useState } from 'preact/hooks';
import type { Workflow } from '../../../src/client/index.js';
import { useClient } from '../context.js';
import { unplacedFields } from '../problems.js';
import { FormMessage, TextField } from './fields.js';
import { Loading, useLoad } from './load.js';
import { useSubmission } from './submission.js';

const textOf = (w: Workflow) => w.steps.map((s) => (s.after ? `${s.channel}:${s.after}` : s.channel)).join(', ');

function stepsOf(text: string): Workflow['steps'] {
  return text.split(/[\s,;]+/).filter((t) => t !== '').map((t) => {
    const [channel = '', after] = t.split(':');
    return after === undefined ? { channel } : { channel, after };
  });
}

function WorkflowForm({ appId, workflow, onSaved }: { appId: string; workflow: Workflow; onSaved: (w: Workflow) => void }) {
  const client = useClient();
  const [text, setText] = useState(textOf(workflow));
  const { busy, problem, run: submit } = useSubmission();
  const [success, setSuccess] = useState<string | null>(null);

  async function run(work: () => Promise<Workflow>, done: string) {
    await submit(async () => {
      const saved = await work();
      setSuccess(done);
      setText(textOf(saved));
      onSaved(saved);
    });
  }

  const save = (event: Event) => {
    event.preventDefault();
    void run(() => client.workflows.set(appId, { steps: stepsOf(text) }), 'Workflow saved: new PINs follow it.');
  };
  const remove = () => void run(async () => {
    await client.workflows.delete(appId);
    return { steps: [] };
  }, 'Workflow removed: new PINs go out on the channel asked for.');

  return (
    <form class="form" onSubmit={save} noValidate aria-label="Workflow">
      <TextField id="workflow-steps" label="Steps" value={text} onValue={(v) => { setText(v); setSuccess(null); }} error={problem?.fields['steps']}
        hint="Channels in turn: the first goes at once, each next one after its delay unless the PIN was verified, e.g. whatsapp, sms:30s, voice:60s. A failed delivery goes to the next step at once." />
      <div class="actions">
        <button type="submit" disabled={busy}>{busy ? 'Saving…' : 'Save workflow'}</button>
        {workflow.steps.length > 0 ? <button type="button" class="secondary" disabled={busy} onClick={remove}>Remove workflow</button> : null}
      </div>
      <FormMessage error={problem?.message} extra={unplacedFields(problem, ['steps'])} success={success} />
    </form>
  );
}

export function WorkflowPanel({ appId }: { appId: string }) {
  const client = useClient();
  const state = useLoad(() => client.workflows.get(appId), [client, appId]);
  const [latest, setLatest] = useState<Workflow | null>(null);
  return (
    <section class="panel" aria-labelledby="workflow-title">
      <h2 id="workflow-title">Workflow</h2>
      <Loading state={state}>
        {(loaded) => {
          const workflow = latest ?? loaded;
          return (
            <>
              {workflow.steps.length === 0 ? <p class="empty">No workflow: each PIN goes out on the channel its request names.</p> : (
                <ol aria-label="Workflow steps">
                  {workflow.steps.map((s, i) => <li key={i}><strong>{s.channel}</strong> <span class="muted">{s.after ? `${s.after} after the step before` : 'at once'}</span></li>)}
                </ol>
              )}
              <WorkflowForm appId={appId} workflow={workflow} onSaved={setLatest} />
            </>
          );
        }}
      </Loading>
    </section>
  );
}
