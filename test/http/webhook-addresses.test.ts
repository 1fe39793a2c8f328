// Accounts' webhooks reach only public addresses (SSRF): a URL whose host is, or resolves to, a
// loopback, private, link-local, unique-local, multicast or unspecified address is refused with a 400
// naming `url`, in every spelling URL parsing accepts. Names resolve through a resolver of the test's
// own, so nothing here asks DNS, and nothing here connects anywhere: refusal happens when the URL is
// saved.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { HostResolver } from '../../src/delivery/webhook/webhook-address-guard.js';
import { createHarness, offlineResolver, type Harness } from '../support/harness.js';

const NAMES: Record<string, string[]> = {
  'internal.test': ['10.1.2.3'],
  'metadata.test': ['169.254.169.254'],
  'mixed.test': ['93.184.216.34', '127.0.0.1'],
  'v6-local.test': ['fd12:3456::1'],
  'siit.test': ['::ffff:0:a01:203'],
  'public.test': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
};

const resolver: HostResolver = async (hostname) => {
  const addresses = NAMES[hostname];
  if (addresses === undefined) return offlineResolver(hostname);
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

describe('webhook URLs must reach public addresses', () => {
  let h: Harness;
  before(async () => { h = await createHarness({}, { resolveHost: resolver }); });
  after(async () => { await h.close(); });

  function assertUrlRefused(answer: { status: number; body: any }, url: string): void {
    assert.equal(answer.status, 400, `${url}: ${JSON.stringify(answer.body)}`);
    assert.equal(answer.body.requestError.serviceException.messageId, 'BAD_REQUEST');
    assert.deepEqual(Object.keys(answer.body.requestError.serviceException.validationErrors ?? {}), ['url'], url);
  }

  const refused = [
    'http://127.0.0.1:9/hook',
    'https://127.0.0.1:8080/anything',
    'https://127.1/',
    'https://0x7f.0.0.1/',
    'https://0177.0.0.1/',
    'https://2130706433/',
    'https://169.254.169.254/latest/meta-data/',
    'https://10.0.0.1/',
    'https://172.16.5.4/',
    'https://192.168.1.1/',
    'https://100.64.0.1/',
    'https://0.0.0.0/',
    'https://224.0.0.1/',
    'https://255.255.255.255/',
    'https://[::1]/',
    'https://[::]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:a9fe:a9fe]/',
    'https://[64:ff9b::a9fe:a9fe]/',
    'https://[2002:7f00:1::]/',
    'https://[fe80::1]/',
    'https://[fd00::1]/',
    'https://[ff02::1]/',
    'https://localhost/',
    'https://LOCALHOST./',
    'https://api.localhost/',
    'https://internal.test/',
    'https://metadata.test/latest/meta-data/',
    'https://mixed.test/',
    'https://v6-local.test/',
  ];

  it('refuses loopback, private, link-local, unique-local, multicast and unspecified hosts in any spelling', async () => {
    for (const url of refused) {
      assertUrlRefused(await h.request('POST', '/api/v1/webhooks', { body: { url, events: ['*'] } }), url);
    }
    assert.deepEqual((await h.request('GET', '/api/v1/webhooks')).body, [], 'nothing was saved');
  });

  it('refuses IPv6 addresses that a translator or tunnel carries to a non-public IPv4 address (SIIT, NAT64, 6to4, Teredo)', async () => {
    const translated = [
      'https://[::ffff:0:7f00:1]/', // SIIT to 127.0.0.1
      'https://[::ffff:0:10.0.0.1]/', // SIIT, dotted
      'https://[::ffff:0:a9fe:a9fe]/', // SIIT to 169.254.169.254
      'https://siit.test/', // a name resolving to SIIT's 10.1.2.3
      'https://[64:ff9b::10.0.0.1]/', // well-known NAT64 to a private address
      'https://[64:ff9b:1::a00:1]/', // local-use NAT64, /96
      'https://[64:ff9b:1:a00:1::]/', // local-use NAT64, /48 (the IPv4 address after the prefix)
      'https://[2002:a9fe:a9fe::1]/', // 6to4 of 169.254.169.254
      'https://[2002:c0a8:101::1]/', // 6to4 of 192.168.1.1
      'https://[2001::1]/', // Teredo
      'https://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/', // Teredo to the client 10.0.0.1 (obfuscated)
    ];
    for (const url of translated) {
      assertUrlRefused(await h.request('POST', '/api/v1/webhooks', { body: { url, events: ['*'] } }), url);
    }
    assert.deepEqual((await h.request('GET', '/api/v1/webhooks')).body, [], 'nothing was saved');
  });

  it('accepts the translated forms of a public IPv4 address (DNS64 answers 64:ff9b:: for IPv4-only receivers)', async () => {
    for (const url of ['https://[64:ff9b::5db8:d822]/hook', 'https://[::ffff:0:5db8:d822]/hook', 'https://[2002:5db8:d822::1]/hook']) {
      const created = await h.request('POST', '/api/v1/webhooks', { body: { url, events: ['*'] } });
      assert.equal(created.status, 200, `${url}: ${JSON.stringify(created.body)}`);
      assert.equal((await h.request('DELETE', `/api/v1/webhooks/${created.body.id}`)).status, 204);
    }
  });

  it('refuses such a URL in an update too, and keeps the old one', async () => {
    const created = await h.request('POST', '/api/v1/webhooks', { body: { url: 'https://public.test/hook', events: ['*'] } });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    for (const url of ['https://169.254.169.254/', 'https://internal.test/x']) {
      assertUrlRefused(await h.request('PUT', `/api/v1/webhooks/${created.body.id}`, { body: { url } }), url);
    }
    assert.equal((await h.request('GET', `/api/v1/webhooks/${created.body.id}`)).body.url, 'https://public.test/hook');
    assert.equal((await h.request('DELETE', `/api/v1/webhooks/${created.body.id}`)).status, 204);
  });

  it('accepts public addresses, and names that do not resolve yet (every delivery checks again)', async () => {
    for (const url of ['https://public.test/hook', 'https://93.184.216.34/hook', 'https://[2606:2800:220:1:248:1893:25c8:1946]/hook', 'https://not-deployed-yet.test/hook']) {
      const created = await h.request('POST', '/api/v1/webhooks', { body: { url, events: ['*'] } });
      assert.equal(created.status, 200, `${url}: ${JSON.stringify(created.body)}`);
      assert.equal((await h.request('DELETE', `/api/v1/webhooks/${created.body.id}`)).status, 204);
    }
  });

  it('says why, without echoing what a name resolved to', async () => {
    const answer = await h.request('POST', '/api/v1/webhooks', { body: { url: 'https://internal.test/', events: ['*'] } });
    const text = JSON.stringify(answer.body);
    assert.match(text, /private address/);
    assert.ok(!text.includes('10.1.2.3'), text);
  });
});

describe('TWOFA_WEBHOOK_ALLOW_PRIVATE=true', () => {
  let h: Harness;
  before(async () => { h = await createHarness({ TWOFA_WEBHOOK_ALLOW_PRIVATE: 'true' }, { resolveHost: resolver }); });
  after(async () => { await h.close(); });

  it('lets an operator\'s tests or private network use private addresses', async () => {
    for (const url of ['http://127.0.0.1:9/hook', 'https://10.0.0.1/', 'https://internal.test/', 'https://[fd00::1]/']) {
      const created = await h.request('POST', '/api/v1/webhooks', { body: { url, events: ['*'] } });
      assert.equal(created.status, 200, `${url}: ${JSON.stringify(created.body)}`);
      assert.equal((await h.request('DELETE', `/api/v1/webhooks/${created.body.id}`)).status, 204);
    }
  });
});
