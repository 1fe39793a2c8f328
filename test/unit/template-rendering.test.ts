import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  PIN_PLACEHOLDER,
  missingPlaceholders,
  placeholderNames,
  renderHtml,
  renderText,
  renderedSmsInfo,
  smsTextInfo,
  validatePlaceholderValues,
} from '../../src/domain/template-rendering.js';

describe('placeholderNames', () => {
  it('lists distinct names in order of first use, pin included', () => {
    assert.equal(PIN_PLACEHOLDER, '{{pin}}');
    assert.deepEqual(placeholderNames('Hello {{firstName}}, your pin is {{pin}}. Bye {{firstName}}'), [
      'firstName',
      'pin',
    ]);
    assert.deepEqual(placeholderNames('{{a.b}} {{c-d}} {{e_f}} {{G9}}'), ['a.b', 'c-d', 'e_f', 'G9']);
  });

  it('ignores things that are not exact placeholders', () => {
    assert.deepEqual(placeholderNames('{{ pin }} {pin} {{}} {{a b}} {{x!}} {$pin}'), []);
    assert.deepEqual(placeholderNames('no placeholders'), []);
  });
});

describe('missingPlaceholders', () => {
  it('names what the values do not supply, never pin', () => {
    assert.deepEqual(missingPlaceholders('Hi {{name}}, {{pin}} at {{site}}', { name: 'Ann' }), ['site']);
    assert.deepEqual(missingPlaceholders('Hi {{name}}, {{pin}}', { name: 'Ann' }), []);
    assert.deepEqual(missingPlaceholders('{{pin}}', {}), []);
  });

  it('does not treat Object.prototype members as supplied', () => {
    assert.deepEqual(missingPlaceholders('{{constructor}} {{toString}} {{pin}}', {}), [
      'constructor',
      'toString',
    ]);
  });
});

describe('renderText', () => {
  it('replaces the pin and every placeholder', () => {
    assert.equal(
      renderText('Hello {{firstName}}, your pin is {{pin}}. {{pin}} again.', '1234', { firstName: 'Ann' }),
      'Hello Ann, your pin is 1234. 1234 again.',
    );
  });

  it('does not expand placeholders inside inserted values', () => {
    assert.equal(
      renderText('Hi {{name}}: {{pin}}', '9876', { name: '{{pin}} {{other}}', other: 'x' }),
      'Hi {{pin}} {{other}}: 9876',
    );
  });

  it('does not expand placeholder syntax inside the pin', () => {
    assert.equal(renderText('{{pin}} {{a}}', '{{a}}', { a: 'A' }), '{{a}} A');
  });

  it('always uses the generated pin, even if values carry a pin key', () => {
    assert.equal(renderText('{{pin}}', '1234', { pin: '0000' }), '1234');
  });

  it('keeps replacement patterns in values literal', () => {
    assert.equal(renderText('{{a}}', '1', { a: "$& $' $1 $$" }), "$& $' $1 $$");
  });

  it('throws when a placeholder has no value', () => {
    assert.throws(() => renderText('Hi {{name}} {{pin}}', '1234', {}), /\{\{name\}\}/);
    assert.throws(() => renderText('{{constructor}}', '1234', {}), /constructor/);
  });
});

describe('renderHtml', () => {
  it('escapes inserted values and the pin, not the template markup', () => {
    assert.equal(
      renderHtml('<p title="x">Hi {{name}}, <b>{{pin}}</b></p>', 'A<1', {
        name: `<script>alert("x")</script> & 'y'`,
      }),
      '<p title="x">Hi &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;, <b>A&lt;1</b></p>',
    );
  });

  it('does not expand placeholders inside values and throws on missing ones', () => {
    assert.equal(renderHtml('{{a}}', '1', { a: '{{pin}}' }), '{{pin}}');
    assert.throws(() => renderHtml('{{a}}', '1', {}), /\{\{a\}\}/);
  });
});

describe('validatePlaceholderValues', () => {
  it('accepts an empty object and valid values', () => {
    assert.deepEqual(validatePlaceholderValues({}), {});
    assert.deepEqual(validatePlaceholderValues({ firstName: 'Ann', 'a.b-c_1': 'x'.repeat(1000) }), {});
  });

  it('rejects curly brackets, pin and bad names', () => {
    const errors = validatePlaceholderValues({ '{{name}}': 'x', pin: '1', 'a b': 'x', '': 'x' });
    assert.deepEqual(Object.keys(errors).sort(), [
      'placeholders.',
      'placeholders.a b',
      'placeholders.pin',
      'placeholders.{{name}}',
    ]);
    assert.match(errors['placeholders.{{name}}']?.[0] ?? '', /curly/);
    assert.match(errors['placeholders.pin']?.[0] ?? '', /pin/);
  });

  it('rejects long values, NUL and non-strings', () => {
    const errors = validatePlaceholderValues({
      long: 'x'.repeat(1001),
      nul: 'a\u0000b',
      num: 5 as unknown as string,
    });
    assert.match(errors['placeholders.long']?.[0] ?? '', /1000/);
    assert.match(errors['placeholders.nul']?.[0] ?? '', /NUL/);
    assert.match(errors['placeholders.num']?.[0] ?? '', /string/);
  });

  it('limits the number of keys', () => {
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
    assert.deepEqual(validatePlaceholderValues(fifty), {});
    const errors = validatePlaceholderValues({ ...fifty, k50: 'v' });
    assert.deepEqual(Object.keys(errors), ['placeholders']);
  });
});

