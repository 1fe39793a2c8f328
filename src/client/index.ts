// A typed client for twofa: Infobip's 2FA API v2 (/2fa/2) and the service's own API (/api/v1).
// It depends on nothing but the global `fetch` (Node 18+, browsers, Deno, Bun), so it can be copied
// into or imported by any application; every import from the server's code is type-only.
import { errorFromResponse, TwofaApiError } from './errors.js';
import { resolveOperation, type OperationName, type OperationParams } from './operations.js';
import type {
  Application, ApplicationRequest, CreatedWebhook, Webhook, WebhookRequest, WebhookUpdateRequest, TestNumber, TestNumberRequest, TwilioAuthToken, PreludeSettings, PreludeSettingsRequest, VonageApplication, VonageApplicationRequest, EmailMessage, EmailMessageRequest, EmailTemplate, EmailTemplateRequest, InboxMessage, InboxQuery,
  Message, MessageAutofill, MessageAutofillRequest, PinDetails, ResendEmailPinRequest, ResendPinRequest, SendEmailPinRequest, SendEmailPinResponse, SendPinRequest, SendPinResponse,
  SmsVoiceMessage, SmsVoiceMessageRequest, VerificationStatusQuery, VerificationStatusResponse, VerifyPinResponse,
} from './types.js';
import type { ApiKey, ApiKeyRequest, CreatedApiKey, Me, PinListQuery, PinPage, Stats, StatsQuery } from './types.js';
import type { Budget, BudgetRequest, PriceList, Spend, SpendQuery } from './types.js';
import type { ApplicationSender, ApplicationSenderRequest, RouteExplainQuery, RouteExplanation, Routes } from './types.js';
import type { MessageText, MessageTextRequest, MessageTextUpdate } from './types.js';
import type { NewPasskeyChallengeRequest, NewPasskeyRequest, PasskeyChallenge, PasskeyCredentialJson, PasskeyFactor, PasskeySettings, PasskeySettingsRequest } from './types.js';
import type { Challenge, ChallengeRequest, Factor, FactorEntity, FactorRequest, NewFactor } from './types.js';
import type { ApplicationRisk, ApplicationRiskRequest, ApplicationSecurity, ApplicationSecurityRequest, AuditPage, AuditQuery, RiskDecisionPage, RiskDecisionQuery, RiskSavings, RiskSavingsQuery, SafeList, SafeListEntry, Workflow } from './types.js';

export { TwofaApiError, parseRetryAfter, type TwofaApiErrorDetails } from './errors.js';
export { CLIENT_OPERATIONS, resolveOperation, type ClientOperation, type HttpMethod, type OperationName } from './operations.js';
export type * from './types.js';

export interface TwofaClientOptions {
  /** Where the service answers, e.g. `http://127.0.0.1:8080` (a path prefix behind a proxy is kept). */
  baseUrl: string;
  apiKey: string;
  /** `Authorization` scheme: `App` (Infobip's, the default) or `Bearer`; the server takes both. */
  scheme?: 'App' | 'Bearer';
  /** A fetch to use instead of the global one (a proxy agent, a test double). */
  fetch?: typeof fetch;
  /** Per request, including reading the answer. Default 10 000 ms. */
  timeoutMs?: number;
}

