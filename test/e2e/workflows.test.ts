// Issue 16's three-step workflow, end to end: a real `twofa serve` process (on a SQLite file, then
// on PostgreSQL) delivers one PIN by WhatsApp (the local Graph API peer), then by SMS (the webhook
// transport to a local receiver), then by Telegram (the local Gateway peer). A verification after the
// first step stops the others; a failure of the WhatsApp message (refused by the provider, or
// reported undeliverable by a signed status webhook) makes the SMS step go at once instead of after
// its ten minutes; and `kill -9` between steps, twice, neither loses nor repeats a step.
// Waits are bounded polls, never timed assertions.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GraphApiPeer } from '../delivery/peers/graph-api-peer.js';
import { TelegramGatewayPeer } from '../delivery/peers/telegram-gateway-peer.js';
import { startWebhookReceiver, type WebhookReceiver } from '../multinode/cluster.js';
import { createAppAndTemplate, createJsonClient, expectOk, type JsonClient } from '../support/json-client.js';
import { createTestDatabase, skipUnlessPostgres, type TestDatabase } from '../support/postgres.js';
import { freePort, startServerProcess, type ServerProcess } from '../support/server-process.js';

const TELEGRAM_TOKEN = 'AAGiv3Xr_workflow-gateway-token';
const PHONES = { verified: '41793026731', refused: '41793026732', undelivered: '41793026733', killed: '41793026734' };

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const pgSkip = await skipUnlessPostgres();

