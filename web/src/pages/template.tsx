// A 2FA message template of an application: SMS/voice (its text, with a live phone preview and the
// SMS encoding and segment count) or email (an email template and sender, previewed as a mail).
import { useState } from 'preact/hooks';
import type { EmailTemplate, Message } from '../../../src/client/index.js';
import { LANGUAGES } from '../../../src/domain/languages.js';
import { PIN_PLACEHOLDER } from '../../../src/domain/template-rendering.js';
import { FormMessage, SelectField, TextArea, TextField } from '../components/fields.js';
import { Loading, useLoad } from '../components/load.js';
import { useClient } from '../context.js';
import { EmailPreview, fill, PlaceholderInputs, samplePin, samplePlaceholders, SmsPreview } from '../preview.js';
import { unplacedFields } from '../problems.js';
import { Link, navigate, useLocation } from '../router.js';
import { useSubmission } from '../components/submission.js';

const PIN_TYPES = ['NUMERIC', 'ALPHA', 'HEX', 'ALPHANUMERIC'].map((t) => ({ value: t, label: t.charAt(0) + t.slice(1).toLowerCase() }));

function pinLengthError(text: string): string | undefined {
  const n = Number(text);
  return /^[0-9]+$/.test(text) && n >= 4 && n <= 16 ? undefined : 'must be a whole number from 4 to 16';
}

function SmsVoiceForm({ appId, existing }: { appId: string; existing?: Message }) {
  const client = useClient();
  const [pinType, setPinType] = useState<string>(existing?.pinType ?? 'NUMERIC');
  const [pinLength, setPinLength] = useState(String(existing?.pinLength ?? 6));
  const [messageText, setMessageText] = useState(existing?.messageText ?? 'Your verification code is {{pin}}.');
  const [senderId, setSenderId] = useState(existing?.senderId ?? '');
  const [language, setLanguage] = useState<string>(existing?.language ?? 'en');
  const [repeatDTMF, setRepeatDTMF] = useState(existing?.repeatDTMF ?? '');
  const [samples, setSamples] = useState<Record<string, string>>({});
  const { busy, problem, setProblem, run } = useSubmission();
  const [success, setSuccess] = useState<string | null>(null);

  const local: Record<string, string> = {};
  const lengthError = pinLengthError(pinLength);
  if (lengthError) local['pinLength'] = lengthError;
  if (!messageText.includes(PIN_PLACEHOLDER)) local['messageText'] = `must contain ${PIN_PLACEHOLDER}`;
  const error = (field: string) => local[field] ?? problem?.fields[field];
  const names = samplePlaceholders([messageText]);
  const edited = (f: (v: string) => void) => (v: string) => { f(v); setSuccess(null); };

  async function submit(event: Event) {
    event.preventDefault();
    if (Object.keys(local).length > 0) return setProblem({ message: 'Correct the fields marked below.', fields: {} });
    const body = {
      pinType: pinType as 'NUMERIC', pinLength: Number(pinLength), messageText, language,
      ...(senderId !== '' ? { senderId } : {}), ...(repeatDTMF !== '' ? { repeatDTMF } : {}),
    };
    await run(async () => {
      const saved = existing ? await client.messages.update(appId, existing.messageId, body) : await client.messages.create(appId, body);
      setSuccess(existing ? 'Template saved.' : `Template created (${saved.messageId}).`);
      if (!existing) navigate(`/applications/${appId}/templates/${saved.messageId}`, { replace: true });
    });
  }

  return (
    <div class="with-aside">
      <form class="form panel" onSubmit={submit} noValidate aria-label="SMS and voice template">
        <div class="field-grid">
          <SelectField id="pinType" label="PIN type" value={pinType} onValue={edited(setPinType)} options={PIN_TYPES} error={error('pinType')} />
          <TextField id="pinLength" label="PIN length" inputMode="numeric" value={pinLength} onValue={edited(setPinLength)} error={error('pinLength')} hint="4 to 16 characters." />
        </div>
        <TextArea id="messageText" label="Message text" rows={4} value={messageText} onValue={edited(setMessageText)} error={error('messageText')}
          hint={<>Must contain <code>{'{{pin}}'}</code>; other <code>{'{{name}}'}</code> placeholders are filled from the send request.</>} />
        <div class="field-grid">
          <TextField id="senderId" label="Sender (optional)" value={senderId} onValue={edited(setSenderId)} error={error('senderId')} hint="Up to 11 characters, or a number." />
          <SelectField id="language" label="Language" value={language} onValue={edited(setLanguage)} error={error('language')} options={LANGUAGES.map((l) => ({ value: l, label: l }))} hint="For text-to-speech." />
          <TextField id="repeatDTMF" label="Repeat key (voice, optional)" value={repeatDTMF} onValue={edited(setRepeatDTMF)} error={error('repeatDTMF')} hint="e.g. 1#" />
        </div>
        <PlaceholderInputs names={names} values={samples} onValues={setSamples} idPrefix="sample" />
        <div class="actions"><button type="submit" disabled={busy}>{busy ? 'Saving…' : existing ? 'Save template' : 'Create template'}</button></div>
        <FormMessage error={problem?.message} extra={unplacedFields(problem, ['pinType', 'pinLength', 'messageText', 'senderId', 'language', 'repeatDTMF'])} success={success} />
      </form>
      <aside class="panel" aria-labelledby="sms-preview-title">
        <h2 id="sms-preview-title">Preview</h2>
        <SmsPreview text={messageText} pin={samplePin(pinType, Number(pinLength))} values={fill(samples, names)} sender={senderId} />
      </aside>
    </div>
  );
}

