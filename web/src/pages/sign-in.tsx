import { useState } from 'preact/hooks';
import { TextField, FormMessage } from '../components/fields.js';
import { problemOf, type Problem } from '../problems.js';
import { signIn, type Session } from '../session.js';

export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [apiKey, setApiKey] = useState('');
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    if (apiKey.trim() === '') {
      setProblem({ message: 'Enter an API key.', fields: { apiKey: 'is required' } });
      return;
    }
    setBusy(true);
    try {
      onSignedIn(await signIn(apiKey));
    } catch (error) {
      const p = problemOf(error);
      setProblem(p.fields['apiKey'] ? p : { message: p.message, fields: { apiKey: p.message } });
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" class="sign-in">
      <form onSubmit={submit} noValidate aria-labelledby="sign-in-title">
        <div class="brand large"><span aria-hidden="true">◆</span> twofa <span class="muted">console</span></div>
        <h1 id="sign-in-title" tabIndex={-1}>Sign in</h1>
        <p>Sign in with an API key that has the <code>2fa:manage</code> scope. It stays in this browser tab only, until you sign out or close the tab.</p>
        <TextField
          id="apiKey" label="API key" type="password" autoComplete="off" spellcheck={false} required
          value={apiKey} onValue={setApiKey} error={problem?.fields['apiKey']}
          hint={<>Created with <code>twofa keys create</code>, or shown once on the first start.</>}
        />
        <button type="submit" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
        <FormMessage error={problem && !problem.fields['apiKey'] ? problem.message : null} />
      </form>
    </main>
  );
}
