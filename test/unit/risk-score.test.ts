// Each signal of the risk score moves it, from readings a send's counters give (domain/risk-score.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_RISK_SETTINGS, decideRisk, scoreRisk, type RiskReadings, type RiskSignalName } from '../../src/domain/risk-score.js';

/** An ordinary send: a mobile number, a converting country, nothing near it recently. */
const quiet: RiskReadings = {
  numberType: 'MOBILE', country: 'GB', countrySends: 200, countryVerifies: 170, prefixSends: 2, prefixVerifies: 2,
  baselineSends: 2000, baselineVerifies: 1700, distinctInBlock10: 0, distinctInBlock100: 0, distinctInBlock1000: 1, distinctInBlock10000: 3,
  distinctFromClientAddress: 1, distinctFromClientDevice: 0, historySends: 5000, historyCountrySends: 3000, hourOfDay: 14, historyHourSends: 260,
};

function pointsOf(readings: RiskReadings, name: RiskSignalName): number {
  return scoreRisk(DEFAULT_RISK_SETTINGS, readings).signals.find((s) => s.name === name)!.points;
}

describe('the risk score', () => {
  it('scores an ordinary send 0 and allows it', () => {
    const scored = scoreRisk(DEFAULT_RISK_SETTINGS, quiet);
    assert.equal(scored.score, 0);
    assert.equal(decideRisk('enforce', scored, false).decision, 'allow');
  });

  const cases: [RiskSignalName, Partial<RiskReadings>][] = [
    ['number_type', { numberType: 'PREMIUM_RATE' }],
    ['number_type', { numberType: 'VOIP' }],
    ['country_conversion', { countrySends: 100, countryVerifies: 5 }],
    ['prefix_conversion', { prefixSends: 30, prefixVerifies: 0 }],
    ['prefix_velocity', { distinctInBlock100: 5 }],
    ['prefix_velocity', { distinctInBlock10000: 30 }],
    ['sequential_numbers', { distinctInBlock10: 2 }],
    ['client_address_velocity', { distinctFromClientAddress: 12 }],
    ['client_device_velocity', { distinctFromClientDevice: 6 }],
    ['new_country', { historyCountrySends: 0 }],
    ['hour_of_day', { hourOfDay: 3, historyHourSends: 5 }],
  ];
  for (const [name, change] of cases) {
    it(`${name} moves the score (${JSON.stringify(change)}), with its measured value`, () => {
      const before = scoreRisk(DEFAULT_RISK_SETTINGS, quiet).score;
      const after = scoreRisk(DEFAULT_RISK_SETTINGS, { ...quiet, ...change });
      assert.ok(pointsOf({ ...quiet, ...change }, name) > 0, `${name} adds points`);
      assert.ok(after.score > before, `${after.score} > ${before}`);
      assert.ok(after.signals.find((s) => s.name === name)!.value.length > 0);
    });
  }

  it('judges the hour of the day only against a history of the application\'s own, and never blocks on it alone', () => {
    const night = { ...quiet, hourOfDay: 3, historyHourSends: 5 };
    assert.equal(pointsOf(night, 'hour_of_day'), 15);
    assert.equal(pointsOf({ ...night, historySends: 300 }, 'hour_of_day'), 0, 'too little history: no pattern yet');
    assert.equal(pointsOf({ ...quiet, historyHourSends: 5000 / 24 }, 'hour_of_day'), 0, 'an average hour is ordinary');
    assert.equal(decideRisk('enforce', scoreRisk(DEFAULT_RISK_SETTINGS, night), false).decision, 'allow');
  });

  it('counts the distinct numbers of a device or session only when the caller names one', () => {
    assert.equal(pointsOf({ ...quiet, distinctFromClientDevice: undefined }, 'client_device_velocity'), 0);
    assert.equal(pointsOf({ ...quiet, distinctFromClientDevice: 8 }, 'client_device_velocity'), 30);
  });

  it('judges conversion against the application\'s own baseline', () => {
    const lowBaseline = { ...quiet, baselineSends: 2000, baselineVerifies: 700, countrySends: 100, countryVerifies: 33 };
    const highBaseline = { ...lowBaseline, baselineVerifies: 1900 };
    assert.ok(pointsOf(highBaseline, 'country_conversion') > pointsOf(lowBaseline, 'country_conversion'));
  });

  it('blocks sequential numbers in one prefix that never verify, but no single velocity signal alone', () => {
    const pumping = { ...quiet, distinctInBlock10: 3, distinctInBlock100: 8, prefixSends: 20, prefixVerifies: 0 };
    assert.equal(decideRisk('enforce', scoreRisk(DEFAULT_RISK_SETTINGS, pumping), false).decision, 'block');
    assert.equal(decideRisk('shadow', scoreRisk(DEFAULT_RISK_SETTINGS, pumping), false).decision, 'shadow_block');
    assert.equal(decideRisk('enforce', scoreRisk(DEFAULT_RISK_SETTINGS, pumping), true).decision, 'allow', 'the Safe List wins');
    assert.equal(decideRisk('enforce', scoreRisk(DEFAULT_RISK_SETTINGS, { ...quiet, distinctInBlock10: 3 }), false).decision, 'allow');
  });

  it('holds a country to its own threshold when the application sets one', () => {
    const premium = { ...quiet, numberType: 'PREMIUM_RATE' };
    assert.equal(decideRisk('enforce', scoreRisk(DEFAULT_RISK_SETTINGS, premium), false).decision, 'allow');
    assert.equal(decideRisk('enforce', scoreRisk({ ...DEFAULT_RISK_SETTINGS, countryBlockScores: { GB: 40 } }, premium), false).decision, 'block');
  });
});
