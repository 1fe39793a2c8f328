// Live previews of what a recipient will see: the message rendered with a sample PIN and sample
// placeholder values, with the SMS encoding and segment count as the operator types.
import type { JSX } from 'preact';
import { placeholderNames, renderHtml, renderText, smsTextInfo } from '../../src/domain/template-rendering.js';
import { TextField } from './components/fields.js';

const SAMPLE_ALPHABETS: Record<string, string> = { NUMERIC: '4827193605', ALPHA: 'KXMBQTRWZA', HEX: '7F3A9C1E5B', ALPHANUMERIC: 'K7M2X9Q4T8' };

/** A sample PIN of the template's type and length (a fixed pattern: previews never make real PINs). */
export function samplePin(pinType: string, pinLength: number): string {
  const alphabet = SAMPLE_ALPHABETS[pinType] ?? SAMPLE_ALPHABETS['NUMERIC']!;
  const length = Number.isInteger(pinLength) && pinLength >= 1 && pinLength <= 16 ? pinLength : 4;
  return Array.from({ length }, (_, i) => alphabet[i % alphabet.length]).join('');
}

/** Placeholder names other than `pin`, in order of first use across the texts. */
export function samplePlaceholders(texts: string[]): string[] {
  return [...new Set(texts.flatMap((t) => placeholderNames(t)))].filter((n) => n !== 'pin');
}

export function fill(values: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(names.map((n) => [n, values[n] || `[${n}]`]));
}

export function PlaceholderInputs({ names, values, onValues, idPrefix }: { names: string[]; values: Record<string, string>; onValues: (v: Record<string, string>) => void; idPrefix: string }) {
  if (names.length === 0) return null;
  return (
    <fieldset class="compact">
      <legend>Sample placeholder values</legend>
      {names.map((name) => (
        <TextField key={name} id={`${idPrefix}-${name}`} label={`{{${name}}}`} value={values[name] ?? ''} onValue={(v) => onValues({ ...values, [name]: v })} placeholder={`[${name}]`} />
      ))}
    </fieldset>
  );
}

export function SmsPreview({ text, pin, values, sender }: { text: string; pin: string; values: Record<string, string>; sender?: string }) {
  let rendered = '';
  try {
    rendered = renderText(text, pin, values);
  } catch {
    rendered = text;
  }
  const info = smsTextInfo(rendered);
  const perPart = info.encoding === 'GSM-7' ? (info.segments > 1 ? 153 : 160) : (info.segments > 1 ? 67 : 70);
  return (
    <div class="preview" aria-label="Preview">
      <div class="phone">
        <div class="phone-head">{sender || 'Sender'}</div>
        <div class="bubble" data-testid="sms-preview">{rendered || <span class="muted">(empty message)</span>}</div>
      </div>
      <p class="sms-info" aria-live="polite" data-testid="sms-info">
        <strong>{info.encoding}</strong> · {info.units} {info.encoding === 'GSM-7' ? 'characters' : 'UTF-16 units'} · <strong>{info.segments} SMS</strong>
        <span class="muted"> ({perPart} per part{info.encoding === 'UCS-2' ? '; a character outside GSM-7 makes the whole message UCS-2' : ''})</span>
      </p>
    </div>
  );
}

export function EmailPreview({ subject, html, text, from, pin, values }: { subject: string; html: string; text: string; from?: string; pin: string; values: Record<string, string> }): JSX.Element {
  const safe = (render: () => string, fallback: string) => { try { return render(); } catch { return fallback; } };
  const renderedSubject = safe(() => renderText(subject, pin, values), subject);
  const renderedHtml = html ? safe(() => renderHtml(html, pin, values), html) : '';
  const renderedText = text ? safe(() => renderText(text, pin, values), text) : '';
  return (
    <div class="preview mail" aria-label="Preview">
      <dl class="mail-head">
        <dt>From</dt><dd>{from || '(the default sender)'}</dd>
        <dt>Subject</dt><dd data-testid="email-preview-subject">{renderedSubject}</dd>
      </dl>
      {renderedHtml ? (
        // Sandboxed without scripts: the template's HTML is shown, never run.
        <iframe class="mail-body" title="HTML body preview" sandbox="" srcdoc={renderedHtml} />
      ) : null}
      {renderedText ? <pre class="mail-text" data-testid="email-preview-text">{renderedText}</pre> : null}
    </div>
  );
}
