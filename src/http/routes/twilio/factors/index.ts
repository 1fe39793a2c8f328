// Twilio Verify's Entities, Factors and Challenges (docs/factors.md): the routes of the factor model
// that are not a factor type's own (the passkeys routes sit beside these).
import type { RegisterRoute } from '../../../route-types.js';
import createChallenge from './create-challenge.js';
import createEntity from './create-entity.js';
import createFactor from './create-factor.js';
import deleteEntity from './delete-entity.js';
import deleteFactor from './delete-factor.js';
import fetchChallenge from './fetch-challenge.js';
import fetchEntity from './fetch-entity.js';
import fetchFactor from './fetch-factor.js';
import listChallenges from './list-challenges.js';
import listEntities from './list-entities.js';
import listFactors from './list-factors.js';
import updateChallenge from './update-challenge.js';
import updateFactor from './update-factor.js';

export const FACTOR_ROUTES: RegisterRoute[] = [
  createEntity, listEntities, fetchEntity, deleteEntity,
  createFactor, listFactors, fetchFactor, updateFactor, deleteFactor,
  createChallenge, listChallenges, fetchChallenge, updateChallenge,
];
