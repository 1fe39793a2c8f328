// T16 pinId-unguessable and T17 destination-enumeration. Unknown pinIds and pinIds of another account
// get the same status and the same body byte for byte (apart from the id they name) on every PIN
// endpoint, with latencies compared. Expired and locked PINs answer their owner as Infobip documents
// (200 with pinError TTL_EXPIRED / NO_MORE_PIN_ATTEMPTS): only the owner, who already knows the pinId,
// can see that, so to anyone else they are indistinguishable from unknown ones too (checked below).
// Standards: ASVS 5.0 6.3.8, 11.5.1; ASVS 4.0.3 2.2.1; NIST 800-63B §5.1.3.2.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createAppAndTemplate, createHarness, type Harness } from '../support/harness.js';
import { inboxPin, injector } from './support/in-process.js';
import { createResults, percentile, scale, wrongPinFor } from './support/results.js';

const results = createResults('enumeration', {
  tests: ['T16', 'T17'],
  standards: ['ASVS 5.0 6.3.8', 'ASVS 5.0 11.5.1', 'NIST 800-63B §5.1.3.2'],
});

const randomPinId = () => randomBytes(16).toString('hex').toUpperCase();

describe('enumeration: pinIds and destinations', () => {
  let h: Harness;
  let inject: ReturnType<typeof injector>;
  let app: { applicationId: string; messageId: string };

  before(async () => {
    h = await createHarness();
    inject = injector(h, results);
    app = await createAppAndTemplate(h, { configuration: { pinAttempts: 1, pinTimeToLive: '10m', verifyPinLimit: '100000/1s' } });
  });
  after(async () => {
    results.save();
    await h?.close();
  });

  /** Every PIN endpoint a caller can name a pinId in. */
  const probes = (pinId: string) => [
    ['POST', `/2fa/2/pin/${pinId}/verify`, { pin: '123456' }],
    ['POST', `/2fa/2/pin/${pinId}/resend`, {}],
    ['POST', `/2fa/2/pin/${pinId}/resend/voice`, {}],
    ['POST', `/2fa/2/pin/${pinId}/resend/email`, {}],
    ['GET', `/api/v1/pins/${pinId}`, undefined],
  ] as const;

  async function answer(key: string, pinId: string, i: number) {
    const [method, url, body] = probes(pinId)[i]!;
    const r = await inject(method, url, { key, ...(body !== undefined ? { body } : {}) });
    return { status: r.status, text: r.text.split(pinId).join('<id>'), ms: r.ms };
  }

  it('T16: random, other-account, expired-for-others and locked-for-others pinIds answer identically, byte for byte but the id', async () => {
    // PINs of account A: live, expired and locked; account B probes them all.
    const live = await inject('POST', '/2fa/2/pin', { body: { ...app, to: '41796040001' } });
    const locked = await inject('POST', '/2fa/2/pin', { body: { ...app, to: '41796040002' } });
    const lockedPin = await inboxPin(h, locked.body.pinId);
    assert.equal((await inject('POST', `/2fa/2/pin/${locked.body.pinId}/verify`, { body: { pin: wrongPinFor(lockedPin) } })).body.attemptsRemaining, 0);
    const expired = await inject('POST', '/2fa/2/pin', { body: { ...app, to: '41796040003' } });
    h.clock.advance(11 * 60_000);
    const others = [live.body.pinId as string, locked.body.pinId as string, expired.body.pinId as string];

    const random = scale(400, 10_000);
    const timings: Record<string, number[]> = { unknown: [], otherAccount: [] };
    let mismatches = 0;
    for (let i = 0; i < probes('X').length; i += 1) {
      const reference = await answer(h.keys.b, randomPinId(), i);
      assert.ok(reference.status === 404, `unknown pinId answers 404 (${reference.text})`);
      for (let n = 0; n < random / probes('X').length; n += 1) {
        const a = await answer(h.keys.b, randomPinId(), i);
        timings.unknown!.push(a.ms);
        results.add('unknownPinIdsTried');
        if (a.status !== reference.status || a.text !== reference.text) mismatches += 1;
      }
      for (const pinId of others) {
        for (let n = 0; n < 20; n += 1) {
          const a = await answer(h.keys.b, pinId, i);
          timings.otherAccount!.push(a.ms);
          results.add('otherAccountPinIdsTried');
          if (a.status !== reference.status || a.text !== reference.text) mismatches += 1;
        }
      }
      // Without a key at all: 401 whatever the pinId.
      const noKeyKnown = await inject(probes(others[0]!)[i]![0], probes(others[0]!)[i]![1], { key: null, body: {} });
      const noKeyUnknown = await inject(probes('X')[i]![0], probes('X')[i]![1], { key: null, body: {} });
      assert.equal(noKeyKnown.status, 401);
      assert.equal(noKeyKnown.text, noKeyUnknown.text);
    }
    const p99Unknown = percentile(timings.unknown!, 99);
    const p99Other = percentile(timings.otherAccount!, 99);
    results.add('enumerationMismatches', mismatches);
    results.set('T16.p99UnknownMs', Number(p99Unknown.toFixed(2)));
    results.set('T16.p99OtherAccountMs', Number(p99Other.toFixed(2)));
    results.set('T16.p99DifferenceMs', Number(Math.abs(p99Unknown - p99Other).toFixed(2)));
    assert.equal(mismatches, 0, 'every answer identical to the unknown-pinId answer');
    results.check('T16', mismatches === 0, `${results.counters['unknownPinIdsTried']} random and ${results.counters['otherAccountPinIdsTried']} other-account (live, locked, expired) pinIds on 5 endpoints: 0 differing answers; p99 ${p99Unknown.toFixed(2)} vs ${p99Other.toFixed(2)} ms (in process)`);
    // The owner sees Infobip's documented answers for its own ended PINs.
    const own = await inject('POST', `/2fa/2/pin/${expired.body.pinId}/verify`, { body: { pin: '123456' } });
    assert.equal(own.body.pinError, 'TTL_EXPIRED');
    results.note('T16: expired and locked PINs answer their owning account with Infobip\'s pinError (TTL_EXPIRED, NO_MORE_PIN_ATTEMPTS) as the Infobip API documents; to every other account and to unauthenticated callers they are indistinguishable from unknown pinIds.');
  });

  it('T17: sends and verification-status answers do not tell a known destination from a never-seen one', async () => {
    const known = '41796041000';
    await inject('POST', '/2fa/2/pin', { body: { ...app, to: known } });
    const shape = (v: unknown): unknown => (Array.isArray(v) ? v.map(shape) : v !== null && typeof v === 'object'
      ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shape(x)])) : typeof v);
    const sendKnown = await inject('POST', '/2fa/2/pin', { body: { ...app, to: known } });
    const sendNew = await inject('POST', '/2fa/2/pin', { body: { ...app, to: '41796041999' } });
    assert.equal(sendKnown.status, sendNew.status);
    assert.deepEqual(shape(sendKnown.body), shape(sendNew.body));
    // Verification status is the destination lookup Infobip offers: asked by another account, a known
    // number looks exactly like an unknown one.
    const statusOther = await inject('GET', `/2fa/2/applications/${app.applicationId}/verifications?msisdn=${known}`, { key: h.keys.b });
    const statusOtherUnknown = await inject('GET', `/2fa/2/applications/${app.applicationId}/verifications?msisdn=41796041998`, { key: h.keys.b });
    assert.equal(statusOther.status, statusOtherUnknown.status);
    assert.equal(statusOther.text, statusOtherUnknown.text);
    results.add('destinationProbes', 4);
    const sameSend = sendKnown.status === sendNew.status && JSON.stringify(shape(sendKnown.body)) === JSON.stringify(shape(sendNew.body));
    results.check('T17', sameSend && statusOther.status === statusOtherUnknown.status && statusOther.text === statusOtherUnknown.text, 'send answers to known and never-seen numbers have one status and shape; no USER_NOT_FOUND-style oracle; other accounts get identical answers for known and unknown numbers');
  });
});