function EmailMessageForm({ appId, existing, emailTemplates }: { appId: string; existing?: Message; emailTemplates: EmailTemplate[] }) {
  const client = useClient();
  const [emailTemplateId, setEmailTemplateId] = useState(String(existing?.emailTemplateId ?? emailTemplates[0]?.id ?? ''));
  const [from, setFrom] = useState(existing?.from ?? '');
  const [pinType, setPinType] = useState<string>(existing?.pinType ?? 'NUMERIC');
  const [pinLength, setPinLength] = useState(String(existing?.pinLength ?? 6));
  const [samples, setSamples] = useState<Record<string, string>>({});
  const { busy, problem, setProblem, run } = useSubmission();
  const [success, setSuccess] = useState<string | null>(null);
  const template = emailTemplates.find((t) => String(t.id) === emailTemplateId);
  const local: Record<string, string> = {};
  const lengthError = pinLengthError(pinLength);
  if (lengthError) local['pinLength'] = lengthError;
  if (!template) local['emailTemplateId'] = 'choose an email template';
  const error = (field: string) => local[field] ?? problem?.fields[field];
  const names = template ? samplePlaceholders([template.subject, template.html ?? '', template.text ?? '']) : [];

  async function submit(event: Event) {
    event.preventDefault();
    if (Object.keys(local).length > 0) return setProblem({ message: 'Correct the fields marked below.', fields: {} });
    const body = { emailTemplateId: Number(emailTemplateId), pinType: pinType as 'NUMERIC', pinLength: Number(pinLength), ...(from !== '' ? { from } : {}) };
    await run(async () => {
      const saved = existing ? await client.messages.updateEmail(appId, existing.messageId, body) : await client.messages.createEmail(appId, body);
      setSuccess(existing ? 'Template saved.' : `Template created (${saved.messageId}).`);
      if (!existing) navigate(`/applications/${appId}/templates/${saved.messageId}`, { replace: true });
    });
  }

  if (emailTemplates.length === 0) {
    return <p class="empty">An email message uses an email template. <Link href="/email-templates/new">Create an email template</Link> first.</p>;
  }
  return (
    <div class="with-aside">
      <form class="form panel" onSubmit={submit} noValidate aria-label="Email template message">
        <SelectField id="emailTemplateId" label="Email template" value={emailTemplateId} onValue={(v) => { setEmailTemplateId(v); setSuccess(null); }} error={error('emailTemplateId')}
          options={emailTemplates.map((t) => ({ value: String(t.id), label: `${t.name} (#${t.id})` }))} />
        <TextField id="from" label="Sender (optional)" value={from} onValue={setFrom} error={error('from')} hint='e.g. "Acme <no-reply@acme.example>"; else the email template&apos;s.' />
        <div class="field-grid">
          <SelectField id="pinType" label="PIN type" value={pinType} onValue={setPinType} options={PIN_TYPES} error={error('pinType')} />
          <TextField id="pinLength" label="PIN length" inputMode="numeric" value={pinLength} onValue={setPinLength} error={error('pinLength')} hint="4 to 16 characters." />
        </div>
        <PlaceholderInputs names={names} values={samples} onValues={setSamples} idPrefix="sample" />
        <div class="actions"><button type="submit" disabled={busy}>{busy ? 'Saving…' : existing ? 'Save template' : 'Create template'}</button></div>
        <FormMessage error={problem?.message} extra={unplacedFields(problem, ['emailTemplateId', 'from', 'pinType', 'pinLength'])} success={success} />
      </form>
      <aside class="panel" aria-labelledby="mail-preview-title">
        <h2 id="mail-preview-title">Preview</h2>
        {template ? <EmailPreview subject={template.subject} html={template.html ?? ''} text={template.text ?? ''} from={from || template.from || ''} pin={samplePin(pinType, Number(pinLength))} values={fill(samples, names)} /> : null}
      </aside>
    </div>
  );
}

export function TemplatePage({ appId, msgId }: { appId: string; msgId?: string }) {
  const client = useClient();
  const { query } = useLocation();
  const state = useLoad(async () => {
    const [app, message, emailTemplates] = await Promise.all([
      client.applications.get(appId),
      msgId ? client.messages.get(appId, msgId) : Promise.resolve(undefined),
      client.emailTemplates.list(),
    ]);
    return { app, message, emailTemplates };
  }, [client, appId, msgId]);

  return (
    <section>
      <Loading state={state}>
        {({ app, message, emailTemplates }) => {
          const email = message ? message.emailTemplateId !== undefined : query.get('kind') === 'email';
          return (
            <>
              <p class="breadcrumbs"><Link href="/applications">Applications</Link> › <Link href={`/applications/${appId}`}>{app.name}</Link> ›</p>
              <h1 tabIndex={-1}>{message ? (email ? 'Email template message' : 'SMS/voice template') : (email ? 'New email template message' : 'New SMS/voice template')}</h1>
              {message ? <p>Message id <code class="id">{message.messageId}</code>: send PINs with it as <code>messageId</code>.</p> : null}
              {email ? <EmailMessageForm key={message?.messageId ?? 'new'} appId={appId} existing={message} emailTemplates={emailTemplates} />
                : <SmsVoiceForm key={message?.messageId ?? 'new'} appId={appId} existing={message} />}
            </>
          );
        }}
      </Loading>
    </section>
  );
}
