// Send a test PIN with any template of any application, to a number or an address; the message
// then shows in the inbox (log:// transport) or reaches the configured provider.
import { useEffect, useState } from 'preact/hooks';
import type { Application, EmailTemplate, Message } from '../../../src/client/index.js';
import { FormMessage, SelectField, TextField } from '../components/fields.js';
import { Loading, useLoad } from '../components/load.js';
import { useClient } from '../context.js';
import { samplePlaceholders } from '../preview.js';
import { problemOf, unplacedFields } from '../problems.js';
import { Link, useLocation } from '../router.js';
import { useSubmission } from '../components/submission.js';

interface Sent {
  pinId: string;
  to: string;
}

function SendForm({ apps, emailTemplates }: { apps: Application[]; emailTemplates: EmailTemplate[] }) {
  const client = useClient();
  const { query } = useLocation();
  const [applicationId, setApplicationId] = useState(query.get('applicationId') ?? apps[0]?.applicationId ?? '');
  const [messages, setMessages] = useState<Message[]>([]);
  const [messageId, setMessageId] = useState('');
  const [channel, setChannel] = useState<'sms' | 'voice' | 'whatsapp' | 'telegram'>('sms');
  const [to, setTo] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const { busy, problem, setProblem, run } = useSubmission();
  const [sent, setSent] = useState<Sent | null>(null);

  useEffect(() => {
    if (applicationId === '') return;
    let current = true;
    client.messages.list(applicationId).then((list) => {
      if (!current) return;
      setMessages(list);
      setMessageId((id) => (list.some((m) => m.messageId === id) ? id : list[0]?.messageId ?? ''));
    }, (e: unknown) => current && setProblem(problemOf(e)));
    return () => { current = false; };
  }, [client, applicationId]);

  const message = messages.find((m) => m.messageId === messageId);
  const email = message?.emailTemplateId !== undefined;
  const emailTemplate = email ? emailTemplates.find((t) => t.id === message?.emailTemplateId) : undefined;
  const names = message ? samplePlaceholders(email ? [emailTemplate?.subject ?? '', emailTemplate?.html ?? '', emailTemplate?.text ?? ''] : [message.messageText ?? '']) : [];

  async function submit(event: Event) {
    event.preventDefault();
    if (!message) return setProblem({ message: 'Choose an application with a message template.', fields: {} });
    setSent(null);
    const placeholders = Object.fromEntries(names.map((n) => [n, values[n] ?? '']));
    const body = { applicationId, messageId, to: to.trim(), ...(names.length > 0 ? { placeholders } : {}) };
    await run(async () => {
      const answer = email ? await client.pins.sendEmail(body)
        : channel === 'voice' ? await client.pins.sendVoice(body)
          : channel === 'whatsapp' ? await client.pins.sendWhatsapp(body)
            : channel === 'telegram' ? await client.pins.sendTelegram(body) : await client.pins.sendSms(body);
      setSent({ pinId: answer.pinId, to: answer.to });
    });
  }

  if (apps.length === 0) return <p class="empty">No application yet. <Link href="/applications">Create one</Link> and give it a template.</p>;
  const placeholderFields = names.map((n) => `placeholders.${n}`);
  return (
    <form class="form panel narrow" onSubmit={submit} noValidate aria-label="Send a test PIN">
      <SelectField id="applicationId" label="Application" value={applicationId} onValue={(v) => { setApplicationId(v); setSent(null); }} error={problem?.fields['applicationId']}
        options={apps.map((a) => ({ value: a.applicationId, label: a.name }))} />
      <SelectField id="messageId" label="Message template" value={messageId} onValue={(v) => { setMessageId(v); setSent(null); }} error={problem?.fields['messageId']}
        options={messages.length === 0 ? [{ value: '', label: 'No template in this application' }] : messages.map((m) => ({
          value: m.messageId,
          label: m.emailTemplateId !== undefined ? `Email: ${emailTemplates.find((t) => t.id === m.emailTemplateId)?.name ?? `#${m.emailTemplateId}`}` : `SMS/voice: ${m.messageText ?? ''}`,
        }))} />
      {!email ? (
        <fieldset class="compact">
          <legend>Channel</legend>
          <div class="radios">
            <label><input type="radio" name="channel" value="sms" checked={channel === 'sms'} onChange={() => setChannel('sms')} /> SMS</label>
            <label><input type="radio" name="channel" value="voice" checked={channel === 'voice'} onChange={() => setChannel('voice')} /> Voice call</label>
            <label><input type="radio" name="channel" value="whatsapp" checked={channel === 'whatsapp'} onChange={() => setChannel('whatsapp')} /> WhatsApp</label>
            <label><input type="radio" name="channel" value="telegram" checked={channel === 'telegram'} onChange={() => setChannel('telegram')} /> Telegram</label>
          </div>
        </fieldset>
      ) : null}
      <TextField id="to" label={email ? 'Email address' : 'Phone number'} type={email ? 'email' : 'tel'} autoComplete="off" value={to} onValue={setTo} error={problem?.fields['to']}
        hint={email ? 'e.g. ann@example.com' : 'International, digits only, e.g. 41793026727.'} required />
      {names.map((n) => (
        <TextField key={n} id={`placeholder-${n}`} label={`Value of {{${n}}}`} value={values[n] ?? ''} onValue={(v) => setValues({ ...values, [n]: v })}
          error={problem?.fields[`placeholders.${n}`] ?? (problem?.fields['placeholders'])} />
      ))}
      <div class="actions"><button type="submit" disabled={busy || !message}>{busy ? 'Sending…' : 'Send PIN'}</button></div>
      <FormMessage error={problem?.message} extra={unplacedFields(problem, ['applicationId', 'messageId', 'to', 'placeholders', ...placeholderFields])} />
      <div role="status" aria-live="polite">
        {sent ? (
          <div class="notice success" data-testid="sent">
            <p>PIN sent to <strong>{sent.to}</strong>. PIN id <code class="id">{sent.pinId}</code>.</p>
            <p><Link href={`/inbox?to=${encodeURIComponent(sent.to)}`}>Open the inbox</Link> · <Link href={`/pins/${sent.pinId}`}>Delivery and verification</Link></p>
          </div>
        ) : null}
      </div>
    </form>
  );
}

export function SendPin() {
  const client = useClient();
  const state = useLoad(async () => {
    const [apps, emailTemplates] = await Promise.all([client.applications.list(), client.emailTemplates.list()]);
    return { apps, emailTemplates };
  }, [client]);
  return (
    <section>
      <h1 tabIndex={-1}>Send a test PIN</h1>
      <p class="muted">Sends a real PIN through the configured transport. With the default <code>log://</code> transport it arrives in the <Link href="/inbox">inbox</Link>.</p>
      <Loading state={state}>{({ apps, emailTemplates }) => <SendForm apps={apps} emailTemplates={emailTemplates} />}</Loading>
    </section>
  );
}
