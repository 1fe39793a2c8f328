import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  canonicalEmailAddress,
  limitKeyDestination,
  maskDestination,
  normalizeEmailAddress,
  normalizePhoneNumber,
  parseEmailSender,
  phoneCountry,
  validateEmailSender,
} from '../../src/domain/destinations.js';

function assertRejected(result: { ok: boolean; error?: string }, input: string): void {
  assert.equal(result.ok, false, JSON.stringify(input));
  assert.ok(result.error !== undefined && result.error.length > 0);
}

describe('normalizePhoneNumber', () => {
  it('accepts international digits', () => {
    assert.deepEqual(normalizePhoneNumber('41793026727'), { ok: true, value: '41793026727' });
    assert.deepEqual(normalizePhoneNumber('12025550123'), { ok: true, value: '12025550123' });
    assert.deepEqual(normalizePhoneNumber('491701234567'), { ok: true, value: '491701234567' });
  });

  it('strips a single leading +', () => {
    assert.deepEqual(normalizePhoneNumber('+41793026727'), { ok: true, value: '41793026727' });
  });

  it('rejects anything else with a clear message', () => {
    const result = normalizePhoneNumber('41 793');
    assert.equal(result.ok, false);
    if (!result.ok) assert.match(result.error, /digits with country code, without \+, e\.g\. 41793026727/);
    for (const input of [
      '',
      '+',
      '123',
      '4179302672a',
      '41 793',
      '41 79 302 67 27',
      '41-79-302-67-27',
      '(41)793026727',
      '++41793026727',
      ' 41793026727',
      '41793026727\n',
      '1234567890123456',
      '0041793026727',
      '041793026727',
      '4179302672', // CH number one digit short
      '٤١٧٩٣٠٢٦٧٢٧', // Arabic-Indic digits
      '99912345678', // no such country code
    ]) {
      assertRejected(normalizePhoneNumber(input), input);
    }
  });
});

describe('phoneCountry', () => {
  it('tells the country, including inside shared calling codes', () => {
    assert.equal(phoneCountry('41793026727'), 'CH');
    assert.equal(phoneCountry('+41793026727'), 'CH');
    assert.equal(phoneCountry('12025550123'), 'US');
    assert.equal(phoneCountry('14165550123'), 'CA');
    assert.equal(phoneCountry('18765550123'), 'JM');
  });

  it('is undefined when unknown', () => {
    assert.equal(phoneCountry('99912345678'), undefined);
    assert.equal(phoneCountry('abc'), undefined);
    assert.equal(phoneCountry(''), undefined);
  });
});

