// The operator's security profile (TWOFA_SECURITY_PROFILE). `compatible` keeps Infobip's defaults
// and ranges (10 attempts, several verifications of one PIN, 4-digit PINs, TTL up to a year, guards
// off), so clients written for Infobip behave as they expect. `strict` puts floors under every
// application and template, whenever they were made: what is stored stays as the client wrote it
// (switching back to `compatible` restores it), and what is used and shown is the floored value,
// computed here and nowhere else.
import { parseDuration } from './durations.js';
import type { SecuritySettings } from './security-settings.js';
import type { ApplicationConfiguration, ApplicationRecord } from './application-rules.js';

export type SecurityProfile = 'compatible' | 'strict';

export const SECURITY_PROFILES: readonly SecurityProfile[] = ['compatible', 'strict'];

/** The floors of the strict profile, each with the rule it follows. */
export const STRICT_FLOORS = Object.freeze({
  /** At least 20 bits of entropy: NIST SP 800-63B §5.1.3.2, ASVS 4.0.3 2.7.6, ASVS 5.0 6.5.4 ("6 random digits"). */
  pinLengthMin: 6,
  /** Per-PIN attempt cap of 3 to 5 (security test plan G4), well inside NIST SP 800-63B §5.2.2 / ASVS 2.2.1 (100). */
  pinAttemptsMax: 5,
  /** Out-of-band codes expire within 10 minutes: NIST SP 800-63B §5.1.3.2, ASVS 4.0.3 2.7.2, ASVS 5.0 6.5.5. */
  pinTimeToLiveMax: '10m',
  /** A code is accepted only once: NIST SP 800-63B §5.1.3.2, ASVS 4.0.3 2.7.3, ASVS 5.0 6.5.1. */
  allowMultiplePinVerifications: false,
});

const TTL_MAX_MS = parseDuration(STRICT_FLOORS.pinTimeToLiveMax) as number;

/** The configuration an application is used and shown with under `profile`. */
export function effectiveConfiguration(profile: SecurityProfile, configuration: ApplicationConfiguration): ApplicationConfiguration {
  if (profile === 'compatible') return configuration;
  const ttl = parseDuration(configuration.pinTimeToLive);
  return {
    ...configuration,
    pinAttempts: Math.min(configuration.pinAttempts, STRICT_FLOORS.pinAttemptsMax),
    allowMultiplePinVerifications: STRICT_FLOORS.allowMultiplePinVerifications,
    pinTimeToLive: ttl !== null && ttl <= TTL_MAX_MS ? configuration.pinTimeToLive : STRICT_FLOORS.pinTimeToLiveMax,
  };
}

export function effectiveApplication(profile: SecurityProfile, app: ApplicationRecord): ApplicationRecord {
  return profile === 'compatible' ? app : { ...app, configuration: effectiveConfiguration(profile, app.configuration) };
}

/** A message template (SMS/voice or email) as used and shown: PINs of at least 6 characters under `strict`. */
export function effectiveTemplate<T extends { pinLength: number }>(profile: SecurityProfile, template: T): T {
  if (profile === 'compatible' || template.pinLength >= STRICT_FLOORS.pinLengthMin) return template;
  return { ...template, pinLength: STRICT_FLOORS.pinLengthMin };
}

/**
 * Why a code the client chose (a Twilio CustomCode, a test number's fixed code) is too short for
 * `profile`, or undefined: the PIN-length floor holds for codes twofa does not generate too.
 */
export function chosenCodeTooShort(profile: SecurityProfile, code: string): string | undefined {
  if (profile === 'compatible' || code.length >= STRICT_FLOORS.pinLengthMin) return undefined;
  return `must be at least ${STRICT_FLOORS.pinLengthMin} characters under the strict security profile`;
}

/**
 * The anti-fraud guards as they run under `profile`: `strict` turns the guards on, refuses
 * premium-rate and shared-cost numbers and watches the verification rate per country (the
 * conversion breaker), against SMS pumping (ASVS 5.0 2.4.1, 6.3.1). Country and prefix lists and the
 * per-address and per-range limits stay as the application set them: no value fits every deployment.
 */
export function effectiveSecuritySettings(profile: SecurityProfile, settings: SecuritySettings): SecuritySettings {
  if (profile === 'compatible') return settings;
  return { ...settings, enabled: true, refusePremiumNumbers: true, conversionBreaker: { ...settings.conversionBreaker, enabled: true } };
}
