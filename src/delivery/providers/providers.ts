// The HTTP providers (SMS and voice; WhatsApp and Telegram codes) by DSN scheme, for the DSN parser
// to use without knowing each provider; each transport carries its callback, bound to its DSN.
import type { Logger } from 'pino';
import type { Transport } from '../transport.js';
import { createInfobipTransport } from './infobip/infobip-transport.js';
import type { CallbackCapable, ProviderName } from './provider-callback.js';
import { createTelegramTransport } from './telegram/telegram-transport.js';
import { createTwilioTransport } from './twilio/twilio-transport.js';
import { createVonageTransport } from './vonage/vonage-transport.js';
import { createWhatsappTransport } from './whatsapp/whatsapp-transport.js';

export { isProviderScheme, PROVIDER_SCHEMES } from './provider-callback.js';

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