describe('normalizeEmailAddress', () => {
  it('accepts addresses and lower-cases only the domain', () => {
    assert.deepEqual(normalizeEmailAddress('john@example.com'), { ok: true, value: 'john@example.com' });
    assert.deepEqual(normalizeEmailAddress('John.Smith+2fa@Example.COM'), {
      ok: true,
      value: 'John.Smith+2fa@example.com',
    });
    assert.deepEqual(normalizeEmailAddress("o'hara!#$%&*/=?^_`{|}~-@mail.sub-domain.example.co.uk"), {
      ok: true,
      value: "o'hara!#$%&*/=?^_`{|}~-@mail.sub-domain.example.co.uk",
    });
    assert.deepEqual(normalizeEmailAddress('user@xn--mnchen-3ya.xn--p1ai'), {
      ok: true,
      value: 'user@xn--mnchen-3ya.xn--p1ai',
    });
  });

  it('accepts the maximum lengths', () => {
    const local = 'a'.repeat(64);
    const label = 'b'.repeat(63);
    assert.equal(normalizeEmailAddress(`${local}@${label}.com`).ok, true);
    // 64 + 1 + 63 + 1 + 63 + 1 + 61 = 254
    const address = `${local}@${label}.${label}.${'c'.repeat(61)}`;
    assert.equal(address.length, 254);
    assert.equal(normalizeEmailAddress(address).ok, true);
  });

  it('rejects header injection and separators', () => {
    for (const input of [
      'a@b.com\r\nBcc: x@y.com',
      'a@b.com\nBcc: x@y.com',
      'a@b.com\u0000',
      'a@b.com\t',
      'a@b.com, c@d.com',
      'a@b.com;c@d.com',
      '<a@b.com>',
      'John <a@b.com>',
      '"a"@b.com',
      ' a@b.com',
      'a@b.com ',
      'a b@c.com',
      'a@b.com\u00a0',
    ]) {
      assertRejected(normalizeEmailAddress(input), input);
    }
  });

  it('rejects malformed addresses', () => {
    for (const input of [
      '',
      'john',
      '@example.com',
      'john@',
      'john@@example.com',
      'a@b@example.com',
      'john@localhost',
      'john@example',
      'john@example.c',
      'john@example.123',
      'john@-example.com',
      'john@example-.com',
      'john@exa_mple.com',
      'john@example..com',
      'john@.example.com',
      'john@example.com.',
      'john@[127.0.0.1]',
      'jöhn@example.com',
      'john@münchen.de',
      `${'a'.repeat(65)}@example.com`,
      `john@${'b'.repeat(64)}.com`,
    ]) {
      assertRejected(normalizeEmailAddress(input), input);
    }
  });

  it('rejects a 255-character address', () => {
    const address = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`;
    assert.equal(address.length, 255);
    assertRejected(normalizeEmailAddress(address), address);
  });
});

describe('validateEmailSender / parseEmailSender', () => {
  it('accepts a bare address and a named address', () => {
    assert.equal(validateEmailSender('company@example.com'), null);
    assert.equal(validateEmailSender('Jane Smith <jane.smith@somecompany.com>'), null);
    assert.equal(validateEmailSender('"Smith, Jane" <jane.smith@somecompany.com>'), null);
    assert.equal(validateEmailSender('<jane.smith@somecompany.com>'), null);
    assert.equal(validateEmailSender('Zoë Ångström <zoe@example.com>'), null);
    assert.equal(validateEmailSender(`${'n'.repeat(100)} <jane@example.com>`), null);
  });

  it('splits name and normalised address', () => {
    assert.deepEqual(parseEmailSender('Jane Smith <jane.smith@SomeCompany.com>'), {
      ok: true,
      name: 'Jane Smith',
      address: 'jane.smith@somecompany.com',
    });
    assert.deepEqual(parseEmailSender('"Smith, Jane" <jane@example.com>'), {
      ok: true,
      name: 'Smith, Jane',
      address: 'jane@example.com',
    });
    assert.deepEqual(parseEmailSender('company@example.com'), {
      ok: true,
      name: undefined,
      address: 'company@example.com',
    });
  });

  it('rejects injection and malformed senders', () => {
    for (const input of [
      '',
      'Jane\r\nBcc: x@y.com <jane@example.com>',
      'Jane <jane@example.com>\r\nBcc: x@y.com',
      'Jane <jane@example.com>\n',
      'Jane\u0000 <jane@example.com>',
      ' Jane <jane@example.com>',
      'Jane <jane@example.com> ',
      'Jane <jane@example.com',
      'Jane jane@example.com>',
      'Jane <jane@example.com> x',
      'Jane <jane@example.com><x@y.com>',
      'Ja<ne <jane@example.com>',
      'Ja>ne <jane@example.com>',
      'Smith, Jane <jane@example.com>',
      'Jane; <jane@example.com>',
      'Ja"ne <jane@example.com>',
      '"Jane <jane@example.com>',
      '"Ja"ne" <jane@example.com>',
      '"Jane" Smith <jane@example.com>',
      '" <jane@example.com>',
      'Jane <not-an-address>',
      'Jane <>',
      'jane@example',
      `${'n'.repeat(101)} <jane@example.com>`,
    ]) {
      assert.notEqual(validateEmailSender(input), null, JSON.stringify(input));
    }
  });
});

describe('maskDestination', () => {
  it('masks phone numbers keeping at most the first 4 and last 2 digits', () => {
    assert.equal(maskDestination('41793026727'), '4179*****27');
    assert.equal(maskDestination('491701234567'), '4917******67');
    assert.equal(maskDestination('4179302672'), '4179*****2');
  });

  it('hides at least half of a short value, and never shows it whole', () => {
    assert.equal(maskDestination('123456'), '12***6');
    assert.equal(maskDestination('12'), '1*');
    assert.equal(maskDestination('1'), '*');
    assert.equal(maskDestination(''), '');
    for (let n = 1; n <= 20; n += 1) {
      const value = '7'.repeat(n);
      const masked = maskDestination(value);
      assert.equal(masked.length, n);
      assert.ok((masked.match(/\*/g) ?? []).length >= Math.max(1, Math.floor(n / 2)), masked);
    }
  });

  it('masks the local part of email addresses', () => {
    assert.equal(maskDestination('john.smith@example.com'), 'j*********@example.com');
    assert.equal(maskDestination('a@example.com'), '*@example.com');
  });
});

describe('canonicalEmailAddress / limitKeyDestination', () => {
  it('gives every spelling of one mailbox the same key: case and +tag do not count', () => {
    for (const spelling of ['victim@x.com', 'Victim@x.com', 'victim@X.COM', 'VICTIM@X.Com', 'victim+1@x.com', 'Victim+promo+2@X.com']) {
      assert.equal(canonicalEmailAddress(spelling), 'victim@x.com', spelling);
    }
  });

  it('keeps addresses of different mailboxes apart', () => {
    assert.notEqual(canonicalEmailAddress('victim@x.com'), canonicalEmailAddress('victim2@x.com'));
    assert.notEqual(canonicalEmailAddress('victim@x.com'), canonicalEmailAddress('victim@y.com'));
    assert.equal(canonicalEmailAddress('first.last@x.com'), 'first.last@x.com', 'dots are part of the mailbox');
  });

  it('changes email addresses only: phone digits are their own key', () => {
    assert.equal(limitKeyDestination('Victim+1@X.com'), 'victim@x.com');
    assert.equal(limitKeyDestination('41793026727'), '41793026727');
  });
});
