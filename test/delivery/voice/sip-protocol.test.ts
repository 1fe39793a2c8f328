// The protocol pieces under the sip:// transport, against published examples where there are some:
// SIP message parsing and framing, the SDP offer/answer, digest responses (RFC 2617 and RFC 7616
// test vectors), RFC 4733 telephone events, G.711 and RTP headers; and the DSN's checks.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { createTransport, DsnError } from '../../../src/delivery/dsn.js';
import { Inbox } from '../../../src/delivery/log/inbox.js';
import { digestAuthorization, parseChallenges, parseParams } from '../../../src/delivery/voice/digest-auth.js';
import { decodeTelephoneEvent, DtmfSequence, encodeTelephoneEvent, keyFromInfo, TelephoneEventReceiver } from '../../../src/delivery/voice/dtmf.js';
import { decodeG711, encodeG711, g711Silence } from '../../../src/delivery/voice/g711.js';
import { decodeRtp, encodeRtp } from '../../../src/delivery/voice/rtp.js';
import { buildOffer, parseAnswer } from '../../../src/delivery/voice/sdp.js';
import { headerParam, headerUri, parseSipMessage, parseSipUri, serializeSipMessage, SipHeaders, SipStreamParser } from '../../../src/delivery/voice/sip-message.js';
import { SipTransport } from '../../../src/delivery/voice/sip-transport.js';

const logger = pino({ level: 'silent' });

describe('SIP messages', () => {
  const invite = [
    'INVITE sip:+41793026727@sip.example.net SIP/2.0',
    'v: SIP/2.0/UDP 10.0.0.1:5062;branch=z9hG4bK776asdhds;rport',
    'Via: SIP/2.0/UDP proxy.example.net;branch=z9hG4bK1, SIP/2.0/UDP 10.0.0.9;branch=z9hG4bK2',
    'From: "Acme, Inc." <sip:+15005550006@sip.example.net>;tag=1928301774',
    'To: <sip:+41793026727@sip.example.net>',
    'i: a84b4c76e66710@pc33',
    'CSeq: 314159 INVITE',
    'Subject: folded',
    '  header line',
    'Content-Type: application/sdp',
    'l: 4',
    '',
    'v=0\r\nignored',
  ].join('\r\n');

  it('parses requests with compact forms, folded lines, list headers and Content-Length', () => {
    const message = parseSipMessage(Buffer.from(invite));
    assert.equal(message.kind, 'request');
    if (message.kind !== 'request') return;
    assert.equal(message.method, 'INVITE');
    assert.equal(message.uri, 'sip:+41793026727@sip.example.net');
    assert.deepEqual(message.headers.getAll('Via').map((via) => headerParam(via, 'branch')), ['z9hG4bK776asdhds', 'z9hG4bK1', 'z9hG4bK2']);
    assert.equal(message.headers.get('call-id'), 'a84b4c76e66710@pc33');
    assert.equal(message.headers.get('Subject'), 'folded header line');
    assert.equal(message.headers.get('From'), '"Acme, Inc." <sip:+15005550006@sip.example.net>;tag=1928301774');
    assert.equal(headerParam(message.headers.get('From'), 'tag'), '1928301774');
    assert.equal(headerUri(message.headers.get('From')), 'sip:+15005550006@sip.example.net');
    assert.equal(message.body.toString(), 'v=0\r');
  });

  it('serializes with a computed Content-Length and round-trips', () => {
    const headers = new SipHeaders().append('Via', 'SIP/2.0/TCP 10.0.0.1:5060;branch=z9hG4bKx').append('Call-ID', 'abc').append('CSeq', '1 BYE').append('Content-Length', '999');
    const wire = serializeSipMessage({ kind: 'response', status: 486, reason: 'Busy Here', headers, body: Buffer.from('hi') });
    assert.match(wire.toString(), /^SIP\/2\.0 486 Busy Here\r\n/);
    assert.match(wire.toString(), /\r\nContent-Length: 2\r\n\r\nhi$/);
    const back = parseSipMessage(wire);
    assert.equal(back.kind === 'response' && back.status, 486);
    assert.throws(() => serializeSipMessage({ kind: 'request', method: 'BYE', uri: 'sip:x', headers: new SipHeaders().append('X', 'a\r\nInjected: 1'), body: Buffer.alloc(0) }), /line break/);
  });

  it('frames a TCP stream by Content-Length, across chunks and keep-alives', () => {
    const parser = new SipStreamParser();
    const one = serializeSipMessage({ kind: 'response', status: 100, reason: 'Trying', headers: new SipHeaders().append('CSeq', '1 INVITE'), body: Buffer.alloc(0) });
    const two = serializeSipMessage({ kind: 'response', status: 200, reason: 'OK', headers: new SipHeaders().append('CSeq', '1 INVITE'), body: Buffer.from('v=0\r\n') });
    const stream = Buffer.concat([Buffer.from('\r\n\r\n'), one, two]);
    const got = [...parser.push(stream.subarray(0, 30)), ...parser.push(stream.subarray(30, stream.length - 3)), ...parser.push(stream.subarray(stream.length - 3))];
    assert.deepEqual(got.map((m) => (m.kind === 'response' ? m.status : 0)), [100, 200]);
    assert.equal(got[1]?.body.toString(), 'v=0\r\n');
  });

  it('reads host, port and transport of SIP URIs', () => {
    assert.deepEqual(parseSipUri('sip:bob@192.0.2.4:5070;transport=TCP'), { host: '192.0.2.4', port: 5070, transport: 'tcp' });
    assert.deepEqual(parseSipUri('sip:[2001:db8::1]'), { host: '2001:db8::1', port: undefined, transport: undefined });
    assert.equal(parseSipUri('mailto:x@y'), undefined);
  });
});

