// Every HTTP operation the client performs, in one table. The client builds each request from this
// table (never from a path written elsewhere), so a test can hold the table against the server's
// OpenAPI document and know that it checks what the client really sends.

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

const OPERATIONS = {
  'applications.list': { method: 'GET', path: '/2fa/2/applications' },
  'applications.create': { method: 'POST', path: '/2fa/2/applications' },
  'applications.get': { method: 'GET', path: '/2fa/2/applications/{appId}' },
  'applications.update': { method: 'PUT', path: '/2fa/2/applications/{appId}' },

  'messages.list': { method: 'GET', path: '/2fa/2/applications/{appId}/messages' },
  'messages.create': { method: 'POST', path: '/2fa/2/applications/{appId}/messages' },
  'messages.get': { method: 'GET', path: '/2fa/2/applications/{appId}/messages/{msgId}' },
  'messages.update': { method: 'PUT', path: '/2fa/2/applications/{appId}/messages/{msgId}' },
  'messages.createEmail': { method: 'POST', path: '/2fa/2/applications/{appId}/email/messages' },
  'messages.updateEmail': { method: 'PUT', path: '/2fa/2/applications/{appId}/email/messages/{msgId}' },
  'messages.getAutofill': { method: 'GET', path: '/api/v1/applications/{appId}/messages/{msgId}/autofill' },
  'messages.setAutofill': { method: 'PUT', path: '/api/v1/applications/{appId}/messages/{msgId}/autofill' },
  'messages.listTexts': { method: 'GET', path: '/api/v1/applications/{appId}/messages/{msgId}/texts' },
  'messages.addText': { method: 'POST', path: '/api/v1/applications/{appId}/messages/{msgId}/texts' },
  'messages.getText': { method: 'GET', path: '/api/v1/applications/{appId}/messages/{msgId}/texts/{textId}' },
  'messages.updateText': { method: 'PUT', path: '/api/v1/applications/{appId}/messages/{msgId}/texts/{textId}' },
  'messages.deleteText': { method: 'DELETE', path: '/api/v1/applications/{appId}/messages/{msgId}/texts/{textId}' },

  'pins.sendSms': { method: 'POST', path: '/2fa/2/pin' },
  'pins.sendVoice': { method: 'POST', path: '/2fa/2/pin/voice' },
  'pins.sendEmail': { method: 'POST', path: '/2fa/2/pin/email' },
  'pins.sendWhatsapp': { method: 'POST', path: '/2fa/2/pin/whatsapp' },
  'pins.sendTelegram': { method: 'POST', path: '/2fa/2/pin/telegram' },
  'pins.resendSms': { method: 'POST', path: '/2fa/2/pin/{pinId}/resend' },
  'pins.resendVoice': { method: 'POST', path: '/2fa/2/pin/{pinId}/resend/voice' },
  'pins.resendEmail': { method: 'POST', path: '/2fa/2/pin/{pinId}/resend/email' },
  'pins.resendWhatsapp': { method: 'POST', path: '/2fa/2/pin/{pinId}/resend/whatsapp' },
  'pins.resendTelegram': { method: 'POST', path: '/2fa/2/pin/{pinId}/resend/telegram' },
  'pins.verify': { method: 'POST', path: '/2fa/2/pin/{pinId}/verify' },
  'pins.verificationStatus': { method: 'GET', path: '/2fa/2/applications/{appId}/verifications' },
  'pins.get': { method: 'GET', path: '/api/v1/pins/{pinId}' },

  'emailTemplates.list': { method: 'GET', path: '/api/v1/email-templates' },
  'emailTemplates.create': { method: 'POST', path: '/api/v1/email-templates' },
  'emailTemplates.get': { method: 'GET', path: '/api/v1/email-templates/{id}' },
  'emailTemplates.update': { method: 'PUT', path: '/api/v1/email-templates/{id}' },
  'emailTemplates.delete': { method: 'DELETE', path: '/api/v1/email-templates/{id}' },

  'inbox.list': { method: 'GET', path: '/api/v1/inbox' },

  'webhooks.list': { method: 'GET', path: '/api/v1/webhooks' },
  'webhooks.create': { method: 'POST', path: '/api/v1/webhooks' },
  'webhooks.get': { method: 'GET', path: '/api/v1/webhooks/{webhookId}' },
  'webhooks.update': { method: 'PUT', path: '/api/v1/webhooks/{webhookId}' },
  'webhooks.delete': { method: 'DELETE', path: '/api/v1/webhooks/{webhookId}' },
  'testNumbers.list': { method: 'GET', path: '/api/v1/test-numbers' },
  'testNumbers.create': { method: 'POST', path: '/api/v1/test-numbers' },
  'testNumbers.delete': { method: 'DELETE', path: '/api/v1/test-numbers/{id}' },

  'routes.list': { method: 'GET', path: '/api/v1/routes' },
  'routes.reload': { method: 'POST', path: '/api/v1/routes/reload' },
  'routes.explain': { method: 'GET', path: '/api/v1/routes/explain' },
  'routes.listSenders': { method: 'GET', path: '/api/v1/applications/{appId}/senders' },
  'routes.setSender': { method: 'PUT', path: '/api/v1/applications/{appId}/senders/{country}' },
  'routes.deleteSender': { method: 'DELETE', path: '/api/v1/applications/{appId}/senders/{country}' },

  'twilio.getAuthToken': { method: 'GET', path: '/api/v1/twilio/auth-token' },
  'twilio.rotateAuthToken': { method: 'POST', path: '/api/v1/twilio/auth-token' },
  'prelude.getSettings': { method: 'GET', path: '/api/v1/prelude/settings' },
  'prelude.updateSettings': { method: 'PUT', path: '/api/v1/prelude/settings' },
  'vonage.listApplications': { method: 'GET', path: '/api/v1/vonage/applications' },
  'vonage.getApplication': { method: 'GET', path: '/api/v1/vonage/applications/{applicationId}' },
  'vonage.updateApplication': { method: 'PUT', path: '/api/v1/vonage/applications/{applicationId}' },
  'vonage.deleteApplication': { method: 'DELETE', path: '/api/v1/vonage/applications/{applicationId}' },
  'vonage.rotateSignatureSecret': { method: 'POST', path: '/api/v1/vonage/applications/{applicationId}/signature-secret' },

  'pins.list': { method: 'GET', path: '/api/v1/pins' },
  'stats.get': { method: 'GET', path: '/api/v1/stats' },
  'keys.list': { method: 'GET', path: '/api/v1/keys' },
  'keys.create': { method: 'POST', path: '/api/v1/keys' },
  'keys.revoke': { method: 'DELETE', path: '/api/v1/keys/{id}' },
  'account.me': { method: 'GET', path: '/api/v1/me' },

  'security.get': { method: 'GET', path: '/api/v1/applications/{appId}/security' },
  'security.update': { method: 'PUT', path: '/api/v1/applications/{appId}/security' },
  'audit.list': { method: 'GET', path: '/api/v1/audit' },
  'risk.get': { method: 'GET', path: '/api/v1/applications/{appId}/risk' },
  'risk.update': { method: 'PUT', path: '/api/v1/applications/{appId}/risk' },
  'risk.decisions': { method: 'GET', path: '/api/v1/risk/decisions' },
  'risk.savings': { method: 'GET', path: '/api/v1/risk/savings' },
  'safeList.list': { method: 'GET', path: '/api/v1/safe-list' },
  'safeList.add': { method: 'POST', path: '/api/v1/safe-list' },
  'safeList.get': { method: 'GET', path: '/api/v1/safe-list/{entry}' },
  'safeList.remove': { method: 'DELETE', path: '/api/v1/safe-list/{entry}' },

  'workflows.get': { method: 'GET', path: '/api/v1/applications/{appId}/workflow' },
  'workflows.set': { method: 'PUT', path: '/api/v1/applications/{appId}/workflow' },
  'workflows.delete': { method: 'DELETE', path: '/api/v1/applications/{appId}/workflow' },

  'budgets.get': { method: 'GET', path: '/api/v1/budget' },
  'budgets.set': { method: 'PUT', path: '/api/v1/budget' },
  'budgets.delete': { method: 'DELETE', path: '/api/v1/budget' },
  'budgets.getApplication': { method: 'GET', path: '/api/v1/applications/{appId}/budget' },
  'budgets.setApplication': { method: 'PUT', path: '/api/v1/applications/{appId}/budget' },
  'budgets.deleteApplication': { method: 'DELETE', path: '/api/v1/applications/{appId}/budget' },
  'stats.spend': { method: 'GET', path: '/api/v1/stats/spend' },
  'prices.get': { method: 'GET', path: '/api/v1/prices' },
  'prices.reload': { method: 'POST', path: '/api/v1/prices/reload' },
  'passkeys.getSettings': { method: 'GET', path: '/api/v1/applications/{appId}/passkeys/settings' },
  'passkeys.updateSettings': { method: 'PUT', path: '/api/v1/applications/{appId}/passkeys/settings' },
  'passkeys.create': { method: 'POST', path: '/api/v1/applications/{appId}/passkeys' },
  'passkeys.verify': { method: 'POST', path: '/api/v1/applications/{appId}/passkeys/verify' },
  'passkeys.createChallenge': { method: 'POST', path: '/api/v1/applications/{appId}/passkey-challenges' },
  'passkeys.approveChallenge': { method: 'POST', path: '/api/v1/applications/{appId}/passkey-challenges/approve' },
  'factors.listEntities': { method: 'GET', path: '/api/v1/applications/{appId}/entities' },
  'factors.deleteEntity': { method: 'DELETE', path: '/api/v1/applications/{appId}/entities/{identity}' },
  'factors.list': { method: 'GET', path: '/api/v1/applications/{appId}/entities/{identity}/factors' },
  'factors.create': { method: 'POST', path: '/api/v1/applications/{appId}/entities/{identity}/factors' },
  'factors.verify': { method: 'POST', path: '/api/v1/applications/{appId}/entities/{identity}/factors/{factorSid}/verification' },
  'factors.delete': { method: 'DELETE', path: '/api/v1/applications/{appId}/entities/{identity}/factors/{factorSid}' },
  'factors.challenge': { method: 'POST', path: '/api/v1/applications/{appId}/entities/{identity}/challenges' },
  'factors.getChallenge': { method: 'GET', path: '/api/v1/applications/{appId}/entities/{identity}/challenges/{challengeSid}' },
  'factors.answerChallenge': { method: 'POST', path: '/api/v1/applications/{appId}/entities/{identity}/challenges/{challengeSid}' },

  'health.ready': { method: 'GET', path: '/readyz' },
} as const satisfies Record<string, { method: HttpMethod; path: string }>;

