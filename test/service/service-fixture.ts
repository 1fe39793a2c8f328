// A ServiceContext for the services' unit tests, built as main.ts builds it but on the in-memory store
// (src/store/memory/, held to the store conformance suite), a clock the test moves, and ports that
// record what the services tell the rest of the node (a message queued, a PIN ended, metrics). The
// application and its SMS template are made through the services, as a client makes them.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { ApplicationConfiguration } from '../../src/domain/application-rules.js';
import { PinKeyring } from '../../src/domain/pin-secrets.js';
import type { Metrics } from '../../src/observability/metrics.js';
import { createApplication } from '../../src/service/applications.js';
import type { Principal, ServiceContext } from '../../src/service/context.js';
import { createSmsVoiceTemplate } from '../../src/service/message-templates.js';
import { sendPin, type SendOutcome } from '../../src/service/send-pin.js';
import { MemoryStore } from '../../src/store/memory/memory-store.js';
import type { ApplicationRecord, Channel, OutboxRecord, SmsVoiceTemplateRecord } from '../../src/store/store.js';

export const T0 = 1_800_000_000_000;
export const PHONE = '41793026727';

/** Limits loose enough that a test meets only the one it sets; verifyPinLimit's default (1/3s) would refuse a second verify. */
const TEST_CONFIGURATION: Partial<ApplicationConfiguration> = {
  pinAttempts: 3, allowMultiplePinVerifications: false, pinTimeToLive: '10m',
  verifyPinLimit: '1000/1m', sendPinPerApplicationLimit: '1000/1d', sendPinPerPhoneNumberLimit: '1000/1d',
};

export interface ServiceFixture {
  ctx: ServiceContext;
  store: MemoryStore;
  keyring: PinKeyring;
  principal: Principal;
  app: ApplicationRecord;
  template: SmsVoiceTemplateRecord;
  clock: { now: number; advance(ms: number): void };
  /** Every call the services made to the ports that report outwards, in order (`messageQueued`, `pinEnded:<pinId>`, `metric:<name>:<args>`...). */
  calls: string[];
  /** Sends a PIN by SMS to `to` and returns its outcome, failing the test if the send was refused. */
  send(to?: string): Promise<SendOutcome>;
  /** What the delivery worker would take now: the due messages, leased. */
  claim(): Promise<OutboxRecord[]>;
  /** Does what the delivery worker does with every due message: hands it to `transport`, which accepts it as `<transport>-<message id>`. */
  deliver(transport?: string): Promise<OutboxRecord[]>;
}

export interface FixtureOptions {
  configuration?: Partial<ApplicationConfiguration>;
  /** Channels with a transport (default: all). */
  channels?: Channel[];
  /** Anything else of the context (receiptFailover, channelDelivery, securityProfile...). */
  context?: Partial<ServiceContext>;
}

export async function serviceFixture(options: FixtureOptions = {}): Promise<ServiceFixture> {
  const store = new MemoryStore();
  const keyring = new PinKeyring('service-unit-tests-secret-0123456789-abcdef');
  const clock = { now: T0, advance(ms: number) { this.now += ms; } };
  const calls: string[] = [];
  const metrics = new Proxy({} as Metrics, {
    get: (_target, name) => (...args: unknown[]) => { calls.push(`metric:${String(name)}:${args.join(',')}`); },
  });
  const channels = options.channels;
  const ctx: ServiceContext = {
    store, keyring, clock: () => clock.now,
    channelConfigured: (channel) => channels === undefined || channels.includes(channel),
    messageQueued: () => { calls.push('messageQueued'); },
    metrics,
    smsMaxSegments: 3,
    webhookAddresses: { allowPrivate: false, resolve: async () => [] },
    pinEnded: (_accountId, pinId) => { calls.push(`pinEnded:${pinId}`); },
    workflowStepDue: () => { calls.push('workflowStepDue'); },
    // The fixtures send to runs of sequential numbers that never verify, as pumping does, and the
    // in-memory store keeps no Safe List: the risk score is off unless a test turns it on.
    riskDefaultMode: 'off',
    ...options.context,
  };
  const account = await store.findOrCreateAccount(`account-${randomUUID()}`, randomUUID(), T0);
  const principal: Principal = { accountId: account.id, keyId: 'key-1', scopes: ['2fa:manage', '2fa:pin:send'], ip: '203.0.113.7' };
  const app = await createApplication(ctx, principal, { name: 'app', configuration: { ...TEST_CONFIGURATION, ...options.configuration } });
  assert.ok(app.ok, 'the application is created');
  const template = await createSmsVoiceTemplate(ctx, principal, app.value.id, { messageText: 'Your code is {{pin}}', pinType: 'NUMERIC', pinLength: 6 });
  assert.ok(template.ok, 'the template is created');
  return {
    ctx, store, keyring, principal, app: app.value, template: template.value, clock, calls,
    async send(to = PHONE) {
      const sent = await sendPin(ctx, principal, 'sms', { applicationId: app.value.id, messageId: template.value.id, to });
      assert.ok(sent.ok, `the send is accepted: ${sent.ok ? '' : sent.failure.text}`);
      return sent.value;
    },
    claim: () => store.claimOutbox(clock.now, clock.now + 30_000, 100),
    async deliver(transport = 'smpp') {
      const messages = await store.claimOutbox(clock.now, clock.now + 30_000, 100);
      for (const m of messages) await store.completeOutbox(m.id, m.pinId, clock.now, { transport, providerMessageId: `${transport}-${m.id}` });
      return messages;
    },
  };
}

/** The PIN a stored record holds, decrypted as the delivery worker does. */
export function storedPin(f: ServiceFixture, pinId: string, ciphertext: string | null): string | null {
  return ciphertext === null ? null : f.keyring.decryptPin(pinId, ciphertext);
}