describe('SDP', () => {
  it('offers PCMU, PCMA and telephone events on one audio stream', () => {
    const offer = buildOffer({ address: '192.0.2.10', port: 40000, sessionId: '42' });
    assert.match(offer, /^v=0\r\n/);
    assert.match(offer, /\r\nc=IN IP4 192\.0\.2\.10\r\n/);
    assert.match(offer, /\r\nm=audio 40000 RTP\/AVP 0 8 101\r\n/);
    assert.match(offer, /a=rtpmap:0 PCMU\/8000\r\na=rtpmap:8 PCMA\/8000\r\na=rtpmap:101 telephone-event\/8000\r\na=fmtp:101 0-15\r\n/);
    assert.match(buildOffer({ address: '2001:db8::5', port: 4, sessionId: '1' }), /c=IN IP6 2001:db8::5/);
  });

  it("reads the callee's address, codec choice and event payload type from the answer", () => {
    const answer = ['v=0', 'o=- 1 1 IN IP4 192.0.2.1', 's=-', 'c=IN IP4 192.0.2.1', 't=0 0', 'm=audio 30000 RTP/AVP 8 0 96', 'c=IN IP4 198.51.100.7', 'a=rtpmap:96 telephone-event/8000', ''].join('\r\n');
    assert.deepEqual(parseAnswer(answer), { ok: true, answer: { address: '198.51.100.7', port: 30000, codec: 'PCMA', payloadType: 8, telephoneEventPayload: 96 } });
    const sessionLevel = parseAnswer('v=0\nc=IN IP4 192.0.2.1\nm=audio 5004 RTP/AVP 0\n');
    assert.deepEqual(sessionLevel, { ok: true, answer: { address: '192.0.2.1', port: 5004, codec: 'PCMU', payloadType: 0, telephoneEventPayload: null } });
  });

  it('refuses answers we cannot use', () => {
    assert.deepEqual(parseAnswer('v=0\nc=IN IP4 192.0.2.1\nm=audio 0 RTP/AVP 0\n'), { ok: false, error: 'the callee refused the audio stream' });
    assert.deepEqual(parseAnswer('v=0\nc=IN IP4 192.0.2.1\nm=audio 5004 RTP/AVP 18\na=rtpmap:18 G729/8000\n'), { ok: false, error: 'the callee accepts neither PCMU nor PCMA' });
    assert.deepEqual(parseAnswer('v=0\nm=video 5004 RTP/AVP 96\n'), { ok: false, error: 'the answer has no audio stream' });
    assert.deepEqual(parseAnswer('v=0\nm=audio 5004 RTP/AVP 0\n'), { ok: false, error: 'the answer has no connection address' });
  });
});

