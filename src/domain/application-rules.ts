// Infobip's application configuration: its defaults, and the checks a configuration must pass.
import { ONE_DAY_MS, ONE_YEAR_MS, validateLimit, validateTimeToLive } from './durations.js';
import { FieldErrors } from './errors.js';
import type { WorkflowStep } from './workflows.js';

/** An application's Infobip configuration, as stored and as its API shows it. */
export interface ApplicationConfiguration {
  pinAttempts: number;
  allowMultiplePinVerifications: boolean;
  pinTimeToLive: string;
  verifyPinLimit: string;
  sendPinPerApplicationLimit: string;
  sendPinPerPhoneNumberLimit: string;
}

export interface ApplicationRecord {
  id: string;
  accountId: string;
  name: string;
  enabled: boolean;
  configuration: ApplicationConfiguration;
  createdAt: number;
  updatedAt: number;
  /** The channels a PIN goes out on in turn (domain/workflows.ts); absent or null: only the one asked for. */
  workflow?: readonly WorkflowStep[] | null;
}

export const DEFAULT_CONFIGURATION: Readonly<ApplicationConfiguration> = Object.freeze({
  pinAttempts: 10,
  allowMultiplePinVerifications: true,
  pinTimeToLive: '15m',
  verifyPinLimit: '1/3s',
  sendPinPerApplicationLimit: '10000/1d',
  sendPinPerPhoneNumberLimit: '3/1d',
});

export const PIN_ATTEMPTS_MAX = 1000;
export const APPLICATION_NAME_MAX = 255;

/**
 * Applies a (partial) configuration on top of `base`. Some clients (the community Go SDK) send
 * every field with its zero value when unset, so `0` and `""` mean "keep what is there".
 */
export function mergeConfiguration(base: ApplicationConfiguration, patch: Partial<ApplicationConfiguration> | undefined, errors: FieldErrors): ApplicationConfiguration {
  const merged = { ...base };
  if (!patch) return merged;
  if (patch.pinAttempts !== undefined && patch.pinAttempts !== 0) {
    if (!Number.isInteger(patch.pinAttempts) || patch.pinAttempts < 1 || patch.pinAttempts > PIN_ATTEMPTS_MAX) {
      errors.add('configuration.pinAttempts', `must be a whole number between 1 and ${PIN_ATTEMPTS_MAX}`);
    } else merged.pinAttempts = patch.pinAttempts;
  }
  if (patch.allowMultiplePinVerifications !== undefined) merged.allowMultiplePinVerifications = patch.allowMultiplePinVerifications;
  if (patch.pinTimeToLive !== undefined && patch.pinTimeToLive !== '') {
    errors.add('configuration.pinTimeToLive', validateTimeToLive(patch.pinTimeToLive));
    merged.pinTimeToLive = patch.pinTimeToLive;
  }
  const limits = [
    ['verifyPinLimit', ONE_DAY_MS],
    ['sendPinPerApplicationLimit', ONE_YEAR_MS],
    ['sendPinPerPhoneNumberLimit', ONE_YEAR_MS],
  ] as const;
  for (const [field, maxWindow] of limits) {
    const value = patch[field];
    if (value === undefined || value === '') continue;
    errors.add(`configuration.${field}`, validateLimit(value, maxWindow));
    merged[field] = value;
  }
  return merged;
}

export function validateApplicationName(name: string, errors: FieldErrors): void {
  if (name.trim().length === 0) errors.add('name', 'must not be blank');
  else if (name.length > APPLICATION_NAME_MAX) errors.add('name', `must be at most ${APPLICATION_NAME_MAX} characters`);
}
