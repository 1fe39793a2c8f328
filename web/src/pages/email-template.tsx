// An email template (the "web portal" resource emailTemplateId names): edited beside a live preview
// of the mail as the recipient sees it, with a sample PIN and sample placeholder values.
import { useState } from 'preact/hooks';
import type { EmailTemplate } from '../../../src/client/index.js';
import { PIN_PLACEHOLDER } from '../../../src/domain/template-rendering.js';
import { FormMessage, TextArea, TextField } from '../components/fields.js';
import { Loading, useLoad } from '../components/load.js';
import { useClient } from '../context.js';
import { EmailPreview, fill, PlaceholderInputs, samplePin, samplePlaceholders } from '../preview.js';
import { unplacedFields } from '../problems.js';
import { Link, navigate } from '../router.js';
import { useSubmission } from '../components/submission.js';

const STARTER_HTML = '<p>Hello {{name}},</p>\n<p>Your verification code is <strong>{{pin}}</strong>.</p>';

function Editor({ existing }: { existing?: EmailTemplate }) {
  const client = useClient();
  const [name, setName] = useState(existing?.name ?? '');
  const [from, setFrom] = useState(existing?.from ?? '');
  const [subject, setSubject] = useState(existing?.subject ?? 'Your verification code');
  const [html, setHtml] = useState(existing?.html ?? (existing ? '' : STARTER_HTML));
  const [text, setText] = useState(existing?.text ?? (existing ? '' : 'Hello {{name}}, your verification code is {{pin}}.'));
  const [samples, setSamples] = useState<Record<string, string>>({ name: 'Ann' });
  const { busy, problem, setProblem, run } = useSubmission();
  const [success, setSuccess] = useState<string | null>(null);

  const local: Record<string, string> = {};
  if (name.trim() === '') local['name'] = 'must not be blank';
  if (subject.trim() === '') local['subject'] = 'must not be blank';
  if (html.trim() === '' && text.trim() === '') local['text'] = 'give an HTML body, a text body, or both';
  else if (![subject, html, text].some((t) => t.includes(PIN_PLACEHOLDER))) local['text'] = `the subject, HTML or text must contain ${PIN_PLACEHOLDER}`;
  const [touched, setTouched] = useState(false);
  const error = (field: string) => (touched ? local[field] : undefined) ?? problem?.fields[field];
  const edit = (f: (v: string) => void) => (v: string) => { f(v); setTouched(true); setSuccess(null); };
  const names = samplePlaceholders([subject, html, text]);

  async function submit(event: Event) {
    event.preventDefault();
    setTouched(true);
    if (Object.keys(local).length > 0) return setProblem({ message: 'Correct the fields marked below.', fields: {} });
    const body = { name, subject, from: from === '' ? null : from, html: html === '' ? null : html, text: text === '' ? null : text };
    await run(async () => {
      const saved = existing ? await client.emailTemplates.update(existing.id, body) : await client.emailTemplates.create(body);
      setSuccess(existing ? 'Email template saved.' : `Email template created (#${saved.id}).`);
      if (!existing) navigate(`/email-templates/${saved.id}`, { replace: true });
    });
  }

  return (
    <div class="with-aside">
      <form class="form panel" onSubmit={submit} noValidate aria-label="Email template">
        <TextField id="name" label="Name" value={name} onValue={edit(setName)} error={error('name')} required hint="To tell templates apart; recipients never see it." />
        <TextField id="from" label="Sender (optional)" value={from} onValue={edit(setFrom)} error={error('from')} hint='e.g. "Acme <no-reply@acme.example>".' />
        <TextField id="subject" label="Subject" value={subject} onValue={edit(setSubject)} error={error('subject')} required />
        <TextArea id="html" label="HTML body" rows={7} value={html} onValue={edit(setHtml)} error={error('html')} hint="Placeholder values are HTML-escaped." />
        <TextArea id="text" label="Text body" rows={4} value={text} onValue={edit(setText)} error={error('text')} hint="For mail clients that show text only." />
        <PlaceholderInputs names={names} values={samples} onValues={setSamples} idPrefix="sample" />
        <div class="actions"><button type="submit" disabled={busy}>{busy ? 'Saving…' : existing ? 'Save email template' : 'Create email template'}</button></div>
        <FormMessage error={problem?.message} extra={unplacedFields(problem, ['name', 'from', 'subject', 'html', 'text'])} success={success} />
      </form>
      <aside class="panel" aria-labelledby="preview-title">
        <h2 id="preview-title">Preview</h2>
        <EmailPreview subject={subject} html={html} text={text} from={from} pin={samplePin('NUMERIC', 6)} values={fill(samples, names)} />
      </aside>
    </div>
  );
}

export function EmailTemplatePage({ id }: { id?: number }) {
  const client = useClient();
  const state = useLoad(() => (id === undefined ? Promise.resolve(null) : client.emailTemplates.get(id)), [client, id]);
  return (
    <section>
      <p class="breadcrumbs"><Link href="/email-templates">Email templates</Link> ›</p>
      <Loading state={state}>
        {(template) => (
          <>
            <h1 tabIndex={-1}>{template ? template.name : 'New email template'}</h1>
            {template ? <p>Email template id <code class="id">{template.id}</code>: a 2FA email message names it as <code>emailTemplateId</code>.</p> : null}
            <Editor key={template?.id ?? 'new'} existing={template ?? undefined} />
          </>
        )}
      </Loading>
    </section>
  );
}