describe('digest authentication', () => {
  it('answers the RFC 2617 example (MD5, qop=auth)', () => {
    const [challenge] = parseChallenges(['Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41"']);
    assert.ok(challenge);
    const header = digestAuthorization(challenge, { username: 'Mufasa', password: 'Circle Of Life' }, { method: 'GET', uri: '/dir/index.html', cnonce: '0a4f113b', nonceCount: 1 });
    assert.match(header, /response="6629fae49393a05397450978507c4ef1"/);
    assert.match(header, /qop=auth, nc=00000001, cnonce="0a4f113b"/);
    assert.match(header, /opaque="5ccc069c403ebaf9f0171e9517f40e41"/);
    assert.match(header, /^Digest username="Mufasa", realm="testrealm@host\.com"/);
  });

  it('answers the RFC 7616 examples (SHA-256 preferred over MD5 when both are offered)', () => {
    const challenges = parseChallenges([
      'Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"',
      'Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=MD5, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"',
    ]);
    assert.deepEqual(challenges.map((c) => c.algorithm), ['SHA-256', 'MD5']);
    const request = { method: 'GET', uri: '/dir/index.html', cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ', nonceCount: 1 };
    const credentials = { username: 'Mufasa', password: 'Circle of Life' };
    assert.match(digestAuthorization(challenges[0]!, credentials, request), /response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"/);
    assert.match(digestAuthorization(challenges[1]!, credentials, request), /response="8ca523f5e9506fed4657c9700eebdbec"/);
  });

  it('answers a challenge without qop the RFC 2069 way, and reads several challenges in one header', () => {
    const challenges = parseChallenges(['Basic realm="x", Digest realm="sip.example.net", nonce="abc", stale=TRUE']);
    assert.equal(challenges.length, 1);
    assert.equal(challenges[0]?.stale, true);
    const header = digestAuthorization(challenges[0]!, { username: 'u', password: 'p' }, { method: 'INVITE', uri: 'sip:+1@sip.example.net' });
    assert.doesNotMatch(header, /qop=|cnonce=/);
    assert.deepEqual(parseChallenges(['Digest realm="r", nonce="n", algorithm=AKAv1-MD5']), []);
    assert.deepEqual(parseChallenges(['Digest realm="r", nonce="n", algorithm=MD5-sess']), [], 'a -sess algorithm needs a qop');
    assert.deepEqual([...parseParams('a=1, b="x, \\"y\\"", C=z')], [['a', '1'], ['b', 'x, "y"'], ['c', 'z']]);
  });
});

describe('DTMF', () => {
  it('encodes and decodes RFC 4733 events, reporting each press once', () => {
    const payload = encodeTelephoneEvent({ key: '#', end: true, volume: 10, duration: 800 });
    assert.deepEqual([...payload], [11, 0x8a, 0x03, 0x20]);
    assert.deepEqual(decodeTelephoneEvent(payload), { key: '#', end: true, volume: 10, duration: 800 });
    assert.equal(decodeTelephoneEvent(Buffer.from([16, 0, 0, 0])), null, 'event 16 is not a key');
    const receiver = new TelephoneEventReceiver();
    const keys = [
      [1000, encodeTelephoneEvent({ key: '1', end: false, volume: 10, duration: 160 })],
      [1000, encodeTelephoneEvent({ key: '1', end: true, volume: 10, duration: 480 })],
      [1000, encodeTelephoneEvent({ key: '1', end: true, volume: 10, duration: 480 })],
      [2000, encodeTelephoneEvent({ key: '1', end: false, volume: 10, duration: 160 })],
    ].map(([timestamp, data]) => receiver.receive(timestamp as number, data as Buffer));
    assert.deepEqual(keys, ['1', null, null, '1']);
  });

  it('watches for the replay sequence among other keys', () => {
    const sequence = new DtmfSequence('1#');
    assert.deepEqual(['1', '2', '#', '1', '#', '#', '1', '#'].map((key) => sequence.press(key)), [false, false, false, false, true, false, false, true]);
    assert.equal(new DtmfSequence('').press('1'), false);
  });

  it('reads keys from SIP INFO bodies', () => {
    assert.equal(keyFromInfo('application/dtmf-relay', 'Signal=5\r\nDuration=160\r\n'), '5');
    assert.equal(keyFromInfo('application/dtmf-relay', 'Signal= 11\r\n'), '#');
    assert.equal(keyFromInfo('application/dtmf', '*'), '*');
    assert.equal(keyFromInfo('text/plain', '5'), null);
  });
});

describe('G.711 and RTP', () => {
  it('compands 16-bit PCM to µ-law and A-law and back within the codec step', () => {
    const pcm = Buffer.alloc(2 * 9);
    [0, 1, -1, 100, -100, 1000, -1000, 32767, -32768].forEach((sample, i) => pcm.writeInt16LE(sample, i * 2));
    // The codes of Sun's reference g711.c; `sox -D ... -e mu-law / -e a-law` gives the same except
    // at -1 and -100, where sox rounds the dropped low bits instead of truncating them.
    assert.deepEqual([...encodeG711('PCMU', pcm)], [0xff, 0xff, 0x7f, 0xf2, 0x72, 0xce, 0x4e, 0x80, 0x00]);
    assert.deepEqual([...encodeG711('PCMA', pcm)], [0xd5, 0xd5, 0x55, 0xd3, 0x53, 0xfa, 0x7a, 0xaa, 0x2a]);
    for (const codec of ['PCMU', 'PCMA'] as const) {
      const back = decodeG711(codec, encodeG711(codec, pcm));
      for (let i = 0; i < 9; i++) {
        const original = pcm.readInt16LE(i * 2);
        assert.ok(Math.abs(back.readInt16LE(i * 2) - original) <= Math.max(16, Math.abs(original) / 16), `${codec} ${original} -> ${back.readInt16LE(i * 2)}`);
      }
      assert.equal(encodeG711(codec, Buffer.alloc(2))[0], g711Silence(codec));
    }
  });

  it('writes and reads the RTP header', () => {
    const packet = encodeRtp({ payloadType: 8, marker: true, sequence: 65535, timestamp: 0xfffffff0, ssrc: 0xdeadbeef }, Buffer.alloc(160, 0xd5));
    assert.equal(packet.length, 172);
    assert.deepEqual([...packet.subarray(0, 12)], [0x80, 0x88, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf0, 0xde, 0xad, 0xbe, 0xef]);
    const decoded = decodeRtp(packet);
    assert.deepEqual(decoded?.header, { payloadType: 8, marker: true, sequence: 65535, timestamp: 0xfffffff0, ssrc: 0xdeadbeef });
    assert.equal(decoded?.payload.length, 160);
    assert.equal(decodeRtp(Buffer.from([0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])), null, 'version 1');
  });
});

describe('sip:// DSNs', () => {
  const deps = { inbox: new Inbox({ logger }), logger };

  it('builds the transport from TWOFA_VOICE_DSN', async () => {
    const transport = await createTransport('TWOFA_VOICE_DSN', 'sip://alice:s3cret@sip.example.net:5080?from=%2B15005550006&transport=tcp&timeout=20s&repeat=3&rtp_ports=20000-20999', deps);
    assert.ok(transport instanceof SipTransport);
    assert.equal(transport.name, 'sip');
    assert.ok((await createTransport('TWOFA_VOICE_DSN', 'sip://10.0.0.5', deps)) instanceof SipTransport, 'credentials and port are optional');
    assert.ok(await createTransport('TWOFA_VOICE_DSN', 'failover(sip://10.0.0.5 sip://10.0.0.6)', deps));
  });

  const bad: Array<[string, RegExp]> = [
    ['sip://alice:pw@sip.example.net?transport=tls', /transport must be udp or tcp/],
    ['sip://alice:pw@sip.example.net?timeout=0s', /timeout must be a duration/],
    ['sip://alice:pw@sip.example.net?repeat=9', /repeat must be a whole number from 1 to 5/],
    ['sip://alice:pw@sip.example.net?colour=blue', /unknown DSN parameter "colour"/],
    ['sip://alice:pw@sip.example.net?rtp_ports=9-10', /rtp_ports must be a range/],
    ['sip://alice:pw@sip.example.net?public_ip=example.com', /public_ip must be an IP address/],
    ['sip://alice:pw@sip.example.net?prefix=abc', /prefix may hold only/],
    ['sip://alice:pw@sip.example.net?timeout=5m&max_duration=5m1s', /must not exceed 10 minutes|max_duration must be a duration/],
    ['sip://:pw@sip.example.net', /password but no user/],
  ];
  for (const [dsn, pattern] of bad) {
    it(`refuses ${dsn}`, async () => {
      await assert.rejects(() => createTransport('TWOFA_VOICE_DSN', dsn, deps), (err: Error) => {
        assert.ok(err instanceof DsnError);
        assert.match(err.message, /^TWOFA_VOICE_DSN: /);
        assert.match(err.message, pattern);
        assert.ok(!err.message.includes(':pw@'), 'the password is not repeated');
        return true;
      });
    });
  }
});
