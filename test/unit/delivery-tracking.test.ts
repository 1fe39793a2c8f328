// The failover decision of service/delivery-tracking.ts: which members of a channel's failover route
// a message a receipt reported undeliverable still goes through. The store only guards the write
// (test/store/store-contract.ts); the whole way through real peers is test/delivery/receipt-failover.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { failoverRequest } from '../../src/service/delivery-tracking.js';

describe('failover decision on an undelivered receipt', () => {
  const members = ['smpp', 'webhook', 'twilio'];
  const request = { placeholders: { name: 'Ann' }, from: 'Acme' };

  it('skips the member that could not deliver, and those skipped before, keeping the rest of the request', () => {
    assert.deepEqual(failoverRequest(members, request, 'smpp'), { placeholders: { name: 'Ann' }, from: 'Acme', skipTransports: ['smpp'] });
    assert.deepEqual(failoverRequest(members, { ...request, skipTransports: ['smpp'] }, 'webhook'), { ...request, skipTransports: ['smpp', 'webhook'] });
    assert.deepEqual(failoverRequest(members, { ...request, skipTransports: ['smpp'] }, 'twilio'), { ...request, skipTransports: ['smpp', 'twilio'] },
      'a member the route reached past an unreachable one: the one skipped only synchronously is tried again');
  });

  it('sends nothing again once every member was tried, without a failover route, or for a transport outside it', () => {
    assert.equal(failoverRequest(members, { ...request, skipTransports: ['smpp', 'webhook'] }, 'twilio'), undefined);
    assert.equal(failoverRequest(undefined, request, 'smpp'), undefined, 'the channel\'s transport is no failover route');
    assert.equal(failoverRequest(members, request, 'vonage'), undefined, 'not a member of the route');
    assert.equal(failoverRequest(['smpp'], request, 'smpp'), undefined, 'a route of one');
  });

  it('does not change the request it was given', () => {
    const given = { ...request, skipTransports: ['smpp'] };
    failoverRequest(members, given, 'webhook');
    assert.deepEqual(given.skipTransports, ['smpp']);
  });
});
