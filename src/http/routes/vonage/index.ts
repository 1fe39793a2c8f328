// The Vonage Verify v2 dialect under /v2/verify: JSON in and out, a Vonage application's JWT or Basic
// api_key:api_secret (service/vonage-credentials.ts), RFC 7807 problems. Every route of it declares
// the dialect (route-options.ts).
import type { RegisterRoute } from '../../route-types.js';
import cancelVerification from './cancel-verification.js';
import checkCode from './check-code.js';
import createTemplate from './create-template.js';
import createTemplateFragment from './create-template-fragment.js';
import deleteTemplate from './delete-template.js';
import deleteTemplateFragment from './delete-template-fragment.js';
import getTemplate from './get-template.js';
import getTemplateFragment from './get-template-fragment.js';
import listTemplateFragments from './list-template-fragments.js';
import listTemplates from './list-templates.js';
import nextWorkflow from './next-workflow.js';
import startVerification from './start-verification.js';
import updateTemplate from './update-template.js';
import updateTemplateFragment from './update-template-fragment.js';

const VONAGE_ROUTES: RegisterRoute[] = [
  startVerification, checkCode, cancelVerification, nextWorkflow,
  listTemplates, createTemplate, getTemplate, updateTemplate, deleteTemplate,
  listTemplateFragments, createTemplateFragment, getTemplateFragment, updateTemplateFragment, deleteTemplateFragment,
];

const register: RegisterRoute = (app, deps) => {
  for (const route of VONAGE_ROUTES) route(app, deps);
};
export default register;
