import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ONE_DAY_MS,
  ONE_YEAR_MS,
  parseDuration,
  parseRateLimit,
  validateLimit,
  validateTimeToLive,
} from '../../src/domain/durations.js';

describe('parseDuration', () => {
  it('reads every unit', () => {
    assert.equal(parseDuration('500ms'), 500);
    assert.equal(parseDuration('30s'), 30_000);
    assert.equal(parseDuration('15m'), 900_000);
    assert.equal(parseDuration('2h'), 7_200_000);
    assert.equal(parseDuration('3d'), 3 * 86_400_000);
  });

  it('defaults the length to 1', () => {
    assert.equal(parseDuration('ms'), 1);
    assert.equal(parseDuration('s'), 1_000);
    assert.equal(parseDuration('m'), 60_000);
    assert.equal(parseDuration('h'), 3_600_000);
    assert.equal(parseDuration('d'), ONE_DAY_MS);
  });

  it('rejects malformed text', () => {
    for (const text of [
      '',
      '15',
      'm5',
      '1.5m',
      '0s',
      '0ms',
      '-1m',
      '+1m',
      '15 m',
      ' 15m',
      '15m ',
      '1y',
      '1w',
      '15M',
      '015m',
      '1e3ms',
      '15mm',
      '99999999999999999999d',
    ]) {
      assert.equal(parseDuration(text), null, JSON.stringify(text));
    }
  });
});

describe('parseRateLimit', () => {
  it('reads Infobip examples', () => {
    assert.deepEqual(parseRateLimit('3/1d'), { count: 3, windowMs: ONE_DAY_MS });
    assert.deepEqual(parseRateLimit('1/3s'), { count: 1, windowMs: 3_000 });
    assert.deepEqual(parseRateLimit('10000/1d'), { count: 10_000, windowMs: ONE_DAY_MS });
    assert.deepEqual(parseRateLimit('5000/12h'), { count: 5_000, windowMs: 12 * 3_600_000 });
    assert.deepEqual(parseRateLimit('10/20m'), { count: 10, windowMs: 20 * 60_000 });
    assert.deepEqual(parseRateLimit('30/100ms'), { count: 30, windowMs: 100 });
  });

  it('defaults the time length to 1', () => {
    assert.deepEqual(parseRateLimit('2/s'), { count: 2, windowMs: 1_000 });
    assert.deepEqual(parseRateLimit('5/d'), { count: 5, windowMs: ONE_DAY_MS });
  });

  it('rejects malformed text', () => {
    for (const text of [
      '',
      '3',
      '3/',
      '/1d',
      '0/1d',
      '03/1d',
      '-1/1d',
      '3/0d',
      '3/1y',
      '3 /1d',
      '3/ 1d',
      '3/1.5h',
      '1.5/1h',
      '3/1d/2',
      '3:1d',
      '3/15',
    ]) {
      assert.equal(parseRateLimit(text), null, JSON.stringify(text));
    }
  });
});

describe('validateTimeToLive', () => {
  it('accepts valid durations up to one year', () => {
    assert.equal(validateTimeToLive('15m'), null);
    assert.equal(validateTimeToLive('365d'), null);
    assert.equal(validateTimeToLive('8760h'), null);
    assert.equal(validateTimeToLive(`${ONE_YEAR_MS}ms`), null);
  });

  it('explains the format', () => {
    assert.match(validateTimeToLive('15') ?? '', /\{timeLength\}\{timeUnit\}.*e\.g\. 15m/);
    assert.match(validateTimeToLive('1y') ?? '', /ms, s, m, h or d/);
  });

  it('caps at one year', () => {
    assert.equal(validateTimeToLive('366d'), 'must not exceed one year');
    assert.equal(validateTimeToLive(`${ONE_YEAR_MS + 1}ms`), 'must not exceed one year');
  });
});

describe('validateLimit', () => {
  it('accepts valid limits within the window cap', () => {
    assert.equal(validateLimit('1/3s', ONE_DAY_MS), null);
    assert.equal(validateLimit('1/1d', ONE_DAY_MS), null);
    assert.equal(validateLimit('10000/1d', ONE_YEAR_MS), null);
    assert.equal(validateLimit('3/365d', ONE_YEAR_MS), null);
    assert.equal(validateLimit('1000000/1d', ONE_YEAR_MS), null);
  });

  it('explains the format', () => {
    assert.match(validateLimit('3/1y', ONE_YEAR_MS) ?? '', /\{attempts\}\/\{timeLength\}\{timeUnit\}/);
    assert.match(validateLimit('0/1d', ONE_YEAR_MS) ?? '', /e\.g\. 3\/1d/);
  });

  it('caps the window', () => {
    assert.equal(validateLimit('1/25h', ONE_DAY_MS), 'time period must not exceed one day');
    assert.equal(validateLimit('1/2d', ONE_DAY_MS), 'time period must not exceed one day');
    assert.equal(validateLimit('3/366d', ONE_YEAR_MS), 'time period must not exceed one year');
    assert.equal(validateLimit('3/2s', 1_000), 'time period must not exceed 1000ms');
  });

  it('caps the attempts', () => {
    assert.equal(validateLimit('1000001/1d', ONE_YEAR_MS), 'attempts must not exceed 1000000');
    assert.equal(validateLimit('99999999999999999999/1d', ONE_YEAR_MS) !== null, true);
  });
});
