// Every DSN docs/transports.md shows as an example is accepted as written.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import { createTransport } from '../../src/delivery/dsn.js';
import { Inbox } from '../../src/delivery/log/inbox.js';

const TRANSPORTS_DOC = fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'docs', 'transports.md'), 'utf8');

describe('docs/transports.md DSN examples', () => {
  // The examples column of the scheme table, and the standalone `Example: ...` lines.
  const examples = [
    ...[...TRANSPORTS_DOC.matchAll(/^\| `[^|]*\| [^|]* \| `([^`]+)` \|$/gm)].map((m) => m[1]!),
    ...[...TRANSPORTS_DOC.matchAll(/^Example: `([^`]+)`/gm)].map((m) => m[1]!),
  ];

  it('shows an example for every scheme', () => {
    for (const scheme of ['log:', 'none:', 'webhook+https:', 'smtp:', 'smpp:', 'smpps:', 'twilio:', 'vonage:', 'infobip:', 'failover(']) {
      assert.ok(examples.some((e) => e.startsWith(scheme)), `an example of ${scheme}`);
    }
  });

  for (const dsn of examples) {
    it(`accepts ${dsn.slice(0, 60)}`, async () => {
      const transport = await createTransport('TWOFA_SMS_DSN', dsn, { inbox: new Inbox(), logger: pino({ level: 'silent' }) });
      await transport?.close?.();
      if (dsn === 'none://') assert.equal(transport, null);
      else assert.ok(transport);
    });
  }
});