export interface TwofaClient {
  applications: {
    list(): Promise<Application[]>;
    create(body: ApplicationRequest): Promise<Application>;
    get(appId: string): Promise<Application>;
    /** Merges: fields left out keep their values (`name` is required). */
    update(appId: string, body: ApplicationRequest): Promise<Application>;
  };
  messages: {
    /** SMS/voice and email message templates of the application. */
    list(appId: string): Promise<Message[]>;
    create(appId: string, body: SmsVoiceMessageRequest): Promise<SmsVoiceMessage>;
    get(appId: string, msgId: string): Promise<Message>;
    update(appId: string, msgId: string, body: Partial<SmsVoiceMessageRequest>): Promise<SmsVoiceMessage>;
    createEmail(appId: string, body: EmailMessageRequest): Promise<EmailMessage>;
    updateEmail(appId: string, msgId: string, body: Partial<EmailMessageRequest>): Promise<EmailMessage>;
    /** The SMS autofill lines of an SMS message (WebOTP / iOS origin-bound line, Android app hash). */
    getAutofill(appId: string, msgId: string): Promise<MessageAutofill>;
    /** Replaces them: a field left out is off; `{}` turns autofill off. */
    setAutofill(appId: string, msgId: string, body: MessageAutofillRequest): Promise<MessageAutofill>;
    /** The locale texts of an SMS/voice message (Vonage: its template fragments). */
    listTexts(appId: string, msgId: string): Promise<MessageText[]>;
    /** Adds a locale text (409 when its locale and channel have one). */
    addText(appId: string, msgId: string, body: MessageTextRequest): Promise<MessageText>;
    getText(appId: string, msgId: string, textId: string): Promise<MessageText>;
    updateText(appId: string, msgId: string, textId: string, body: MessageTextUpdate): Promise<MessageText>;
    deleteText(appId: string, msgId: string, textId: string): Promise<void>;
  };
  pins: {
    /** `ncNeeded` left out is the server's default (true); only an explicit value goes on the wire. */
    sendSms(body: SendPinRequest, options?: { ncNeeded?: boolean }): Promise<SendPinResponse>;
    sendVoice(body: SendPinRequest): Promise<SendPinResponse>;
    sendEmail(body: SendEmailPinRequest): Promise<SendEmailPinResponse>;
    /** twofa's own extensions: only the code travels (a WhatsApp authentication template, the Telegram Gateway). */
    sendWhatsapp(body: SendPinRequest): Promise<SendPinResponse>;
    sendTelegram(body: SendPinRequest): Promise<SendPinResponse>;
    /** Delivers the same PIN again under the same pinId; the body is only for placeholders/tracking. */
    resendSms(pinId: string, body?: ResendPinRequest): Promise<SendPinResponse>;
    resendVoice(pinId: string, body?: ResendPinRequest): Promise<SendPinResponse>;
    resendEmail(pinId: string, body?: ResendEmailPinRequest): Promise<SendEmailPinResponse>;
    resendWhatsapp(pinId: string, body?: ResendPinRequest): Promise<SendPinResponse>;
    resendTelegram(pinId: string, body?: ResendPinRequest): Promise<SendPinResponse>;
    /** A wrong PIN is an answer, not an error: `verified: false` with a `pinError`. */
    verify(pinId: string, pin: string): Promise<VerifyPinResponse>;
    verificationStatus(appId: string, query: VerificationStatusQuery): Promise<VerificationStatusResponse>;
    /** twofa's own view of one PIN (/api/v1): state, attempts left, delivery status and history; never the PIN. */
    get(pinId: string): Promise<PinDetails>;
    /** The account's PINs, newest first, searchable and paged (scope 2fa:manage); never the PIN. */
    list(query?: PinListQuery): Promise<PinPage>;
  };
  emailTemplates: {
    list(): Promise<EmailTemplate[]>;
    create(body: EmailTemplateRequest): Promise<EmailTemplate>;
    get(id: number): Promise<EmailTemplate>;
    /** Replaces the whole template. */
    update(id: number, body: EmailTemplateRequest): Promise<EmailTemplate>;
    /** Refused with 409 CONFLICT while a 2FA email message uses the template. */
    delete(id: number): Promise<void>;
  };
  webhooks: {
    /** The account's subscriptions to PIN events, without their secrets. */
    list(): Promise<Webhook[]>;
    /** The answer holds the signing secret (`whsec_...`): the only time it is shown. */
    create(body: WebhookRequest): Promise<CreatedWebhook>;
    get(webhookId: string): Promise<Webhook>;
    /** Merges: fields left out keep their values; a `secret` replaces the signing secret. */
    update(webhookId: string, body: WebhookUpdateRequest): Promise<Webhook>;
    /** Events not yet delivered to it are dropped. */
    delete(webhookId: string): Promise<void>;
  };
  factors: {
    /** The application's entities (users with factors), oldest first (scope 2fa:manage). */
    listEntities(appId: string, query?: { limit?: number; offset?: number }): Promise<FactorEntity[]>;
    /** Deletes a user's entity with all its factors and challenges. */
    deleteEntity(appId: string, identity: string): Promise<void>;
    /** A user's factors (never their secrets). */
    list(appId: string, identity: string): Promise<Factor[]>;
    /** Makes a TOTP factor (and the user's entity if new): its `secret` and `uri` are answered this once. */
    create(appId: string, identity: string, body: FactorRequest): Promise<NewFactor>;
    /** Verifies a new factor with the first code its app shows: `status` verified, or still unverified when wrong (429 after five). */
    verify(appId: string, identity: string, factorSid: string, code: string): Promise<Factor>;
    delete(appId: string, identity: string, factorSid: string): Promise<void>;
    /** Challenges a verified factor; with `code` it is answered at once (approved, or pending when wrong). */
    challenge(appId: string, identity: string, body: ChallengeRequest): Promise<Challenge>;
    getChallenge(appId: string, identity: string, challengeSid: string): Promise<Challenge>;
    /** Answers a pending challenge: approved, or pending when wrong; the fifth wrong code denies it. */
    answerChallenge(appId: string, identity: string, challengeSid: string, code: string): Promise<Challenge>;
  };
  testNumbers: {
    /** The account's test numbers (never their codes). */
    list(): Promise<TestNumber[]>;
    /** Sends to `destination` then deliver nothing and `code` verifies; 409 when it is listed already. */
    create(body: TestNumberRequest): Promise<TestNumber>;
    delete(id: string): Promise<void>;
  };
  /** The operator's routes table (docs/routing.md) and the applications' own senders per country. */
  routes: {
    list(): Promise<Routes>;
    /** Reads the configured table again on the node that answers; 409 ROUTES_INVALID when it is refused whole. */
    reload(): Promise<Routes>;
    /** Which rule a number matches and why, its transports in order with prices and conversions, its sender. */
    explain(query: RouteExplainQuery): Promise<RouteExplanation>;
    listSenders(appId: string): Promise<{ senders: ApplicationSender[] }>;
    setSender(appId: string, country: string, body: ApplicationSenderRequest): Promise<ApplicationSender>;
    deleteSender(appId: string, country: string): Promise<void>;
  };
  twilio: {
    /** The Auth Token that signs the account's Twilio Verify webhook events (made at first use). */
    getAuthToken(): Promise<TwilioAuthToken>;
    /** A new Auth Token; events are signed with it from now on (the old one stays a login for TWOFA_TWILIO_AUTH_TOKEN_GRACE). */
    rotateAuthToken(): Promise<TwilioAuthToken>;
  };
  vonage: {
    /** The account's Vonage applications. */
    listApplications(): Promise<VonageApplication[]>;
    /** The public key an application's Vonage Verify JWTs are checked with, and its callback URL; 404 when none is registered. */
    getApplication(applicationId: string): Promise<VonageApplication>;
    /**
     * Registers the application (its RSA public key, PEM) or changes its key, its callback URL (`''`
     * removes it) or its signature secret; the answer shows a secret it set, once.
     */
    updateApplication(applicationId: string, body: VonageApplicationRequest): Promise<VonageApplication>;
    /** A new signature secret for the callbacks, shown in this answer only. */
    rotateSignatureSecret(applicationId: string): Promise<VonageApplication>;
    /** Removes the key: the application's JWTs no longer log in. */
    deleteApplication(applicationId: string): Promise<void>;
  };
  prelude: {
    /** The application the account's Prelude Verify calls (/v2/verification) use; null until set. */
    getSettings(): Promise<PreludeSettings>;
    /** Sets it, and whether creates may choose their code (`options.custom_code`). */
    updateSettings(body: PreludeSettingsRequest): Promise<PreludeSettings>;
  };
  inbox: {
    /** What the `log://` transport delivered, newest first (development and tests). */
    list(query?: InboxQuery): Promise<InboxMessage[]>;
  };
  stats: {
    /** Sends, deliveries and verifications over time per channel, conversion, latency, refusals (scope 2fa:manage). */
    get(query?: StatsQuery): Promise<Stats>;
    /** What the messages cost, by country, transport or application, per currency; unpriced ones counted apart. */
    spend(query?: SpendQuery): Promise<Spend>;
  };
  budgets: {
    /** The account's budget (404 when it has none). */
    get(): Promise<Budget>;
    /** Sets the account's budget: caps per UTC day and month in a currency, per country too. */
    set(body: BudgetRequest): Promise<Budget>;
    delete(): Promise<void>;
    getApplication(appId: string): Promise<Budget>;
    setApplication(appId: string, body: BudgetRequest): Promise<Budget>;
    deleteApplication(appId: string): Promise<void>;
  };
  prices: {
    /** The price list in force on the node that answers. */
    get(): Promise<PriceList>;
    /** Makes that node read TWOFA_PRICES_FILE again; an invalid file is refused (400) and the list in force kept. */
    reload(): Promise<PriceList>;
  };
  keys: {
    /** The account's API keys, revoked ones too (never a key itself). */
    list(): Promise<ApiKey[]>;
    /** A new key in the caller's account; `key` in the answer is the only time it is shown. */
    create(body: ApiKeyRequest): Promise<CreatedApiKey>;
    /** Revokes a key of the account at once (409 for the calling key itself). */
    revoke(id: string): Promise<void>;
  };
  account: {
    /** The account name and the calling key's record and scopes. */
    me(): Promise<Me>;
  };
  security: {
    /** The application's anti-fraud settings, active breaker blocks and brute-force budget. */
    get(appId: string): Promise<ApplicationSecurity>;
    /** Merges: fields left out keep their values; the guards run only with `enabled: true`. */
    update(appId: string, body: ApplicationSecurityRequest): Promise<ApplicationSecurity>;
  };
  workflows: {
    /** The application's workflow; `{steps: []}` when it has none. */
    get(appId: string): Promise<Workflow>;
    /** Replaces the application's workflow; later sends in every dialect follow it. */
    set(appId: string, body: Workflow): Promise<Workflow>;
    /** Removes it: later sends go out on the channel asked for. */
    delete(appId: string): Promise<void>;
  };
  passkeys: {
    /** The relying party the application's passkeys are made for (id, name, origins, authenticator criteria). */
    getSettings(appId: string): Promise<PasskeySettings>;
    /** Sets it: fields left out keep their values, null clears one. */
    updateSettings(appId: string, body: PasskeySettingsRequest): Promise<PasskeySettings>;
    /** Starts a user's passkey: an unverified factor with the options for navigator.credentials.create(). */
    create(appId: string, body: NewPasskeyRequest): Promise<PasskeyFactor>;
    /** Finishes it with the credential navigator.credentials.create() made (its toJSON()). */
    verify(appId: string, credential: PasskeyCredentialJson): Promise<PasskeyFactor>;
    /** Asks for a passkey (a user's, a factor, or any discoverable one): a challenge with the options for navigator.credentials.get(). */
    createChallenge(appId: string, body?: NewPasskeyChallengeRequest): Promise<PasskeyChallenge>;
    /** Approves the challenge the assertion of navigator.credentials.get() answers. */
    approveChallenge(appId: string, credential: PasskeyCredentialJson): Promise<PasskeyChallenge>;
  };
  audit: {
    /** One page of the account's audit log, oldest first; pass `next` as `after` for the following page. */
    list(query?: AuditQuery): Promise<AuditPage>;
  };
  risk: {
    /** The application's risk mode and thresholds (docs/security.md, "Risk score"). */
    get(appId: string): Promise<ApplicationRisk>;
    /** Merges: fields left out keep their values. */
    update(appId: string, body: ApplicationRiskRequest): Promise<ApplicationRisk>;
    /** One page of recorded decisions, newest first; pass `next` as `cursor` for the following page. */
    decisions(query?: RiskDecisionQuery): Promise<RiskDecisionPage>;
    /** What blocks saved and shadow blocks would have saved, per currency of the messages' estimated prices. */
    savings(query?: RiskSavingsQuery): Promise<RiskSavings>;
  };
  safeList: {
    /** Every number and prefix of the account's Safe List. */
    list(): Promise<SafeList>;
    /**
     * Puts an E.164 number (+447911123456) or a prefix followed by * (+4479*: every number it starts) on
     * the account's Safe List: never blocked by the guards or the risk score, nor counted in the score's baselines.
     */
    add(entry: string): Promise<SafeListEntry>;
    /** The entry of a listed number (+447911123456) or prefix (+4479*); 404 when it is not listed. */
    get(entry: string): Promise<SafeListEntry>;
    /** Takes a number (+447911123456) or a prefix (+4479*) off the list. */
    remove(entry: string): Promise<void>;
  };
  health: {
    /** True when the node can serve (database reachable, not shutting down); false otherwise or unreachable. */
    ready(): Promise<boolean>;
  };
}

