// Every route, one file per operation. Adding an endpoint means adding its file here.
import type { RegisterRoute } from '../route-types.js';
import createEmailTemplate from './api-v1/create-email-template.js';
import deleteEmailTemplate from './api-v1/delete-email-template.js';
import getEmailTemplate from './api-v1/get-email-template.js';
import getPin from './api-v1/get-pin.js';
import providerCallback from './api-v1/provider-callback.js';
import health from './health.js';
import metrics from './metrics.js';
import listEmailTemplates from './api-v1/list-email-templates.js';
import listInbox from './api-v1/list-inbox.js';
import updateEmailTemplate from './api-v1/update-email-template.js';
import createApplication from './infobip/create-application.js';
import createEmailMessageTemplate from './infobip/create-email-message-template.js';
import createMessageTemplate from './infobip/create-message-template.js';
import getApplication from './infobip/get-application.js';
import getMessageTemplate from './infobip/get-message-template.js';
import getVerificationStatus from './infobip/get-verification-status.js';
import listApplications from './infobip/list-applications.js';
import listMessageTemplates from './infobip/list-message-templates.js';
import resendPinEmail from './infobip/resend-pin-email.js';
import resendPinSms from './infobip/resend-pin-sms.js';
import resendPinVoice from './infobip/resend-pin-voice.js';
import sendPinEmail from './infobip/send-pin-email.js';
import sendPinSms from './infobip/send-pin-sms.js';
import sendPinVoice from './infobip/send-pin-voice.js';
import updateApplication from './infobip/update-application.js';
import updateEmailMessageTemplate from './infobip/update-email-message-template.js';
import updateMessageTemplate from './infobip/update-message-template.js';
import verifyPin from './infobip/verify-pin.js';
import sendPinMessagingApp from './messaging/send-pin-messaging-app.js';
import createWebhook from './api-v1/create-webhook.js';
import deleteWebhook from './api-v1/delete-webhook.js';
import getWebhook from './api-v1/get-webhook.js';
import listWebhooks from './api-v1/list-webhooks.js';
import updateWebhook from './api-v1/update-webhook.js';
import consolePages from './console.js';
import createApiKey from './api-v1/create-api-key.js';
import getMe from './api-v1/get-me.js';
import getStats from './api-v1/get-stats.js';
import listApiKeys from './api-v1/list-api-keys.js';
import listPins from './api-v1/list-pins.js';
import revokeApiKey from './api-v1/revoke-api-key.js';
import getApplicationSecurity from './api-v1/get-application-security.js';
import listAudit from './api-v1/list-audit.js';
import updateApplicationSecurity from './api-v1/update-application-security.js';
import getApplicationRisk from './api-v1/get-application-risk.js';
import updateApplicationRisk from './api-v1/update-application-risk.js';
import listRiskDecisions from './api-v1/list-risk-decisions.js';
import getRiskSavings from './api-v1/get-risk-savings.js';
import addSafeListEntry from './api-v1/add-safe-list-entry.js';
import getSafeListEntry from './api-v1/get-safe-list-entry.js';
import removeSafeListEntry from './api-v1/remove-safe-list-entry.js';
import listSafeList from './api-v1/list-safe-list.js';
import getBudget from './api-v1/get-budget.js';
import updateBudget from './api-v1/update-budget.js';
import deleteBudget from './api-v1/delete-budget.js';
import getApplicationBudget from './api-v1/get-application-budget.js';
import updateApplicationBudget from './api-v1/update-application-budget.js';
import deleteApplicationBudget from './api-v1/delete-application-budget.js';
import getSpend from './api-v1/get-spend.js';
import getPrices from './api-v1/get-prices.js';
import reloadPrices from './api-v1/reload-prices.js';
import getApplicationWorkflow from './api-v1/get-application-workflow.js';
import updateApplicationWorkflow from './api-v1/update-application-workflow.js';
import deleteApplicationWorkflow from './api-v1/delete-application-workflow.js';
import twilioVerify from './twilio/index.js';
import getTemplateAutofill from './api-v1/get-template-autofill.js';
import updateTemplateAutofill from './api-v1/update-template-autofill.js';
import listTemplateTexts from './api-v1/list-template-texts.js';
import createTemplateText from './api-v1/create-template-text.js';
import getTemplateText from './api-v1/get-template-text.js';
import updateTemplateText from './api-v1/update-template-text.js';
import deleteTemplateText from './api-v1/delete-template-text.js';
import createTestNumber from './api-v1/create-test-number.js';
import deleteTestNumber from './api-v1/delete-test-number.js';
import listTestNumbers from './api-v1/list-test-numbers.js';
import getTwilioAuthToken from './api-v1/get-twilio-auth-token.js';
import rotateTwilioAuthToken from './api-v1/rotate-twilio-auth-token.js';
import preludeVerify from './prelude/index.js';
import getPreludeSettings from './api-v1/get-prelude-settings.js';
import updatePreludeSettings from './api-v1/update-prelude-settings.js';
import vonageVerify from './vonage/index.js';
import getVonageApplication from './api-v1/get-vonage-application.js';
import updateVonageApplication from './api-v1/update-vonage-application.js';
import deleteVonageApplication from './api-v1/delete-vonage-application.js';
import listRoutes from './api-v1/list-routes.js';
import reloadRoutes from './api-v1/reload-routes.js';
import explainRoute from './api-v1/explain-route.js';
import listApplicationSenders from './api-v1/list-application-senders.js';
import updateApplicationSender from './api-v1/update-application-sender.js';
import deleteApplicationSender from './api-v1/delete-application-sender.js';
import listVonageApplications from './api-v1/list-vonage-applications.js';
import rotateVonageSignatureSecret from './api-v1/rotate-vonage-signature-secret.js';
import { API_V1_FACTOR_ROUTES } from './api-v1/factors/index.js';

