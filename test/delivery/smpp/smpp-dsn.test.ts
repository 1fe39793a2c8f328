import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSmppDsn } from '../../../src/delivery/smpp/smpp-transport.js';

const parse = (dsn: string) => parseSmppDsn('TWOFA_SMS_DSN', new URL(dsn));

describe('smpp:// DSN', () => {
  it('has documented defaults', () => {
    assert.deepEqual(parse('smpp://sys%40id:p%3Ass@smsc.example.com'), {
      host: 'smsc.example.com',
      port: 2775,
      tls: false,
      systemId: 'sys@id',
      password: 'p:ss',
      systemType: '',
      serviceType: '',
      sourceTon: undefined,
      sourceNpi: undefined,
      destTon: 1,
      destNpi: 1,
      registeredDelivery: 1,
      window: 10,
      enquireLinkMs: 30_000,
      timeoutMs: 10_000,
      receiptPattern: undefined,
      dltEntityTlv: 0x1400,
      dltTemplateTlv: 0x1401,
    });
    const tls = parse('smpps://id:pw@[::1]');
    assert.deepEqual([tls.tls, tls.host, tls.port], [true, '::1', 3550]);
  });

  it('reads the vendor TLV tags of India\'s DLT ids, in hex or decimal, and refuses tags outside the vendor range', () => {
    const settings = parse('smpp://id:pw@smsc.example.com?dlt_entity_tlv=0x1501&dlt_template_tlv=5378');
    assert.deepEqual([settings.dltEntityTlv, settings.dltTemplateTlv], [0x1501, 0x1502]);
    assert.throws(() => parse('smpp://id:pw@smsc.example.com?dlt_entity_tlv=0x0204'), /dlt_entity_tlv=0x0204 is not valid: must be a vendor-specific TLV tag from 0x1400 to 0x3FFF/);
  });

  it('reads every parameter', () => {
    const settings = parse(
      'smpp://id:pw@10.0.0.5:2776?system_type=OTP&service_type=VMA&source_ton=1&source_npi=1&dest_ton=0&dest_npi=0' +
        '&registered_delivery=2&window=50&enquire_link=1m&timeout=2500ms&dlr_regex=id%3D(%3F<id>%5Cw%2B)+s%3D(%3F<stat>%5Cw%2B)',
    );
    assert.equal(settings.port, 2776);
    assert.equal(settings.systemType, 'OTP');
    assert.equal(settings.serviceType, 'VMA');
    assert.deepEqual([settings.sourceTon, settings.sourceNpi, settings.destTon, settings.destNpi], [1, 1, 0, 0]);
    assert.equal(settings.registeredDelivery, 2);
    assert.equal(settings.window, 50);
    assert.equal(settings.enquireLinkMs, 60_000);
    assert.equal(settings.timeoutMs, 2_500);
    assert.equal(settings.receiptPattern?.source, 'id=(?<id>\\w+)+s=(?<stat>\\w+)', 'a + stays a plus');
  });

  it('refuses bad values with the variable name and an example', () => {
    const cases: [string, RegExp][] = [
      ['smpp://smsc.example.com', /needs the system_id/],
      ['smpp://id:pw@smsc.example.com/path', /no path/],
      ['smpp://id:pw@smsc.example.com?window=0', /window=0 is not valid: must be a whole number from 1 to 1000/],
      ['smpp://id:pw@smsc.example.com?window=ten', /window=ten/],
      ['smpp://id:pw@smsc.example.com?timeout=10', /timeout=10 is not valid: must be a duration/],
      ['smpp://id:pw@smsc.example.com?enquire_link=2h', /enquire_link=2h/],
      ['smpp://id:pw@smsc.example.com?source_ton=7', /source_ton=7 is not valid: must be one of 0, 1, 2, 3, 4, 5, 6/],
      ['smpp://id:pw@smsc.example.com?dest_npi=2', /dest_npi=2/],
      ['smpp://id:pw@smsc.example.com?registered_delivery=3', /registered_delivery=3/],
      ['smpp://id:pw@smsc.example.com?windw=5', /unknown SMPP DSN parameter "windw"/],
      ['smpp://id:pw@smsc.example.com?window=5&window=6', /given twice/],
      ['smpp://id:pw@smsc.example.com?dlr_regex=stat', /dlr_regex must have the named groups/],
      ['smpp://id:pw@smsc.example.com?timeout=%E0', /not valid percent-encoding/],
      ['smpp://id:p%C3%A4ss@smsc.example.com', /printable ASCII/],
      ['http://id:pw@smsc.example.com', /must start with smpp:\/\/ or smpps:\/\//],
    ];
    for (const [dsn, message] of cases) {
      assert.throws(() => parse(dsn), (err: Error) => {
        assert.match(err.message, /^TWOFA_SMS_DSN: /);
        assert.match(err.message, message);
        assert.match(err.message, /expected e\.g\. smpp:\/\/SYSTEM_ID:PASSWORD@smsc\.example\.com:2775\?/);
        assert.ok(!err.message.includes(':pw@') && !err.message.includes('p%C3%A4ss'), 'the password is never shown');
        return true;
      }, dsn);
    }
  });
});