const DEFAULT_TIMEOUT_MS = 10_000;

interface CallOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
}

/** `?a=1&b=true` from the defined values only; booleans are lowercase, as every Infobip SDK sends them. */
function queryString(query: CallOptions['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

export function createTwofaClient(options: TwofaClientOptions): TwofaClient {
  if (typeof options.baseUrl !== 'string' || !/^https?:\/\//i.test(options.baseUrl)) {
    // Infobip's Node SDK silently prepends https:// to a scheme-less URL; saying so is kinder.
    throw new TypeError('baseUrl must be an absolute http:// or https:// URL');
  }
  if (typeof options.apiKey !== 'string' || options.apiKey === '') throw new TypeError('apiKey is required');
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const authorization = `${options.scheme ?? 'App'} ${options.apiKey}`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // Looked up per call, so a fetch patched or mocked after the client was created is still used.
  const doFetch: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));

  async function send<N extends OperationName>(name: N, params: OperationParams<N>, call: CallOptions = {}): Promise<Response> {
    const { method, path } = resolveOperation(name, params);
    const headers: Record<string, string> = { accept: 'application/json', authorization };
    const init: RequestInit = { method, headers, signal: AbortSignal.timeout(timeoutMs) };
    if (call.body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(call.body);
    }
    return doFetch(`${baseUrl}${path}${queryString(call.query)}`, init);
  }

  /** Performs the operation; the parsed JSON of a 2xx answer, else a thrown TwofaApiError. */
  async function call<T, N extends OperationName = OperationName>(name: N, params: OperationParams<N>, options: CallOptions = {}): Promise<T> {
    const response = await send(name, params, options);
    const text = await response.text();
    if (!response.ok) throw errorFromResponse(response.status, response.headers, text);
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      // A 2xx that is not JSON comes from something in front of the service (a captive portal, a
      // misrouted proxy); returning it typed as T would fail far from the cause.
      throw new TwofaApiError({
        status: response.status, messageId: 'GENERAL_ERROR', text: `HTTP ${response.status} answer is not JSON`,
        requestId: response.headers.get('x-request-id') ?? undefined,
      });
    }
  }

  const none = {};
  return {
    applications: {
      list: () => call('applications.list', none),
      create: (body) => call('applications.create', none, { body }),
      get: (appId) => call('applications.get', { appId }),
      update: (appId, body) => call('applications.update', { appId }, { body }),
    },
    messages: {
      list: (appId) => call('messages.list', { appId }),
      create: (appId, body) => call('messages.create', { appId }, { body }),
      get: (appId, msgId) => call('messages.get', { appId, msgId }),
      update: (appId, msgId, body) => call('messages.update', { appId, msgId }, { body }),
      createEmail: (appId, body) => call('messages.createEmail', { appId }, { body }),
      updateEmail: (appId, msgId, body) => call('messages.updateEmail', { appId, msgId }, { body }),
      getAutofill: (appId, msgId) => call('messages.getAutofill', { appId, msgId }),
      setAutofill: (appId, msgId, body) => call('messages.setAutofill', { appId, msgId }, { body }),
      listTexts: async (appId, msgId) => (await call<{ texts: MessageText[] }>('messages.listTexts', { appId, msgId })).texts,
      addText: (appId, msgId, body) => call('messages.addText', { appId, msgId }, { body }),
      getText: (appId, msgId, textId) => call('messages.getText', { appId, msgId, textId }),
      updateText: (appId, msgId, textId, body) => call('messages.updateText', { appId, msgId, textId }, { body }),
      deleteText: async (appId, msgId, textId) => { await call<undefined>('messages.deleteText', { appId, msgId, textId }); },
    },
    pins: {
      sendSms: (body, sendOptions) => call('pins.sendSms', none, { body, query: { ncNeeded: sendOptions?.ncNeeded } }),
      sendVoice: (body) => call('pins.sendVoice', none, { body }),
      sendEmail: (body) => call('pins.sendEmail', none, { body }),
      sendWhatsapp: (body) => call('pins.sendWhatsapp', none, { body }),
      sendTelegram: (body) => call('pins.sendTelegram', none, { body }),
      // No body at all when none is given: the resend body is optional on the wire too.
      resendSms: (pinId, body) => call('pins.resendSms', { pinId }, { body }),
      resendVoice: (pinId, body) => call('pins.resendVoice', { pinId }, { body }),
      resendEmail: (pinId, body) => call('pins.resendEmail', { pinId }, { body }),
      resendWhatsapp: (pinId, body) => call('pins.resendWhatsapp', { pinId }, { body }),
      resendTelegram: (pinId, body) => call('pins.resendTelegram', { pinId }, { body }),
      verify: (pinId, pin) => call('pins.verify', { pinId }, { body: { pin } }),
      verificationStatus: (appId, query) =>
        call('pins.verificationStatus', { appId }, { query: { msisdn: query.msisdn, verified: query.verified, sent: query.sent } }),
      get: (pinId) => call('pins.get', { pinId }),
      list: (query = {}) => call('pins.list', none, {
        query: {
          to: query.to, applicationId: query.applicationId, channel: query.channel, status: query.status,
          since: query.since, until: query.until, cursor: query.cursor, limit: query.limit,
        },
      }),
    },
    emailTemplates: {
      list: () => call('emailTemplates.list', none),
      create: (body) => call('emailTemplates.create', none, { body }),
      get: (id) => call('emailTemplates.get', { id }),
      update: (id, body) => call('emailTemplates.update', { id }, { body }),
      delete: async (id) => { await call<undefined>('emailTemplates.delete', { id }); },
    },
    webhooks: {
      list: () => call('webhooks.list', none),
      create: (body) => call('webhooks.create', none, { body }),
      get: (webhookId) => call('webhooks.get', { webhookId }),
      update: (webhookId, body) => call('webhooks.update', { webhookId }, { body }),
      delete: async (webhookId) => { await call<undefined>('webhooks.delete', { webhookId }); },
    },
    factors: {
      listEntities: async (appId, query = {}) => (await call<{ entities: FactorEntity[] }>('factors.listEntities', { appId }, { query: { limit: query.limit, offset: query.offset } })).entities,
      deleteEntity: async (appId, identity) => { await call<undefined>('factors.deleteEntity', { appId, identity }); },
      list: async (appId, identity) => (await call<{ factors: Factor[] }>('factors.list', { appId, identity })).factors,
      create: (appId, identity, body) => call('factors.create', { appId, identity }, { body }),
      verify: (appId, identity, factorSid, code) => call('factors.verify', { appId, identity, factorSid }, { body: { code } }),
      delete: async (appId, identity, factorSid) => { await call<undefined>('factors.delete', { appId, identity, factorSid }); },
      challenge: (appId, identity, body) => call('factors.challenge', { appId, identity }, { body }),
      getChallenge: (appId, identity, challengeSid) => call('factors.getChallenge', { appId, identity, challengeSid }),
      answerChallenge: (appId, identity, challengeSid, code) => call('factors.answerChallenge', { appId, identity, challengeSid }, { body: { code } }),
    },
    testNumbers: {
      list: () => call('testNumbers.list', none),
      create: (body) => call('testNumbers.create', none, { body }),
      delete: async (id) => { await call<undefined>('testNumbers.delete', { id }); },
    },
    routes: {
      list: () => call('routes.list', none),
      reload: () => call('routes.reload', none),
      explain: (query) => call('routes.explain', none, { query: { channel: query.channel, to: query.to, applicationId: query.applicationId } }),
      listSenders: (appId) => call('routes.listSenders', { appId }),
      setSender: (appId, country, body) => call('routes.setSender', { appId, country }, { body }),
      deleteSender: async (appId, country) => { await call<undefined>('routes.deleteSender', { appId, country }); },
    },
    twilio: {
      getAuthToken: () => call('twilio.getAuthToken', none),
      rotateAuthToken: () => call('twilio.rotateAuthToken', none),
    },
    vonage: {
      listApplications: async () => (await call<{ applications: VonageApplication[] }>('vonage.listApplications', none)).applications,
      getApplication: (applicationId) => call('vonage.getApplication', { applicationId }),
      rotateSignatureSecret: (applicationId) => call('vonage.rotateSignatureSecret', { applicationId }),
      updateApplication: (applicationId, body) => call('vonage.updateApplication', { applicationId }, { body }),
      deleteApplication: async (applicationId) => { await call<undefined>('vonage.deleteApplication', { applicationId }); },
    },
    prelude: {
      getSettings: () => call('prelude.getSettings', none),
      updateSettings: (body) => call('prelude.updateSettings', none, { body }),
    },
    inbox: {
      list: async (query = {}) => {
        const answer = await call<{ messages: InboxMessage[] }>('inbox.list', none, { query: { to: query.to, limit: query.limit } });
        return answer.messages;
      },
    },
    stats: {
      get: (query = {}) => call('stats.get', none, { query: { from: query.from, to: query.to, bucket: query.bucket } }),
      spend: (query = {}) => call('stats.spend', none, { query: { by: query.by, from: query.from, to: query.to } }),
    },
    budgets: {
      get: () => call('budgets.get', none),
      set: (body) => call('budgets.set', none, { body }),
      delete: async () => { await call<undefined>('budgets.delete', none); },
      getApplication: (appId) => call('budgets.getApplication', { appId }),
      setApplication: (appId, body) => call('budgets.setApplication', { appId }, { body }),
      deleteApplication: async (appId) => { await call<undefined>('budgets.deleteApplication', { appId }); },
    },
    prices: {
      get: () => call('prices.get', none),
      reload: () => call('prices.reload', none),
    },
    keys: {
      list: async () => (await call<{ keys: ApiKey[] }>('keys.list', none)).keys,
      create: (body) => call('keys.create', none, { body }),
      revoke: async (id) => { await call<undefined>('keys.revoke', { id }); },
    },
    account: {
      me: () => call('account.me', none),
    },
    security: {
      get: (appId) => call('security.get', { appId }),
      update: (appId, body) => call('security.update', { appId }, { body }),
    },
    workflows: {
      get: (appId) => call('workflows.get', { appId }),
      set: (appId, body) => call('workflows.set', { appId }, { body }),
      delete: async (appId) => { await call<undefined>('workflows.delete', { appId }); },
    },
    passkeys: {
      getSettings: (appId) => call('passkeys.getSettings', { appId }),
      updateSettings: (appId, body) => call('passkeys.updateSettings', { appId }, { body }),
      create: (appId, body) => call('passkeys.create', { appId }, { body }),
      verify: (appId, credential) => call('passkeys.verify', { appId }, { body: credential }),
      createChallenge: (appId, body = {}) => call('passkeys.createChallenge', { appId }, { body }),
      approveChallenge: (appId, credential) => call('passkeys.approveChallenge', { appId }, { body: credential }),
    },
    risk: {
      get: (appId) => call('risk.get', { appId }),
      update: (appId, body) => call('risk.update', { appId }, { body }),
      decisions: (query = {}) => call('risk.decisions', none, {
        query: { applicationId: query.applicationId, country: query.country, decision: query.decision, since: query.since, until: query.until, cursor: query.cursor, limit: query.limit },
      }),
      savings: (query = {}) => call('risk.savings', none, { query: { applicationId: query.applicationId, since: query.since, until: query.until } }),
    },
    safeList: {
      list: () => call('safeList.list', none),
      add: (entry) => call('safeList.add', none, { body: entry.endsWith('*') ? { prefix: entry.slice(0, -1) } : { phoneNumber: entry } }),
      get: (entry) => call('safeList.get', { entry }),
      remove: async (entry) => { await call<undefined>('safeList.remove', { entry }); },
    },
    audit: {
      list: (query = {}) => call('audit.list', none, {
        query: { applicationId: query.applicationId, pinId: query.pinId, event: query.event, after: query.after, limit: query.limit },
      }),
    },
    health: {
      ready: async () => {
        // A readiness probe answers a yes/no question: 503 (shutting down, database unreachable) and
        // no answer at all both mean "not ready", and neither is worth an exception.
        try {
          const response = await send('health.ready', none);
          await response.arrayBuffer();
          return response.ok;
        } catch {
          return false;
        }
      },
    },
  };
}
