// The store conformance suite on the in-memory store (src/store/memory/), which the services' unit
// tests (test/service/) run on: it must keep every rule the database stores keep, or those tests
// would pass on behaviour production does not have. What it leaves out, and why:
import { MemoryStore } from '../../src/store/memory/memory-store.js';
import { storeConformance } from './store-contract.js';

const TWILIO = 'the Twilio dialect\'s rows (store.twilio) are not kept in memory; its use cases are tested over HTTP on SQLite and PostgreSQL (test/twilio/)';

storeConformance('in memory', async () => new MemoryStore(), {
  notApplicable: {
    // Inherently SQL: the test reads the databases' query plans of the purge's statements.
    'purges through indexes: no statement of the purge walks a whole table': 'checks SQL query plans; the in-memory store runs no SQL',
    'keeps the Twilio dialect\'s rows per account, and settles a live PIN once among concurrent approves and cancels': TWILIO,
    'queues pin.verified when a Twilio verification is approved by update, pin.locked when it is canceled': TWILIO,
    'approves a Twilio verification, with its verification.approved event, in the transaction of the verify that verifies its PIN': TWILIO,
    'starts a Twilio verification, with its verification.started event, in the transaction of its PIN, or not at all': TWILIO,
    'keeps a Service\'s Rate Limit names unique under concurrent creates, and deletes a limit with its Buckets': TWILIO,
    'queues the Vonage and Prelude callbacks of what committed, once each, through indexes': 'the Vonage and Prelude dialects\' rows are not kept in memory; their callbacks are tested over HTTP on SQLite and PostgreSQL (test/vonage/, test/prelude/)',
  },
});
