// The floors of TWOFA_SECURITY_PROFILE as a pure function: what `strict` changes, what it leaves, and
// that `compatible` leaves everything as stored.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_CONFIGURATION } from '../../src/domain/application-rules.js';
import { effectiveConfiguration, effectiveSecuritySettings, effectiveTemplate } from '../../src/domain/security-profile.js';
import { DEFAULT_SECURITY_SETTINGS, settingsFromJson } from '../../src/domain/security-settings.js';

describe('effectiveConfiguration', () => {
  it('caps attempts at 5 and TTL at 10 minutes, and makes a PIN single-use, under strict only', () => {
    const lax = { ...DEFAULT_CONFIGURATION, pinAttempts: 100, pinTimeToLive: '365d', allowMultiplePinVerifications: true };
    assert.deepEqual(effectiveConfiguration('strict', lax), { ...lax, pinAttempts: 5, pinTimeToLive: '10m', allowMultiplePinVerifications: false });
    assert.equal(effectiveConfiguration('compatible', lax), lax);
  });

  it('keeps a TTL of exactly 10 minutes however it is written, and values already within the floors', () => {
    const tight = { ...DEFAULT_CONFIGURATION, pinAttempts: 3, pinTimeToLive: '600s', allowMultiplePinVerifications: false };
    assert.deepEqual(effectiveConfiguration('strict', tight), tight);
    assert.equal(effectiveConfiguration('strict', { ...tight, pinTimeToLive: '601s' }).pinTimeToLive, '10m');
  });
});

describe('effectiveTemplate and effectiveSecuritySettings', () => {
  it('raises PIN length to 6 under strict and leaves longer ones', () => {
    assert.equal(effectiveTemplate('strict', { pinLength: 4 }).pinLength, 6);
    assert.equal(effectiveTemplate('strict', { pinLength: 9 }).pinLength, 9);
    assert.equal(effectiveTemplate('compatible', { pinLength: 4 }).pinLength, 4);
  });

  it('turns the guards, premium refusal and the breaker on under strict, keeping the lists and limits', () => {
    const stored = settingsFromJson(JSON.stringify({ enabled: false, refusePremiumNumbers: false, blockedCountries: ['FR'], perIpSendLimit: '10/1h' }));
    const strict = effectiveSecuritySettings('strict', stored);
    assert.equal(strict.enabled, true);
    assert.equal(strict.refusePremiumNumbers, true);
    assert.equal(strict.conversionBreaker.enabled, true);
    assert.deepEqual(strict.blockedCountries, ['FR']);
    assert.equal(strict.perIpSendLimit, '10/1h');
    assert.equal(effectiveSecuritySettings('compatible', DEFAULT_SECURITY_SETTINGS).enabled, false);
  });
});
