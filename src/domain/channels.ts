// The channels a PIN travels by and the states of its delivery: the vocabulary that the services,
// the store, the delivery worker and the metrics share.

/** Every channel a PIN can travel by; whatsapp and telegram take phone numbers, like sms and voice. */
export const CHANNELS = ['sms', 'voice', 'email', 'whatsapp', 'telegram'] as const;
export type Channel = (typeof CHANNELS)[number];

/** queued → sent (a transport accepted it) → delivered/undelivered (the provider's receipt); failed: given up; not_sent: channel off. */
export type DeliveryStatus = 'queued' | 'sent' | 'delivered' | 'undelivered' | 'failed' | 'not_sent';
