// What a Twilio start may add to the database every tenant shares, whatever a client sends: the
// bounds docs/security.md states ("Bounded growth"), measured in rows and stored bytes.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { APP_HASHES_PER_SERVICE_MAX } from '../../src/service/twilio-services.js';
import { RATE_LIMIT_VALUE_MAX } from '../../src/service/twilio-rate-limits.js';
import type { KyselyStore } from '../../src/store/kysely-store.js';
import { applicationIdOf } from '../../src/domain/twilio-sids.js';
import { createHarness, type Harness } from '../support/harness.js';
import { freshPhone } from '../support/http-assertions.js';
import { assertTwilioError } from './documented-fields.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
/** docs/security.md: the key of a Bucket's row, whatever the value it counts. */
const BUCKET_KEY_MAX_BYTES = 100;
const DAY = 86_400;
const BUCKET_INTERVALS = [60, 3_600, DAY, 2 * DAY, 7 * DAY, 30 * DAY, 90 * DAY, 180 * DAY, 365 * DAY, 366 * DAY];

describe('Twilio starts grow the database within stated bounds', () => {
  let h: Harness;
  before(async () => { h = await createHarness(); });
  after(async () => { await h.close(); });

  const db = () => (h.node.store as KyselyStore).db;

  async function createService(name: string): Promise<string> {
    const created = await h.request('POST', '/v2/Services', { rawBody: form({ FriendlyName: name }), headers: FORM });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body.sid as string;
  }

  /** A Service with one Rate Limit of ten Buckets (the most a limit has), the longest 366 days. */
  async function serviceWithTenBuckets(name: string): Promise<{ sid: string; bucketSids: string[] }> {
    const sid = await createService(name);
    const limit = await h.request('POST', `/v2/Services/${sid}/RateLimits`, { rawBody: form({ UniqueName: 'end_user_ip' }), headers: FORM });
    assert.equal(limit.status, 201, JSON.stringify(limit.body));
    const bucketSids: string[] = [];
    for (const interval of BUCKET_INTERVALS) {
      const bucket = await h.request('POST', `/v2/Services/${sid}/RateLimits/${limit.body.sid}/Buckets`, { rawBody: form({ Max: '1000', Interval: String(interval) }), headers: FORM });
      assert.equal(bucket.status, 201, JSON.stringify(bucket.body));
      bucketSids.push(bucket.body.sid as string);
    }
    return { sid, bucketSids };
  }

  /** The rows counting this Service's Buckets: how many, and the bytes of their keys. */
  async function bucketRows(bucketSids: string[]): Promise<{ rows: number; keyBytes: number; longestKey: number }> {
    const rows = await db().selectFrom('rate_limit_buckets').select(['key'])
      .where((eb) => eb.or(bucketSids.map((sid) => eb('key', 'like', `twilio:bucket:${sid}:%`)))).execute();
    const sizes = rows.map((r) => Buffer.byteLength(r.key, 'utf8'));
    return { rows: rows.length, keyBytes: sizes.reduce((a, b) => a + b, 0), longestKey: Math.max(0, ...sizes) };
  }

  const start = (sid: string, fields: Record<string, string>) =>
    h.request('POST', `/v2/Services/${sid}/Verifications`, { key: h.keys.sendOnly, rawBody: form({ Channel: 'sms', ...fields }), headers: FORM });

  it(`refuses a RateLimits value longer than ${RATE_LIMIT_VALUE_MAX} characters with 60200, counting it in no Bucket`, async () => {
    const { sid, bucketSids } = await serviceWithTenBuckets('Long values');
    const to = `+${freshPhone()}`;
    for (let i = 0; i < 20; i++) {
      const value = `${i}-${'x'.repeat(60_000)}`;
      const refused = await start(sid, { To: to, RateLimits: JSON.stringify({ end_user_ip: value }) });
      assert.equal(refused.status, 400, JSON.stringify(refused.body).slice(0, 300));
      assertTwilioError(refused.body, 400, 60200);
    }
    assert.deepEqual(await bucketRows(bucketSids), { rows: 0, keyBytes: 0, longestKey: 0 });
    const longest = await start(sid, { To: to, RateLimits: JSON.stringify({ end_user_ip: 'v'.repeat(RATE_LIMIT_VALUE_MAX) }) });
    assert.equal(longest.status, 201, 'a value of the longest allowed length is taken');
  });

  it('200 starts to one number, each with a new RateLimits value: only the starts that send count, each Bucket row of bounded size', async () => {
    const { sid, bucketSids } = await serviceWithTenBuckets('Unique values');
    const to = `+${freshPhone()}`;
    let sent = 0;
    for (let i = 0; i < 200; i++) {
      const value = `${i}:${randomBytes(96).toString('hex')}`.slice(0, RATE_LIMIT_VALUE_MAX);
      const answer = await start(sid, { To: to, RateLimits: JSON.stringify({ end_user_ip: value }) });
      if (answer.status === 201) sent++;
      else assertTwilioError(answer.body, answer.status, 60203);
    }
    // One verification takes 5 sends; the other 195 starts are refused (60203) and count nowhere.
    assert.equal(sent, 5);
    const grown = await bucketRows(bucketSids);
    assert.ok(grown.rows <= sent * bucketSids.length, `${grown.rows} bucket rows for ${sent} sends through ${bucketSids.length} Buckets`);
    assert.ok(grown.longestKey <= BUCKET_KEY_MAX_BYTES, `a bucket key of ${grown.longestKey} bytes`);
    assert.ok(grown.keyBytes <= sent * bucketSids.length * BUCKET_KEY_MAX_BYTES, `${grown.keyBytes} bytes of bucket keys`);
  });

  it(`a Service keeps message variants for ${APP_HASHES_PER_SERVICE_MAX} AppHash values at most: a start with another is refused (60200) and adds nothing`, async () => {
    const sid = await createService('App hashes');
    const applicationId = applicationIdOf(sid)!;
    const templates = async () => Number((await db().selectFrom('message_templates').select(sql<number>`count(*)`.as('n')).where('application_id', '=', applicationId).executeTakeFirstOrThrow()).n);
    const variants = async () => Number((await db().selectFrom('twilio_service_locales').select(sql<number>`count(*)`.as('n')).where('application_id', '=', applicationId).executeTakeFirstOrThrow()).n);
    const templatesBefore = await templates();
    const variantsBefore = await variants();
    const hashes: string[] = [];
    for (let i = 0; i < 40; i++) {
      const appHash = randomBytes(8).toString('base64').slice(0, 11);
      hashes.push(appHash);
      const answer = await start(sid, { To: `+${freshPhone()}`, AppHash: appHash });
      if (i < APP_HASHES_PER_SERVICE_MAX) {
        assert.equal(answer.status, 201, JSON.stringify(answer.body));
      } else {
        assertTwilioError(answer.body, 400, 60200);
        assert.match(JSON.stringify(answer.body), /AppHash/);
      }
    }
    assert.equal(await templates() - templatesBefore, APP_HASHES_PER_SERVICE_MAX);
    assert.equal(await variants() - variantsBefore, APP_HASHES_PER_SERVICE_MAX);
    // A hash the Service has already is still taken, and adds nothing more.
    assert.equal((await start(sid, { To: `+${freshPhone()}`, AppHash: hashes[0]! })).status, 201);
    assert.equal(await templates() - templatesBefore, APP_HASHES_PER_SERVICE_MAX);
  });
});
