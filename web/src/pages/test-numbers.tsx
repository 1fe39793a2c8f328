// Test numbers: destinations whose sends deliver nothing and whose fixed code verifies (app-store
// review, end-to-end tests). The code is sent once, stored encrypted, and never shown again.
import { useState } from 'preact/hooks';
import { FormMessage, TextField } from '../components/fields.js';
import { Loading, useLoad } from '../components/load.js';
import { useClient } from '../context.js';
import { dateTime } from '../format.js';
import { unplacedFields } from '../problems.js';
import { useRowActions, useSubmission } from '../components/submission.js';
import { ACTIONS_COLUMN, DataTable } from '../components/data-table.js';

export function TestNumbers() {
  const client = useClient();
  const state = useLoad(() => client.testNumbers.list(), [client]);
  const [destination, setDestination] = useState('');
  const [code, setCode] = useState('');
  const { busy, problem, run } = useSubmission();
  const { notice, setNotice, act } = useRowActions(state.reload);

  async function add(event: Event) {
    event.preventDefault();
    await run(async () => {
      const added = await client.testNumbers.create({ destination: destination.trim(), code: code.trim() });
      setDestination('');
      setCode('');
      setNotice(`Added ${added.destination}.`);
      state.reload();
    });
  }

  const remove = (id: string, shown: string) => act(() => client.testNumbers.delete(id), `Removed ${shown}.`);

  return (
    <section>
      <h1 tabIndex={-1}>Test numbers</h1>
      <p class="muted">Sends to a test number are recorded but deliver nothing, and its fixed code verifies: for app-store review and end-to-end tests. They count against the send limits like any destination and are left out of the dashboard's figures.</p>
      <section class="panel narrow" aria-labelledby="new-test-number">
        <h2 id="new-test-number">New test number</h2>
        <form class="form" onSubmit={add} noValidate>
          <TextField id="test-destination" label="Phone number or email address" value={destination} onValue={setDestination} error={problem?.fields['destination']} required hint="International digits, e.g. 41790000001, or an email address." />
          <TextField id="test-code" label="Fixed code" value={code} onValue={setCode} error={problem?.fields['code']} required hint="4 to 16 letters or digits; it is not shown again." />
          <div class="actions"><button type="submit" disabled={busy}>{busy ? 'Adding…' : 'Add test number'}</button></div>
          <FormMessage error={problem?.message} extra={unplacedFields(problem, ['destination', 'code'])} />
        </form>
      </section>
      <div role="status" aria-live="polite" class="notice" hidden={!notice}>{notice}</div>
      <Loading state={state}>
        {(numbers) => numbers.length === 0 ? <p class="empty">No test number.</p> : (
          <DataTable columns={['Destination', 'Added', ACTIONS_COLUMN]}>
            {numbers.map((t) => (
              <tr key={t.id}>
                <th scope="row"><code class="id">{t.destination}</code></th>
                <td>{dateTime(t.createdAt)}</td>
                <td class="row-actions">
                  <button type="button" class="danger" onClick={() => { if (window.confirm(`Remove the test number ${t.destination}? Its later sends will be delivered.`)) void remove(t.id, t.destination); }}>
                    Remove<span class="visually-hidden"> {t.destination}</span>
                  </button>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </Loading>
    </section>
  );
}
