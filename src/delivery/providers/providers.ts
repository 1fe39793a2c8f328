// The HTTP providers (SMS and voice; WhatsApp and Telegram codes) by DSN scheme, and their callbacks by name, for the DSN parser and the
// callback route to use without knowing each provider.
import type { Logger } from 'pino';
import type { Transport } from '../transport.js';
import { infobipCallback } from './infobip/infobip-callback.js';
import { createInfobipTransport, INFOBIP_DSN_EXAMPLE } from './infobip/infobip-transport.js';
import type { CallbackCapable, ProviderCallback, ProviderName } from './provider-callback.js';
import { telegramCallback } from './telegram/telegram-callback.js';
import { createTelegramTransport, TELEGRAM_DSN_EXAMPLE } from './telegram/telegram-transport.js';
import { twilioCallback } from './twilio/twilio-callback.js';
import { createTwilioTransport, TWILIO_DSN_EXAMPLE } from './twilio/twilio-transport.js';
import { vonageCallback } from './vonage/vonage-callback.js';
import { createVonageTransport, VONAGE_DSN_EXAMPLE } from './vonage/vonage-transport.js';
import { whatsappCallback } from './whatsapp/whatsapp-callback.js';
import { createWhatsappTransport, WHATSAPP_DSN_EXAMPLE } from './whatsapp/whatsapp-transport.js';

export { isProviderScheme, PROVIDER_SCHEMES } from './provider-callback.js';

export const PROVIDER_DSN_EXAMPLES: Readonly<Record<ProviderName, string>> = {
  twilio: TWILIO_DSN_EXAMPLE,
  vonage: VONAGE_DSN_EXAMPLE,
  infobip: INFOBIP_DSN_EXAMPLE,
  whatsapp: WHATSAPP_DSN_EXAMPLE,
  telegram: TELEGRAM_DSN_EXAMPLE,
};

/** Each provider's callback, unbound; a transport's `callback` is the one bound to its DSN. */
export const providerCallbacks: Readonly<Record<ProviderName, ProviderCallback<never>>> = {
  twilio: twilioCallback,
  vonage: vonageCallback,
  infobip: infobipCallback,
  whatsapp: whatsappCallback,
  telegram: telegramCallback,
};

/**
 * The transport for a provider DSN (`twilio://`, `vonage://`, `infobip://`). Throws an Error
 * naming `variable`, with an example DSN, when the DSN is not usable.
 */
export function createProviderTransport(
  scheme: ProviderName,
  variable: string,
  url: URL,
  deps: { logger: Logger; clock?: () => number },
): Transport & CallbackCapable {
  switch (scheme) {
    case 'twilio':
      return createTwilioTransport(variable, url, deps);
    case 'vonage':
      return createVonageTransport(variable, url, deps);
    case 'infobip':
      return createInfobipTransport(variable, url, deps);
    case 'whatsapp':
      return createWhatsappTransport(variable, url, deps);
    case 'telegram':
      return createTelegramTransport(variable, url, deps);
  }
}
