// The Prelude Verify v2 dialect under /v2/verification: JSON in and out, Bearer tokens that are twofa
// API keys, Prelude's error body. Every route of it declares the dialect (route-options.ts).
import type { RegisterRoute } from '../../route-types.js';
import checkVerification from './check-verification.js';
import createVerification from './create-verification.js';

const PRELUDE_ROUTES: RegisterRoute[] = [createVerification, checkVerification];

const register: RegisterRoute = (app, deps) => {
  for (const route of PRELUDE_ROUTES) route(app, deps);
};
export default register;
