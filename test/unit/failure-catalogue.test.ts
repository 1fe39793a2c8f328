// The failure catalogue and its documentation are one list: every failure of domain/errors.ts has a
// row in docs/api.md's error table, every row names a failure of the catalogue, and each row's
// status, messageId and Twilio code are the ones the HTTP layer sends.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { FAILURE_NAMES } from '../../src/domain/errors.js';
import { envelope, errorBody } from '../../src/http/error-envelope.js';
import { messageIdOf, statusOf } from '../../src/http/failure-statuses.js';

interface DocumentedFailure {
  name: string;
  status: number;
  messageId: string;
  twilioCode: number;
}

function documentedFailures(): DocumentedFailure[] {
  const text = fs.readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  const section = text.slice(text.indexOf('\n## Errors'), text.indexOf('\n## ', text.indexOf('\n## Errors') + 1));
  return [...section.matchAll(/^\| `([A-Z0-9_]+)` \| (\d{3}) \| `([A-Z0-9_]+)` \| (\d+) \|/gm)]
    .map((m) => ({ name: m[1]!, status: Number(m[2]), messageId: m[3]!, twilioCode: Number(m[4]) }));
}

describe('the failure catalogue', () => {
  const documented = documentedFailures();

  it('is documented in docs/api.md, entry for entry', () => {
    assert.deepEqual(documented.map((d) => d.name).sort(), [...FAILURE_NAMES].sort());
    assert.equal(new Set(documented.map((d) => d.name)).size, documented.length, 'no failure documented twice');
  });

  it('is sent with the status, messageId and Twilio code that the table gives', () => {
    for (const d of documented) {
      const name = d.name as (typeof FAILURE_NAMES)[number];
      assert.equal(statusOf(name), d.status, `${name}: status`);
      assert.equal(messageIdOf(name), d.messageId, `${name}: messageId`);
      assert.deepEqual(errorBody('infobip', { name, text: 't' }), envelope(messageIdOf(name), 't'), `${name}: Infobip's envelope`);
      const twilio = errorBody('twilio', { name, text: 't' }) as { code: number; status: number };
      assert.equal(twilio.code, d.twilioCode, `${name}: Twilio code`);
      assert.equal(twilio.status, d.status, `${name}: Twilio status`);
    }
  });
});
