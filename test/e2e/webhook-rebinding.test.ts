// DNS rebinding: a webhook name that resolved to a public address when the subscription was saved,
// and to 127.0.0.1 when the event is delivered, gets no request. The event worker's agents check the
// address they are about to connect to (a lookup hook), not one looked up earlier. The resolver is
// the test's own, and a TCP listener on 127.0.0.1 at the URL's port counts connections: it must see
// none.
import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { HostResolver } from '../../src/delivery/webhook/webhook-address-guard.js';
import { createAppAndTemplate, createHarness, deliveredPin, type Harness } from '../support/harness.js';

describe('webhook delivery to a name that rebinds to loopback', () => {
  let h: Harness;
  let listener: net.Server;
  let connections = 0;
  const lookups: string[] = [];
  // The first answer (when the URL is saved) is public; every later one is loopback.
  const resolver: HostResolver = async (hostname) => {
    lookups.push(hostname);
    return [{ address: lookups.length === 1 ? '93.184.216.34' : '127.0.0.1', family: 4 }];
  };

  before(async () => {
    listener = net.createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    h = await createHarness({}, { resolveHost: resolver });
  });
  after(async () => {
    await h.close();
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  });

  it('refuses the connection at delivery, and the local listener sees nothing', async () => {
    const port = (listener.address() as AddressInfo).port;
    const subscribed = await h.request('POST', '/api/v1/webhooks', { body: { url: `https://rebind.test:${port}/events`, events: ['pin.sent'] } });
    assert.equal(subscribed.status, 200, JSON.stringify(subscribed.body));
    assert.deepEqual(lookups, ['rebind.test'], 'checked once when saved');

    const { applicationId, messageId } = await createAppAndTemplate(h);
    const sent = await h.request('POST', '/2fa/2/pin', { body: { applicationId, messageId, to: '41793026727' } });
    await deliveredPin(h, sent.body.pinId as string);
    await h.node.events.drain();

    assert.ok(lookups.length >= 2, 'the delivery resolved the name itself, through the guarded lookup');
    const metrics: string = (await h.request('GET', '/metrics', { key: null })).body;
    assert.match(metrics, /twofa_event_deliveries_total\{outcome="retried"[^}]*\} 1\n/);
    assert.doesNotMatch(metrics, /twofa_event_deliveries_total\{outcome="delivered"/);
    const failure = h.logs.map((l) => JSON.parse(l) as { msg?: string; error?: string }).find((l) => l.msg === 'event delivery failed; will retry');
    assert.match(failure?.error ?? '', /refused: rebind\.test resolves to a loopback address/);
    assert.equal(connections, 0, 'no connection reached the loopback listener');
  });
});