describe('smsTextInfo', () => {
  it('counts plain GSM text', () => {
    assert.deepEqual(smsTextInfo('Your pin is 1234'), { encoding: 'GSM-7', units: 16, segments: 1 });
    assert.deepEqual(smsTextInfo(''), { encoding: 'GSM-7', units: 0, segments: 1 });
    assert.deepEqual(smsTextInfo('@£$¥èéùìòÇØøÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ¤¡ÄÖÑÜ§¿äöñüà\r\n'), {
      encoding: 'GSM-7',
      units: 44,
      segments: 1,
    });
  });

  it('counts extension characters as two septets', () => {
    assert.deepEqual(smsTextInfo('€^{}\\[~]|\f'), { encoding: 'GSM-7', units: 20, segments: 1 });
  });

  it('splits GSM text at 160 / 153', () => {
    assert.equal(smsTextInfo('a'.repeat(160)).segments, 1);
    assert.deepEqual(smsTextInfo('a'.repeat(161)), { encoding: 'GSM-7', units: 161, segments: 2 });
    assert.equal(smsTextInfo('a'.repeat(306)).segments, 2);
    assert.equal(smsTextInfo('a'.repeat(307)).segments, 3);
    assert.equal(smsTextInfo('€'.repeat(80)).segments, 1);
    assert.equal(smsTextInfo('€'.repeat(81)).segments, 2);
  });

  it('never splits an escape sequence across parts', () => {
    // 152 septets then '€' (2) does not fit the 153-septet first part.
    const text = `${'a'.repeat(152)}€${'a'.repeat(152)}`;
    assert.equal(smsTextInfo(text).units, 306);
    assert.equal(smsTextInfo(text).segments, 3);
  });

  it('switches to UCS-2 for anything outside GSM', () => {
    assert.deepEqual(smsTextInfo('Ваш код 1234'), { encoding: 'UCS-2', units: 12, segments: 1 });
    assert.deepEqual(smsTextInfo('ç'), { encoding: 'UCS-2', units: 1, segments: 1 });
    assert.deepEqual(smsTextInfo('`'), { encoding: 'UCS-2', units: 1, segments: 1 });
    assert.equal(smsTextInfo('я'.repeat(70)).segments, 1);
    assert.equal(smsTextInfo('я'.repeat(71)).segments, 2);
    assert.equal(smsTextInfo('я'.repeat(134)).segments, 2);
    assert.equal(smsTextInfo('я'.repeat(135)).segments, 3);
  });

  it('counts UTF-16 code units and keeps surrogate pairs together', () => {
    assert.deepEqual(smsTextInfo('🔐 1234'), { encoding: 'UCS-2', units: 7, segments: 1 });
    // 66 units then an emoji (2) does not fit the 67-unit first part.
    const text = `${'я'.repeat(66)}🔐${'я'.repeat(66)}`;
    assert.equal(smsTextInfo(text).units, 134);
    assert.equal(smsTextInfo(text).segments, 3);
  });
});

describe('renderedSmsInfo', () => {
  it('measures the message as delivered: the PIN at its length, every use of a placeholder', () => {
    assert.deepEqual(renderedSmsInfo('Code {{pin}}', 6, {}), { encoding: 'GSM-7', units: 11, segments: 1 });
    assert.deepEqual(renderedSmsInfo('{{x}}{{x}}{{x}} {{pin}}', 4, { x: 'a'.repeat(100) }), { encoding: 'GSM-7', units: 305, segments: 2 });
    assert.equal(renderedSmsInfo('{{x}}{{x}}{{x}}{{x}} {{pin}}', 4, { x: 'a'.repeat(100) }).segments, 3);
  });

  it('counts a value that switches the message to UCS-2 at 70 / 67 per part', () => {
    assert.deepEqual(renderedSmsInfo('{{pin}} {{name}}', 6, { name: 'я'.repeat(63) }), { encoding: 'UCS-2', units: 70, segments: 1 });
    assert.equal(renderedSmsInfo('{{pin}} {{name}}', 6, { name: 'я'.repeat(64) }).segments, 2);
  });
});
