// twofa's own API for the factor model (docs/factors.md): a user's factors under the application they
// belong to (an identity names a user within one application, as within one Twilio Service).
import type { RegisterRoute } from '../../../route-types.js';
import answerChallenge from './answer-challenge.js';
import createChallenge from './create-challenge.js';
import createFactor from './create-factor.js';
import deleteEntity from './delete-entity.js';
import deleteFactor from './delete-factor.js';
import getChallenge from './get-challenge.js';
import listEntities from './list-entities.js';
import listFactors from './list-factors.js';
import verifyFactor from './verify-factor.js';

export const API_V1_FACTOR_ROUTES: RegisterRoute[] = [
  listEntities, deleteEntity, listFactors, createFactor, verifyFactor, deleteFactor, createChallenge, getChallenge, answerChallenge,
];