type Operations = typeof OPERATIONS;
/** `'<group>.<method>'`, the client method that performs the operation. */
export type OperationName = keyof Operations;

export interface ClientOperation {
  name: OperationName;
  method: HttpMethod;
  /** OpenAPI-style template: `{name}` stands for a path parameter. */
  path: string;
}

export const CLIENT_OPERATIONS: readonly ClientOperation[] = Object.freeze(
  (Object.keys(OPERATIONS) as OperationName[]).map((name) => Object.freeze({ name, ...OPERATIONS[name] })),
);

/** The `{name}` parameters of a path template, as an object type: a forgotten one is a type error. */
type ParamsOf<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? { [K in Name]: string | number } & ParamsOf<Rest> : unknown;
export type OperationParams<N extends OperationName> = ParamsOf<Operations[N]['path']>;

/**
 * The method and the path of an operation with its parameters filled in. Each parameter is
 * percent-encoded: an id holding `/`, `?` or `#` must stay one path segment, never reach another route.
 */
export function resolveOperation<N extends OperationName>(name: N, params: OperationParams<N>): { method: HttpMethod; path: string } {
  const { method, path } = OPERATIONS[name];
  const values = params as Record<string, string | number>;
  const filled = path.replace(/\{([^}]+)\}/g, (_match, key: string) => {
    const value = values[key];
    if (value === undefined) throw new TypeError(`${name}: missing path parameter ${key}`);
    const text = String(value);
    // An empty segment, or a dot segment (which URL parsing resolves away even when percent-encoded),
    // would silently turn the request into another operation, e.g. a list instead of a get.
    if (text === '' || text === '.' || text === '..') throw new TypeError(`${name}: path parameter ${key} cannot be ${JSON.stringify(text)}`);
    return encodeURIComponent(text);
  });
  return { method, path: filled };
}
