// The pieces of the anti-fraud guards that need no server: client-address keys (IPv6 by /64, one key
// per spelling) and the settings merge and brute-force budget arithmetic.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ipRateKey } from '../../src/domain/client-ip.js';
import { FieldErrors } from '../../src/domain/errors.js';
import { bruteForceBudget, DEFAULT_SECURITY_SETTINGS, mergeSecuritySettings, settingsFromJson } from '../../src/domain/security-settings.js';

describe('ipRateKey', () => {
  it('keys IPv4 as itself, IPv4-mapped IPv6 as the IPv4, and IPv6 by its /64 whatever the spelling', () => {
    assert.equal(ipRateKey('203.0.113.7'), '4:203.0.113.7');
    assert.equal(ipRateKey('::ffff:203.0.113.7'), '4:203.0.113.7');
    assert.equal(ipRateKey('::FFFF:cb00:7107'), '4:203.0.113.7');
    const key = ipRateKey('2001:db8:0:7::1');
    for (const spelling of ['2001:DB8:0:7::1', '2001:0db8:0000:0007:0000:0000:0000:0001', '2001:db8:0:7:ffff:1:2:3', '2001:db8::7:0:0:0:9', 'fe80::1%eth0'.replace('fe80::1', '2001:db8:0:7::5')]) {
      assert.equal(ipRateKey(spelling), key, spelling);
    }
    assert.equal(key, '6:2001:db8:0:7::/64');
    assert.notEqual(ipRateKey('2001:db8:0:8::1'), key);
    for (const bad of ['', 'localhost', '1.2.3', '2001:db8::g', '::1::2', undefined]) assert.equal(ipRateKey(bad), undefined, String(bad));
  });
});

describe('security settings', () => {
  it('merges only the fields given and names every bad one', () => {
    const errors = new FieldErrors();
    const merged = mergeSecuritySettings(settingsFromJson(undefined), { enabled: true, allowedCountries: ['ch'], conversionBreaker: { minSends: 5 } }, errors);
    assert.equal(errors.empty, true);
    assert.deepEqual([merged.enabled, merged.allowedCountries, merged.conversionBreaker.minSends, merged.conversionBreaker.window], [true, ['CH'], 5, '1h']);
    assert.equal(DEFAULT_SECURITY_SETTINGS.enabled, false, 'off by default');
    const bad = new FieldErrors();
    mergeSecuritySettings(merged, { blockedCountries: ['Switzerland'], blockedPrefixes: ['+41'], perIpSendLimit: '10 per hour', conversionBreaker: { minConversionRate: 2, window: '2d' } }, bad);
    assert.deepEqual(Object.keys(bad.result().failure.validationErrors ?? {}).sort(), ['blockedCountries', 'blockedPrefixes', 'conversionBreaker.minConversionRate', 'conversionBreaker.window', 'perIpSendLimit']);
  });

  it('computes the worst-case guessing chance and warns above 1 in 10,000 per day', () => {
    const strict = bruteForceBudget({ pinAttempts: 3, allowMultiplePinVerifications: false, pinTimeToLive: '10m', verifyPinLimit: '5/1d', sendPinPerApplicationLimit: '10000/1d', sendPinPerPhoneNumberLimit: '3/1d' }, [{ id: 'm', pinType: 'NUMERIC', pinLength: 6 }]);
    assert.equal(strict.successProbabilityPerPin, 3e-6);
    assert.equal(strict.guessesPerDestinationPerDay, 5);
    assert.equal(strict.successProbabilityPerDestinationPerDay, 5e-6);
    assert.equal(strict.warning, null);
    const infobipDefaults = bruteForceBudget({ pinAttempts: 10, allowMultiplePinVerifications: true, pinTimeToLive: '15m', verifyPinLimit: '1/3s', sendPinPerApplicationLimit: '10000/1d', sendPinPerPhoneNumberLimit: '3/1d' }, [{ id: 'a', pinType: 'NUMERIC', pinLength: 6 }, { id: 'b', pinType: 'NUMERIC', pinLength: 4 }]);
    assert.equal(infobipDefaults.weakestTemplate?.messageId, 'b');
    assert.equal(infobipDefaults.successProbabilityPerDestinationPerDay, 30 / 10_000);
    assert.match(infobipDefaults.warning ?? '', /above 1 in 10,000/);
    assert.equal(bruteForceBudget({ pinAttempts: 10, allowMultiplePinVerifications: true, pinTimeToLive: '15m', verifyPinLimit: '1/3s', sendPinPerApplicationLimit: '10000/1d', sendPinPerPhoneNumberLimit: '3/1d' }, []).successProbabilityPerPin, null);
  });
});