for (const backend of ['sqlite', 'postgres'] as const) {
  describe(`a three-step workflow across real peers (${backend})`, { skip: backend === 'postgres' ? pgSkip : false }, () => {
    const graph = new GraphApiPeer({ accessToken: 'EAAG-workflow-token', phoneNumberId: '106540352242922', appSecret: 'meta-app-secret-wf', templates: { verify_code: 'en_US' } });
    const gateway = new TelegramGatewayPeer(TELEGRAM_TOKEN, new Set(Object.values(PHONES).map((p) => `+${p}`)));
    let receiver: WebhookReceiver;
    let database: TestDatabase | undefined;
    let dataDir: string;
    let env: Record<string, string>;
    let server: ServerProcess | undefined;
    let client: JsonClient;

    const start = async () => {
      server = await startServerProcess(env, { timeoutMs: 180_000 });
      client = createJsonClient(server.url, server.key);
    };
    const kill = async () => {
      process.kill(server!.pid, 'SIGKILL');
      assert.equal(await server!.stop(), null, 'died of SIGKILL');
      server = undefined;
    };

    before(async () => {
      await graph.start();
      await gateway.start();
      receiver = await startWebhookReceiver();
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-workflow-'));
      database = backend === 'postgres' ? await createTestDatabase('workflow') : undefined;
      const port = await freePort();
      const telegramCallback = encodeURIComponent(`http://127.0.0.1:${port}/api/v1/callbacks/telegram`);
      env = {
        TWOFA_DATA_DIR: dataDir, TWOFA_PORT: String(port), TWOFA_DELIVERY_LEASE: '2s',
        ...(database ? { TWOFA_DATABASE_URL: database.url, TWOFA_DATABASE_POOL_SIZE: '5' } : {}),
        TWOFA_WHATSAPP_DSN: graph.dsn(),
        TWOFA_SMS_DSN: `webhook+http://127.0.0.1:${receiver.port}/sms?secret=whsec_${randomBytes(32).toString('base64').replace(/\+/g, 'A')}`,
        TWOFA_TELEGRAM_DSN: `telegram://${TELEGRAM_TOKEN}@default?sender_username=AcmeCodes&callback_url=${telegramCallback}&base_url=${encodeURIComponent(gateway.baseUrl)}`,
      };
      await start();
    });
    after(async () => {
      await server?.stop();
      await receiver?.close();
      await gateway.stop();
      await graph.stop();
      await database?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });

    async function appWithWorkflow(sms: string, telegram: string): Promise<{ applicationId: string; messageId: string }> {
      const ids = await createAppAndTemplate(client, { pinTimeToLive: '30m', sendPinPerPhoneNumberLimit: '100/1d' });
      const steps = [{ channel: 'whatsapp' }, { channel: 'sms', after: sms }, { channel: 'telegram', after: telegram }];
      expectOk(await client.request('PUT', `/api/v1/applications/${ids.applicationId}/workflow`, { body: { steps } }), 'put workflow');
      return ids;
    }

    async function send(ids: { applicationId: string; messageId: string }, to: string): Promise<string> {
      // Infobip's SMS send: the workflow, not the endpoint, picks the first channel.
      return expectOk(await client.post('/2fa/2/pin', { ...ids, to }), 'send').body.pinId as string;
    }

    const details = async (pinId: string) => expectOk(await client.get(`/api/v1/pins/${pinId}`), 'pin details').body;
    const states = async (pinId: string) => ((await details(pinId)).workflow as Array<{ state: string }>).map((s) => s.state);
    const whatsappTo = (to: string) => graph.messages.filter((m) => m.to === to);
    const telegramTo = (to: string) => gateway.sent.filter((m) => m.phoneNumber === `+${to}`);
    const smsCode = (pinId: string) => /code is ([0-9]+)/.exec(receiver.acceptedFor(pinId)[0]?.text ?? '')?.[1];
    /** Waits until the PIN's latest message is recorded as handed over (not merely queued or in flight). */
    const recorded = (pinId: string, sent: number) => until(`${sent} messages of ${pinId} recorded`, async () => {
      const d = await details(pinId);
      return d.history.filter((e: { event: string }) => e.event === 'sent').length >= sent && d.delivery.status !== 'queued';
    });

    it('a verification after the first step stops the others', async () => {
      const ids = await appWithWorkflow('10s', '10s');
      const pinId = await send(ids, PHONES.verified);
      const message = await until('the WhatsApp message', () => whatsappTo(PHONES.verified)[0]);
      const verified = expectOk(await client.post(`/2fa/2/pin/${pinId}/verify`, { pin: message.code }), 'verify');
      assert.equal(verified.body.verified, true);
      // The SMS step is cancelled when it comes due, which takes its ten seconds.
      await until('the SMS step cancelled', async () => (await states(pinId))[1] === 'cancelled');
      assert.deepEqual(await states(pinId), ['sent', 'cancelled', 'cancelled']);
      assert.equal(receiver.acceptedFor(pinId).length, 0, 'no SMS');
      assert.equal(telegramTo(PHONES.verified).length, 0, 'no Telegram message');
    });

    it('a message the provider refuses moves to the next step at once', async () => {
      const ids = await appWithWorkflow('10m', '10m');
      graph.failure = { status: 400, code: 132000, message: 'Number of parameters does not match the expected number of params' };
      let pinId: string;
      try {
        pinId = await send(ids, PHONES.refused);
        // Ten minutes early: only the failure can have sent it.
        await until('the SMS', () => receiver.acceptedFor(pinId).length > 0);
      } finally {
        graph.failure = undefined;
      }
      assert.deepEqual(await states(pinId), ['failed', 'sent', 'scheduled']);
      assert.equal(whatsappTo(PHONES.refused).length, 0);
    });

    it('an undelivered status webhook moves to the next step at once', async () => {
      const ids = await appWithWorkflow('10m', '10m');
      const pinId = await send(ids, PHONES.undelivered);
      const message = await until('the WhatsApp message', () => whatsappTo(PHONES.undelivered)[0]);
      await recorded(pinId, 1);
      assert.equal(await graph.sendStatus(`${server!.url}/api/v1/callbacks/whatsapp`, message.id, 'failed'), 200);
      await until('the SMS', () => smsCode(pinId));
      assert.equal(smsCode(pinId), message.code, 'the same PIN');
      assert.deepEqual(await states(pinId), ['failed', 'sent', 'scheduled']);
    });

    it('kill -9 between the steps neither loses nor repeats one', async () => {
      const ids = await appWithWorkflow('3s', '3s');
      const pinId = await send(ids, PHONES.killed);
      const first = await until('the WhatsApp message', () => whatsappTo(PHONES.killed)[0]);
      await recorded(pinId, 1);
      await kill();
      await start();
      await until('the SMS after a restart', () => smsCode(pinId));
      await recorded(pinId, 2);
      await kill();
      await start();
      await until('the Telegram message after a restart', () => telegramTo(PHONES.killed)[0]);
      await recorded(pinId, 3);
      // Each step ran once: three messages queued in all, one per channel, the same PIN in each.
      await until('every step sent', async () => (await states(pinId)).every((s) => s === 'sent'));
      const d = await details(pinId);
      assert.equal(d.sendCount, 3);
      assert.equal(whatsappTo(PHONES.killed).length, 1);
      assert.equal(receiver.acceptedFor(pinId).length, 1);
      assert.equal(telegramTo(PHONES.killed).length, 1);
      assert.equal(smsCode(pinId), first.code);
      assert.equal(telegramTo(PHONES.killed)[0]!.code, first.code);
      const verified = expectOk(await client.post(`/2fa/2/pin/${pinId}/verify`, { pin: first.code }), 'verify');
      assert.equal(verified.body.verified, true);
    });
  });
}
