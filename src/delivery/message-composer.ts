// Renders an outbox item into the message a transport sends. This is the only place a PIN is
// decrypted for delivery, and the result lives only in memory: outbox rows never hold the rendered
// text (see DESIGN.md, "Security decisions").
import { withAutofill } from '../domain/autofill.js';
import { phoneCountry } from '../domain/destinations.js';
import { isDeliverable, pinState } from '../domain/pin-lifecycle.js';
import type { PinKeyring } from '../domain/pin-secrets.js';
import { chooseLocaleText, voiceLanguageOf } from '../domain/template-locales.js';
import { renderHtml, renderText } from '../domain/template-rendering.js';
import type { OutboxRecord, Store } from '../store/store.js';
import type { OutgoingMessage } from './transport.js';

export type ComposeResult =
  /** `expiresAt`: the PIN's expiry, past which another delivery attempt is pointless. */
  | { ok: true; message: OutgoingMessage; expiresAt: number }
  /**
   * `ended`: the PIN was verified, expired, locked or deleted, so there is nothing left to deliver.
   * `missing`: something delivery needs is gone or broken (template, secret, placeholder value); a
   * retry would not help.
   */
  | { ok: false; reason: 'ended' | 'missing'; error: string };

/**
 * `now`, when given, also treats a PIN past its expiry as ended (the purge job erases its ciphertext
 * only every so often, and sending a PIN that can no longer be verified helps nobody).
 */
export async function composeMessage(store: Store, keyring: PinKeyring, item: OutboxRecord, now?: number): Promise<ComposeResult> {
  const pin = item.pin ?? await store.getPin(item.accountId, item.pinId);
  if (pin === undefined) return ended('PIN ended before delivery: it no longer exists');
  // Without `now` only the erased ciphertext tells an expired PIN (the purge erases it).
  const asOf = now ?? Number.NEGATIVE_INFINITY;
  if (!isDeliverable(pin, asOf)) {
    const state = pinState(pin, asOf);
    return ended(state === 'pending' ? 'PIN ended before delivery: it was verified, expired or locked' : `PIN ended before delivery: it was ${state}`);
  }

  const code = keyring.decryptPin(pin.id, pin.pinCiphertext);
  if (code === null) return missing('PIN cannot be decrypted: its secret is no longer configured');

  const template = await store.getMessageTemplate(item.accountId, pin.applicationId, pin.messageId);
  if (template === undefined) return missing(`message template ${pin.messageId} no longer exists`);

  const base = {
    channel: item.channel,
    to: pin.destination,
    pinId: pin.id,
    applicationId: pin.applicationId,
    messageId: pin.messageId,
    accountId: item.accountId,
    deliveryId: item.id,
    // A message queued again after an undelivered receipt skips the route members already tried.
    ...(item.request.skipTransports !== undefined && item.request.skipTransports.length > 0 && { skipTransports: item.request.skipTransports }),
  };
  const placeholders = item.request.placeholders ?? {};

  try {
    if (template.kind === 'sms_voice') {
      // An SMS PIN may be resent by voice, so the outbox item's channel decides, not the PIN's.
      if (item.channel === 'email') return missing(`message template ${template.id} is an SMS/voice template and cannot be sent by email`);
      // Which sender goes: the request's, else the application's own for the country, else the
      // template's (a routes table may still set its own and its fallback: domain/routes.ts chooseSender).
      const country = phoneCountry(pin.destination);
      const application = country === undefined ? undefined : await store.routes.applicationSender(pin.applicationId, country);
      const from = item.request.from ?? application?.id ?? template.senderId ?? undefined;
      // The text of the locale the send asked for, else of the number's country, else the default;
      // the same choice for every dialect (domain/template-locales.ts).
      const localized = template.texts === undefined ? undefined
        : chooseLocaleText(template.texts, { channel: item.channel, requested: item.request.locale, country });
      const messageText = localized?.text ?? template.messageText;
      // The autofill lines are for a phone's SMS app: a voice call never reads them.
      const text = item.channel === 'sms' ? withAutofill(messageText, template.autofill) : messageText;
      const message: OutgoingMessage = {
        ...base, text: renderText(text, code, placeholders),
        senders: { request: item.request.from, application, template: template.senderId ?? undefined },
      };
      if (from !== undefined) message.from = from;
      if (item.channel === 'voice') {
        // Voice transports read the PIN character by character, so they get it apart from the text.
        message.voice = {
          pin: code,
          language: localized ? voiceLanguageOf(localized.locale) : template.language,
          speechRate: template.speechRate,
          voiceName: template.voiceName,
          repeatDtmf: template.repeatDtmf,
          template: messageText,
          placeholders,
        };
      }
      if (item.channel !== 'voice') {
        // WhatsApp and Telegram transports send the code alone, also as a member of the SMS channel's route.
        message.code = code;
        message.expiresAt = pin.expiresAt;
      }
      return { ok: true, message, expiresAt: pin.expiresAt };
    }

    if (item.channel !== 'email') return missing(`message template ${template.id} is an email template and cannot be sent by ${item.channel}`);
    const emailTemplate = await store.getEmailTemplate(item.accountId, template.emailTemplateId);
    if (emailTemplate === undefined) {
      return missing(`email template ${template.emailTemplateId} used by message template ${template.id} no longer exists`);
    }
    const message: OutgoingMessage = { ...base, subject: renderText(emailTemplate.subject, code, placeholders) };
    if (emailTemplate.text !== null) message.text = renderText(emailTemplate.text, code, placeholders);
    // HTML gets escaped values: a placeholder from the request must not inject markup.
    if (emailTemplate.html !== null) message.html = renderHtml(emailTemplate.html, code, placeholders);
    const from = item.request.from ?? template.from ?? emailTemplate.from ?? undefined;
    if (from !== undefined) message.from = from;
    return { ok: true, message, expiresAt: pin.expiresAt };
  } catch (err) {
    // The renderer names the missing placeholder, never a value or the PIN.
    return missing(`message cannot be rendered: ${(err as Error).message}`);
  }
}

function ended(error: string): ComposeResult {
  return { ok: false, reason: 'ended', error };
}

function missing(error: string): ComposeResult {
  return { ok: false, reason: 'missing', error };
}
