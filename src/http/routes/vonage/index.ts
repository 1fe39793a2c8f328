// The Vonage Verify v2 dialect under /v2/verify: JSON in and out, a Vonage application's JWT or Basic
// api_key:api_secret (service/vonage-credentials.ts), RFC 7807 problems. Every route of it declares
// the dialect (route-options.ts).
import type { RegisterRoute } from '../../route-types.js';
import cancelVerification from './cancel-verification.js';
import checkCode from './check-code.js';
import nextWorkflow from './next-workflow.js';
import startVerification from './start-verification.js';

const VONAGE_ROUTES: RegisterRoute[] = [startVerification, checkCode, cancelVerification, nextWorkflow];

const register: RegisterRoute = (app, deps) => {
  for (const route of VONAGE_ROUTES) route(app, deps);
};
export default register;