import getPasskeySettings from './api-v1/get-passkey-settings.js';
import updatePasskeySettings from './api-v1/update-passkey-settings.js';
import createPasskey from './api-v1/create-passkey.js';
import verifyPasskey from './api-v1/verify-passkey.js';
import createPasskeyChallenge from './api-v1/create-passkey-challenge.js';
import approvePasskeyChallenge from './api-v1/approve-passkey-challenge.js';
export const ALL_ROUTES: RegisterRoute[] = [
  // Infobip 2FA API v2: the 18 operations
  listApplications, createApplication, getApplication, updateApplication,
  listMessageTemplates, createMessageTemplate, getMessageTemplate, updateMessageTemplate,
  createEmailMessageTemplate, updateEmailMessageTemplate,
  sendPinSms, sendPinVoice, sendPinEmail, resendPinSms, resendPinVoice, resendPinEmail,
  verifyPin, getVerificationStatus,
  // twofa's channels beyond Infobip's: WhatsApp and Telegram, in the shape of the SMS send
  sendPinMessagingApp,
  // the service's own API
  createEmailTemplate, listEmailTemplates, getEmailTemplate, updateEmailTemplate, deleteEmailTemplate,
  getPin, listInbox, providerCallback, health, metrics,
  // webhook subscriptions to PIN events
  createWebhook, listWebhooks, getWebhook, updateWebhook, deleteWebhook,
  // the console: its own API operations, and the app itself at /console
  listPins, getStats, getMe, listApiKeys, createApiKey, revokeApiKey, consolePages,
  // anti-fraud guards and the audit log
  getApplicationSecurity, updateApplicationSecurity, getApplicationRisk, updateApplicationRisk, listRiskDecisions, getRiskSavings, listSafeList, addSafeListEntry, getSafeListEntry, removeSafeListEntry, listAudit,
  // Twilio Verify v2 under /v2: its own plugin (form bodies, Twilio's errors and Basic auth)
  twilioVerify, getTwilioAuthToken, rotateTwilioAuthToken,
  // Prelude Verify v2 under /v2/verification (JSON, Bearer API keys, Prelude's errors), and its account settings
  preludeVerify, getPreludeSettings, updatePreludeSettings,
  vonageVerify, listVonageApplications, getVonageApplication, updateVonageApplication, deleteVonageApplication, rotateVonageSignatureSecret,
  // SMS autofill lines of 2FA messages
  getTemplateAutofill, updateTemplateAutofill,
  // locale texts of 2FA messages (Vonage's template fragments), picked at delivery by a send's locale
  listTemplateTexts, createTemplateText, getTemplateText, updateTemplateText, deleteTemplateText,
  // test numbers: fixed codes, nothing delivered (app-store review, end-to-end tests)
  createTestNumber, listTestNumbers, deleteTestNumber,
  // prices, spend and budgets (docs/routing.md)
  getBudget, updateBudget, deleteBudget, getApplicationBudget, updateApplicationBudget, deleteApplicationBudget, getSpend, getPrices, reloadPrices,
  // fallback workflows across channels
  getApplicationWorkflow, updateApplicationWorkflow, deleteApplicationWorkflow,
  // routes: the operator's table explained and reloaded, the applications' own senders per country
  listRoutes, reloadRoutes, explainRoute, listApplicationSenders, updateApplicationSender, deleteApplicationSender,
  // passkeys (WebAuthn) of an application's users, beside Twilio's /Passkeys routes
  getPasskeySettings, updatePasskeySettings, createPasskey, verifyPasskey, createPasskeyChallenge, approvePasskeyChallenge,
  // a user's own authenticators (TOTP factors) and their challenges
  ...API_V1_FACTOR_ROUTES,
];
