// One migration set for every dialect. Kysely hides the dialect from migrations by design, so the
// few places that differ take it as a parameter.
//
// A released migration runs the same SQL forever: a database made before a change ran the old text,
// so a migration whose text changes leaves new databases different from old ones. Each migration
// therefore holds its SQL literally and imports nothing from the code that uses the schema (a
// constant shared with that code would change the migration with it); a change is a new migration
// appended at the end. test/store/migration-sql.test.ts holds a digest of every migration's SQL.
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { advisoryLockKey } from './postgres/advisory-lock.js';

export type SqlDialect = 'sqlite' | 'postgres';

function migrations(dialect: SqlDialect): Record<string, Migration> {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    '0001_initial': {
      async up(db: Kysely<unknown>) {
        await db.schema.createTable('accounts')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('name', 'text', (c) => c.notNull().unique())
          .addColumn('created_at', bigint, (c) => c.notNull())
          .execute();

        await db.schema.createTable('api_keys')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
          .addColumn('key_hash', 'text', (c) => c.notNull().unique())
          .addColumn('key_prefix', 'text', (c) => c.notNull())
          .addColumn('scopes', 'text', (c) => c.notNull())
          .addColumn('label', 'text')
          .addColumn('created_at', bigint, (c) => c.notNull())
          .addColumn('revoked_at', bigint)
          .execute();

        await db.schema.createTable('applications')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('enabled', 'integer', (c) => c.notNull())
          .addColumn('pin_attempts', 'integer', (c) => c.notNull())
          .addColumn('allow_multiple_pin_verifications', 'integer', (c) => c.notNull())
          .addColumn('pin_time_to_live', 'text', (c) => c.notNull())
          .addColumn('verify_pin_limit', 'text', (c) => c.notNull())
          .addColumn('send_pin_per_application_limit', 'text', (c) => c.notNull())
          .addColumn('send_pin_per_phone_number_limit', 'text', (c) => c.notNull())
          .addColumn('created_at', bigint, (c) => c.notNull())
          .addColumn('updated_at', bigint, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('applications_account').on('applications').columns(['account_id', 'created_at']).execute();

        await db.schema.createTable('email_templates')
          .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
            dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement())
          .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('from_address', 'text')
          .addColumn('subject', 'text', (c) => c.notNull())
          .addColumn('html', 'text')
          .addColumn('text', 'text')
          .addColumn('created_at', bigint, (c) => c.notNull())
          .addColumn('updated_at', bigint, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('email_templates_account').on('email_templates').columns(['account_id', 'id']).execute();

        await db.schema.createTable('message_templates')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
          .addColumn('application_id', 'text', (c) => c.notNull().references('applications.id'))
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('pin_type', 'text', (c) => c.notNull())
          .addColumn('pin_length', 'integer', (c) => c.notNull())
          .addColumn('message_text', 'text')
          .addColumn('sender_id', 'text')
          .addColumn('language', 'text')
          .addColumn('voice_name', 'text')
          .addColumn('repeat_dtmf', 'text')
          .addColumn('speech_rate', dialect === 'postgres' ? 'double precision' : 'real')
          .addColumn('regional', 'text')
          .addColumn('email_template_id', bigint)
          .addColumn('email_from', 'text')
          .addColumn('landing_page_id', 'text')
          .addColumn('created_at', bigint, (c) => c.notNull())
          .addColumn('updated_at', bigint, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('message_templates_application').on('message_templates').columns(['application_id', 'created_at']).execute();
        await db.schema.createIndex('message_templates_email_template').on('message_templates').columns(['email_template_id']).execute();

        await db.schema.createTable('pins')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'text', (c) => c.notNull())
          .addColumn('application_id', 'text', (c) => c.notNull())
          .addColumn('message_id', 'text', (c) => c.notNull())
          .addColumn('channel', 'text', (c) => c.notNull())
          .addColumn('destination', 'text', (c) => c.notNull())
          .addColumn('pin_hash', 'text', (c) => c.notNull())
          .addColumn('pin_ciphertext', 'text')
          .addColumn('attempts_left', 'integer', (c) => c.notNull())
          .addColumn('allow_multiple_verifications', 'integer', (c) => c.notNull())
          .addColumn('created_at', bigint, (c) => c.notNull())
          .addColumn('expires_at', bigint, (c) => c.notNull())
          .addColumn('verified_at', bigint)
          .addColumn('locked_at', bigint)
          .addColumn('delivery_status', 'text', (c) => c.notNull())
          .addColumn('delivery_error', 'text')
          .addColumn('sent_at', bigint)
          .addColumn('send_count', 'integer', (c) => c.notNull())
          .execute();
        // Verification status looks PINs up by application and destination, newest first.
        await db.schema.createIndex('pins_application_destination').on('pins').columns(['application_id', 'destination', 'created_at']).execute();
        // The purge job walks PINs by expiry.
        await db.schema.createIndex('pins_expires_at').on('pins').columns(['expires_at']).execute();

        await db.schema.createTable('outbox')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('pin_id', 'text', (c) => c.notNull())
          .addColumn('account_id', 'text', (c) => c.notNull())
          .addColumn('channel', 'text', (c) => c.notNull())
          .addColumn('request', 'text', (c) => c.notNull())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('attempts', 'integer', (c) => c.notNull())
          .addColumn('next_attempt_at', bigint, (c) => c.notNull())
          .addColumn('lease_until', bigint, (c) => c.notNull())
          .addColumn('last_error', 'text')
          .addColumn('created_at', bigint, (c) => c.notNull())
          .addColumn('updated_at', bigint, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('outbox_due').on('outbox').columns(['state', 'next_attempt_at']).execute();
        await db.schema.createIndex('outbox_pin').on('outbox').columns(['pin_id']).execute();

        await db.schema.createTable('rate_limit_buckets')
          .addColumn('key', 'text', (c) => c.notNull())
          .addColumn('bucket_start', bigint, (c) => c.notNull())
          .addColumn('hits', 'integer', (c) => c.notNull())
          .addColumn('last_at', bigint, (c) => c.notNull())
          .addColumn('expires_at', bigint, (c) => c.notNull())
          .addPrimaryKeyConstraint('rate_limit_buckets_pk', ['key', 'bucket_start'])
          .execute();
        await db.schema.createIndex('rate_limit_buckets_expiry').on('rate_limit_buckets').columns(['expires_at']).execute();
      },
    },
    '0002_delivery_tracking': {
      async up(db: Kysely<unknown>) {
        // Which transport took each message and the provider's id for it: delivery receipts and
        // status callbacks are matched by these.
        await db.schema.alterTable('outbox').addColumn('transport', 'text').execute();
        await db.schema.alterTable('outbox').addColumn('provider_message_id', 'text').execute();
        await db.schema.createIndex('outbox_provider_message').on('outbox').columns(['provider_message_id']).execute();
        await db.schema.alterTable('pins').addColumn('delivery_transport', 'text').execute();
        await db.schema.alterTable('pins').addColumn('provider_message_id', 'text').execute();
        await db.schema.alterTable('pins').addColumn('delivered_at', bigint).execute();
        await db.schema.createTable('delivery_events')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('pin_id', 'text', (c) => c.notNull())
          .addColumn('account_id', 'text', (c) => c.notNull())
          .addColumn('at', bigint, (c) => c.notNull())
          .addColumn('event', 'text', (c) => c.notNull())
          .addColumn('channel', 'text')
          .addColumn('transport', 'text')
          .addColumn('provider_message_id', 'text')
          .addColumn('error', 'text')
          .execute();
        await db.schema.createIndex('delivery_events_pin').on('delivery_events').columns(['pin_id', 'at']).execute();
      },
    },
    '0003_event_webhooks': {
      async up(db: Kysely<unknown>) {
        // Webhook subscriptions of an account, and the durable outbox of the events sent to them
        // (separate from the PIN outbox, whose rows are PIN messages).
        await db.schema.createTable('webhook_subscriptions')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
          .addColumn('url', 'text', (c) => c.notNull())
          .addColumn('events', 'text', (c) => c.notNull())
          .addColumn('secret_ciphertext', 'text', (c) => c.notNull())
          .addColumn('enabled', 'integer', (c) => c.notNull())
          .addColumn('created_at', bigint, (c) => c.notNull())
          .addColumn('updated_at', bigint, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('webhook_subscriptions_account').on('webhook_subscriptions').columns(['account_id', 'enabled']).execute();
        await db.schema.createTable('event_outbox')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'text', (c) => c.notNull())
          .addColumn('subscription_id', 'text', (c) => c.notNull())
          .addColumn('event_type', 'text', (c) => c.notNull())
          .addColumn('pin_id', 'text', (c) => c.notNull())
          .addColumn('payload', 'text', (c) => c.notNull())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('attempts', 'integer', (c) => c.notNull())
          .addColumn('next_attempt_at', bigint, (c) => c.notNull())
          .addColumn('lease_until', bigint, (c) => c.notNull())
          .addColumn('last_error', 'text')
          .addColumn('created_at', bigint, (c) => c.notNull())
          .addColumn('updated_at', bigint, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('event_outbox_due').on('event_outbox').columns(['state', 'next_attempt_at']).execute();
        await db.schema.createIndex('event_outbox_subscription').on('event_outbox').columns(['subscription_id', 'state']).execute();
      },
    },
    '0004_security': {
      async up(db: Kysely<unknown>) {
        // Anti-fraud settings per application (JSON), the blocks the conversion breaker trips, its
        // per-country counters, and the hash-chained audit log (one chain per account).
        await db.schema.createTable('security_settings')
          .addColumn('application_id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'text', (c) => c.notNull())
          .addColumn('settings', 'text', (c) => c.notNull())
          .addColumn('updated_at', bigint, (c) => c.notNull())
          .execute();
        await db.schema.createTable('security_blocks')
          .addColumn('application_id', 'text', (c) => c.notNull())
          .addColumn('scope', 'text', (c) => c.notNull())
          .addColumn('blocked_until', bigint, (c) => c.notNull())
          .addColumn('reason', 'text', (c) => c.notNull())
          .addColumn('created_at', bigint, (c) => c.notNull())
          .addPrimaryKeyConstraint('security_blocks_pk', ['application_id', 'scope'])
          .execute();
        await db.schema.createTable('conversion_counts')
          .addColumn('application_id', 'text', (c) => c.notNull())
          .addColumn('country', 'text', (c) => c.notNull())
          .addColumn('bucket_start', bigint, (c) => c.notNull())
          .addColumn('sends', 'integer', (c) => c.notNull())
          .addColumn('verifies', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint('conversion_counts_pk', ['application_id', 'country', 'bucket_start'])
          .execute();
        await db.schema.createTable('audit_log')
          .addColumn('account_id', 'text', (c) => c.notNull())
          .addColumn('seq', bigint, (c) => c.notNull())
          .addColumn('at', bigint, (c) => c.notNull())
          .addColumn('event', 'text', (c) => c.notNull())
          .addColumn('application_id', 'text')
          .addColumn('pin_id', 'text')
          .addColumn('destination', 'text')
          .addColumn('source_ip', 'text')
          .addColumn('actor', 'text')
          .addColumn('reason', 'text')
          .addColumn('prev_hash', 'text', (c) => c.notNull())
          .addColumn('hash', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('audit_log_pk', ['account_id', 'seq'])
          .execute();
        await db.schema.createIndex('audit_log_pin').on('audit_log').columns(['pin_id']).execute();
      },
    },
    '0005_console': {
      async up(db: Kysely<unknown>) {
        // The console: the country of a phone destination, told from its calling code at send time
        // (conversion per country is then a GROUP BY), and an index for the account's PINs newest first
        // (the paged search and the statistics).
        await db.schema.alterTable('pins').addColumn('country', 'text').execute();
        await db.schema.createIndex('pins_account_created').on('pins').columns(['account_id', 'created_at']).execute();
      },
    },
    '0006_purge_indexes': {
      async up(db: Kysely<unknown>) {
        // Every statement of the purge job seeks to what it removes instead of walking every stored
        // row (see KyselyStore.purge). The partial indexes hold only the rows the purge is after:
        // PINs whose ciphertext is not erased yet (live ones, and those that expired since the last
        // run), and messages and events no longer pending. The purge's WHERE clauses repeat these
        // predicates to the letter, so that SQLite's planner (which matches them term by term) and
        // PostgreSQL's use the indexes.
        await db.schema.createIndex('pins_unerased_expiry').on('pins').column('expires_at').where(sql.ref('pin_ciphertext'), 'is not', null).execute();
        await db.schema.createIndex('outbox_ended').on('outbox').column('updated_at').where(sql.ref('state'), '<>', 'pending').execute();
        await db.schema.createIndex('event_outbox_ended').on('event_outbox').column('updated_at').where(sql.ref('state'), '<>', 'pending').execute();
        await db.schema.createIndex('delivery_events_at').on('delivery_events').column('at').execute();
        await db.schema.createIndex('security_blocks_until').on('security_blocks').column('blocked_until').execute();
        await db.schema.createIndex('conversion_counts_bucket').on('conversion_counts').column('bucket_start').execute();
      },
    },
    '0007_audit_heads': {
      async up(db: Kysely<unknown>) {
        // Outside audit_log, so that deleting a chain's newest entries leaves a head that names them.
        await db.schema.createTable('audit_heads')
          .addColumn('account_id', 'text', (c) => c.primaryKey())
          .addColumn('seq', bigint, (c) => c.notNull())
          .addColumn('hash', 'text', (c) => c.notNull())
          .addColumn('signed_at', bigint, (c) => c.notNull())
          .addColumn('signature', 'text', (c) => c.notNull())
          .execute();
      },
    },
    '0008_short_key_prefixes': {
      async up(db: Kysely<unknown>) {
        // Stored prefixes were the first 12 characters of a key; now they are never more than a
        // quarter of it (service/api-keys.ts apiKeyPrefix). Only the hash is stored, so the length is
        // known only for generated keys (tfa_ + 43 characters: 11 shown). A key given in
        // TWOFA_BOOTSTRAP_API_KEY may have been as short as 16 characters: 4 shown.
        await sql`update api_keys set key_prefix = substr(key_prefix, 1, 4) where label = 'TWOFA_BOOTSTRAP_API_KEY' and length(key_prefix) > 4`.execute(db);
        await sql`update api_keys set key_prefix = substr(key_prefix, 1, 11) where length(key_prefix) > 11`.execute(db);
      },
    },
    '0009_idempotency_keys': {
      async up(db: Kysely<unknown>) {
        // Idempotency-Key requests (src/http/plugins/idempotency.ts): the primary key is the race gate
        // that lets one request per key and account run (INSERT ... ON CONFLICT DO NOTHING).
        await db.schema.createTable('idempotency_keys')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'text', (c) => c.notNull())
          .addColumn('fingerprint', 'text', (c) => c.notNull())
          .addColumn('lease_token', 'text', (c) => c.notNull())
          .addColumn('lease_until', bigint, (c) => c.notNull())
          .addColumn('status', 'integer')
          .addColumn('answer', 'text')
          .addColumn('created_at', bigint, (c) => c.notNull())
          .addColumn('expires_at', bigint, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').column('expires_at').execute();
      },
    },
    '0010_template_autofill': {
      async up(db: Kysely<unknown>) {
        await db.schema.alterTable('message_templates').addColumn('autofill', 'text').execute();
      },
    },
    '0011_twilio_dialect': {
      async up(db: Kysely<unknown>) {
        // The Twilio Verify v2 dialect's own state beside the engine's: a Service is an application
        // plus the Twilio-only settings (JSON) and the message templates it sends with; a
        // Verification is a PIN plus its Twilio status and the times and channels of its sends.
        await db.schema.createTable('twilio_services')
          .addColumn('application_id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'text', (c) => c.notNull())
          .addColumn('settings', 'text', (c) => c.notNull())
          .addColumn('sms_message_id', 'text')
          .addColumn('email_message_id', 'text')
          .addColumn('deleted_at', bigint)
          .addColumn('created_at', bigint, (c) => c.notNull())
          .addColumn('updated_at', bigint, (c) => c.notNull())
          .execute();
        await db.schema.createTable('twilio_verifications')
          .addColumn('pin_id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('channel', 'text', (c) => c.notNull())
          .addColumn('send_code_attempts', 'text', (c) => c.notNull())
          .addColumn('created_at', bigint, (c) => c.notNull())
          .addColumn('updated_at', bigint, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('twilio_verifications_created').on('twilio_verifications').column('created_at').execute();
      },
    },
    '0012_twilio_verification_expiry': {
      async up(db: Kysely<unknown>) {
        // The purge deletes a verification's row with its PIN, by the PIN's expiry as it deletes the
        // PIN: each row carries that expiry (0 for a row whose PIN is gone already: purged next run).
        await db.schema.alterTable('twilio_verifications').addColumn('expires_at', bigint, (c) => c.notNull().defaultTo(0)).execute();
        await sql`update twilio_verifications set expires_at = coalesce((select p.expires_at from pins p where p.id = twilio_verifications.pin_id), 0)`.execute(db);
        await db.schema.dropIndex('twilio_verifications_created').execute();
        await db.schema.createIndex('twilio_verifications_expires_at').on('twilio_verifications').column('expires_at').execute();
      },
    },
    '0013_twilio_rate_limits': {
      async up(db: Kysely<unknown>) {
        // A Service's Rate Limits (a name a start gives a value for) and their Buckets (at most `max`
        // starts per value in `interval` seconds); the counts themselves are rate_limit_buckets rows.
        await db.schema.createTable('twilio_rate_limits')
          .addColumn('sid', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'text', (c) => c.notNull())
          .addColumn('application_id', 'text', (c) => c.notNull())
          .addColumn('unique_name', 'text', (c) => c.notNull())
          .addColumn('description', 'text')
          .addColumn('created_at', bigint, (c) => c.notNull())
          .addColumn('updated_at', bigint, (c) => c.notNull())
          .addUniqueConstraint('twilio_rate_limits_name', ['application_id', 'unique_name'])
          .execute();
        await db.schema.createTable('twilio_rate_limit_buckets')
          .addColumn('sid', 'text', (c) => c.primaryKey())
          .addColumn('rate_limit_sid', 'text', (c) => c.notNull())
          .addColumn('account_id', 'text', (c) => c.notNull())
          .addColumn('application_id', 'text', (c) => c.notNull())
          .addColumn('max', 'integer', (c) => c.notNull())
          .addColumn('interval', 'integer', (c) => c.notNull())
          .addColumn('created_at', bigint, (c) => c.notNull())
          .addColumn('updated_at', bigint, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('twilio_rate_limit_buckets_limit').on('twilio_rate_limit_buckets').columns(['rate_limit_sid', 'created_at']).execute();
      },
    },
    '0014_twilio_attempts': {
      async up(db: Kysely<unknown>) {
        // Each send of a verification (Twilio's Verification Attempt, VL...): its send_code_attempts
        // entries, and the account's attempt list and conversion summary. Purged with its PIN.
        await db.schema.createTable('twilio_attempts')
          .addColumn('sid', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'text', (c) => c.notNull())
          .addColumn('pin_id', 'text', (c) => c.notNull())
          .addColumn('channel', 'text', (c) => c.notNull())
          .addColumn('seq', 'integer', (c) => c.notNull())
          .addColumn('created_at', bigint, (c) => c.notNull())
          .addColumn('expires_at', bigint, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('twilio_attempts_pin').on('twilio_attempts').columns(['pin_id', 'seq']).execute();
        await db.schema.createIndex('twilio_attempts_account').on('twilio_attempts').columns(['account_id', 'created_at']).execute();
        await db.schema.createIndex('twilio_attempts_expires_at').on('twilio_attempts').column('expires_at').execute();
        // The sends recorded so far as JSON beside each verification become rows, in their order.
        const rows = await sql<{ pin_id: string; account_id: string; send_code_attempts: string; expires_at: number | string }>`select pin_id, account_id, send_code_attempts, expires_at from twilio_verifications`.execute(db);
        for (const row of rows.rows) {
          const attempts = JSON.parse(row.send_code_attempts) as Array<{ time: number; channel: string; attemptSid: string }>;
          for (const [seq, a] of attempts.entries()) {
            await sql`insert into twilio_attempts (sid, account_id, pin_id, channel, seq, created_at, expires_at) values (${a.attemptSid}, ${row.account_id}, ${row.pin_id}, ${a.channel}, ${seq}, ${a.time}, ${Number(row.expires_at)})`.execute(db);
          }
        }
        await db.schema.alterTable('twilio_verifications').dropColumn('send_code_attempts').execute();
      },
    },
    '0015_twilio_service_locales': {
      async up(db: Kysely<unknown>) {
        // The message template a Service sends in each locale asked for (`Locale`), made at its first use.
        await db.schema.createTable('twilio_service_locales')
          .addColumn('application_id', 'text', (c) => c.notNull())
          .addColumn('locale', 'text', (c) => c.notNull())
          .addColumn('account_id', 'text', (c) => c.notNull())
          .addColumn('message_id', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('twilio_service_locales_pk', ['application_id', 'locale'])
          .execute();
      },
    },
    '0016_safe_list': {
      async up(db: Kysely<unknown>) {
        // An account's Safe List (Twilio's /v2/SafeList/Numbers): numbers the destination guards let through.
        await db.schema.createTable('safe_list_numbers')
          .addColumn('account_id', 'text', (c) => c.notNull())
          .addColumn('destination', 'text', (c) => c.notNull())
          .addColumn('sid', 'text', (c) => c.notNull())
          .addColumn('created_at', bigint, (c) => c.notNull())
          .addPrimaryKeyConstraint('safe_list_numbers_pk', ['account_id', 'destination'])
          .execute();
      },
    },
    '0017_twilio_messaging_configurations': {
      async up(db: Kysely<unknown>) {
        // A Twilio Service's Messaging Configurations: the messaging service named per country.
        await db.schema.createTable('twilio_messaging_configurations')
          .addColumn('application_id', 'text', (c) => c.notNull())
          .addColumn('country', 'text', (c) => c.notNull())
          .addColumn('account_id', 'text', (c) => c.notNull())
          .addColumn('messaging_service_sid', 'text', (c) => c.notNull())
          .addColumn('created_at', bigint, (c) => c.notNull())
          .addColumn('updated_at', bigint, (c) => c.notNull())
          .addPrimaryKeyConstraint('twilio_messaging_configurations_pk', ['application_id', 'country'])
          .execute();
      },
    },
    '0018_postgres_rate_limit_refusal': {
      async up(db: Kysely<unknown>) {
        // PostgreSQL counts a send's or a verify's rate limits in the same statement as its write
        // (postgres/hot-statements.ts); a refusal raises this function's error, which undoes the whole
        // statement. SQLite checks the limits in the transaction instead.
        if (dialect !== 'postgres') return;
        // The SQLSTATE is hot-statements.ts's RATE_LIMITED_SQLSTATE.
        await sql.raw(`create or replace function twofa_rate_limited() returns integer language plpgsql volatile as $$
begin
  raise exception 'rate limit reached' using errcode = 'TF429';
end
$$`).execute(db);
      },
    },
    '0019_message_on_pin': {
      async up(db: Kysely<unknown>) {
        // A PIN's first message lives on the PIN's row (one row written per send instead of three):
        // the columns of its delivery, the partial index of the messages due (the first messages'
        // outbox) and the one receipts look the provider's id up in. Later messages stay `outbox` rows.
        for (const [name, type] of [['delivery_id', 'text'], ['message_state', 'text'], ['message_request', 'text'], ['message_due_at', bigint],
          ['message_error', 'text'], ['message_queued_at', bigint], ['message_sent_at', bigint], ['message_transport', 'text'],
          ['message_provider_id', 'text'], ['message_sent_event', 'text']] as const) {
          await db.schema.alterTable('pins').addColumn(name, type).execute();
        }
        await db.schema.alterTable('pins').addColumn('message_attempts', 'integer', (c) => c.notNull().defaultTo(0)).execute();
        await db.schema.alterTable('pins').addColumn('message_lease_until', bigint, (c) => c.notNull().defaultTo(0)).execute();
        await db.schema.createIndex('pins_message_due').on('pins').column('message_due_at').where(sql.ref('message_state'), '=', sql.lit('pending')).execute();
        await db.schema.createIndex('pins_message_provider').on('pins').columns(['message_provider_id']).where(sql.ref('message_provider_id'), 'is not', null).execute();
        // A message still waiting that is its PIN's only one becomes the PIN's own: its row and its
        // `queued` row go (the PIN's columns say the same); everything else stays as it was.
        await sql`update pins set delivery_id = o.id, message_state = 'pending', message_request = o.request, message_attempts = o.attempts,
          message_due_at = o.next_attempt_at, message_lease_until = o.lease_until, message_error = o.last_error, message_queued_at = o.created_at
          from outbox o where o.pin_id = pins.id and o.state = 'pending' and o.channel = pins.channel
            and (select count(*) from outbox x where x.pin_id = pins.id) = 1`.execute(db);
        await sql`delete from delivery_events where event = 'queued' and pin_id in (select id from pins where delivery_id is not null)`.execute(db);
        await sql`delete from outbox where id in (select delivery_id from pins where delivery_id is not null)`.execute(db);
      },
    },
    '0020_test_numbers': {
      async up(db: Kysely<unknown>) {
        // An account's test numbers: destinations whose sends deliver nothing and whose fixed code
        // verifies (app-store review, end-to-end tests). The code is kept encrypted, never in clear.
        await db.schema.createTable('test_numbers')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'text', (c) => c.notNull())
          .addColumn('destination', 'text', (c) => c.notNull())
          .addColumn('code_ciphertext', 'text', (c) => c.notNull())
          .addColumn('created_at', bigint, (c) => c.notNull())
          .addUniqueConstraint('test_numbers_account_destination', ['account_id', 'destination'])
          .execute();
        // A PIN sent to a test number is marked, so statistics and events can keep it apart.
        await db.schema.alterTable('pins').addColumn('test_number', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      },
    },
    '0021_workflows': {
      async up(db: Kysely<unknown>) {
        // An application's workflow (JSON steps, null: none), read with the application it belongs to.
        await db.schema.alterTable('applications').addColumn('workflow', 'text').execute();
        // The steps of each PIN sent under a workflow, one row each: a step is due at `due_at`, run by
        // the node that claims it (`claim`, until `lease_until`), and marked sent in the transaction
        // that queues its message, so no step is lost or repeated across a crash.
        await db.schema.createTable('pin_workflow_steps')
          .addColumn('pin_id', 'text', (c) => c.notNull())
          .addColumn('step', 'integer', (c) => c.notNull())
          .addColumn('account_id', 'text', (c) => c.notNull())
          .addColumn('channel', 'text', (c) => c.notNull())
          .addColumn('state', 'text', (c) => c.notNull())
          .addColumn('due_at', bigint)
          .addColumn('claim', 'text')
          .addColumn('lease_until', bigint)
          .addColumn('reason', 'text')
          .addColumn('updated_at', bigint, (c) => c.notNull())
          .addPrimaryKeyConstraint('pin_workflow_steps_pk', ['pin_id', 'step'])
          .execute();
        await db.schema.createIndex('pin_workflow_steps_due').on('pin_workflow_steps').columns(['state', 'due_at']).execute();
      },
    },
    '0022_twilio_webhooks': {
      async up(db: Kysely<unknown>) {
        // Twilio Verify Webhooks of a Service (their events go through event_outbox like the
        // subscriptions' of /api/v1/webhooks), and each account's Twilio Auth Token, which signs
        // them; encrypted with the PIN keyring, as subscription secrets are.
        await db.schema.createTable('twilio_webhooks')
          .addColumn('sid', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'text', (c) => c.notNull())
          .addColumn('application_id', 'text', (c) => c.notNull())
          .addColumn('friendly_name', 'text', (c) => c.notNull())
          .addColumn('event_types', 'text', (c) => c.notNull())
          .addColumn('webhook_url', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('version', 'text', (c) => c.notNull())
          .addColumn('created_at', bigint, (c) => c.notNull())
          .addColumn('updated_at', bigint, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('twilio_webhooks_application').on('twilio_webhooks').columns(['application_id', 'created_at']).execute();
        await db.schema.createTable('twilio_auth_tokens')
          .addColumn('account_id', 'text', (c) => c.primaryKey())
          .addColumn('token_ciphertext', 'text', (c) => c.notNull())
          .addColumn('created_at', bigint, (c) => c.notNull())
          .addColumn('updated_at', bigint, (c) => c.notNull())
          .execute();
        // The expiry sweep (verification.expired) walks the pending verifications only.
        // PSD2: the amount and payee a verification was started with (the check must repeat them).
        await db.schema.alterTable('twilio_verifications').addColumn('amount', 'text').execute();
        await db.schema.alterTable('twilio_verifications').addColumn('payee', 'text').execute();
        // One start at a time per Service and destination (Twilio's 60212); a row outlives a crashed start by its expiry only.
        await db.schema.createTable('twilio_start_locks')
          .addColumn('key', 'text', (c) => c.primaryKey())
          .addColumn('expires_at', bigint, (c) => c.notNull())
          .execute();
        await db.schema.createIndex('twilio_verifications_pending_expiry').on('twilio_verifications').column('expires_at')
          .where(sql.ref('status'), '=', 'pending').execute();
      },
    },
    '0023_lease_holders': {
      async up(db: Kysely<unknown>) {
        // Which node holds a leased message or event (TWOFA_NODE_ID): a node that restarts takes
        // back at once what it held when it died, and only the holder may renew a lease.
        await db.schema.alterTable('pins').addColumn('message_lease_holder', 'text').execute();
        await db.schema.alterTable('outbox').addColumn('lease_holder', 'text').execute();
        await db.schema.alterTable('event_outbox').addColumn('lease_holder', 'text').execute();
      },
    },
    '0024_config_version': {
      async up(db: Kysely<unknown>) {
        // PostgreSQL: a counter of configuration changes, bumped in the transaction of every change
        // to a table the configuration cache holds, and announced to every node (store/config-cache.ts).
        // SQLite has PRAGMA data_version for this.
        // The channel is config-version.ts's CONFIG_CHANNEL; the tables were its CONFIG_TABLES then (a
        // table added there needs its trigger from a new migration).
        if (dialect !== 'postgres') return;
        await sql.raw('create table config_version (id integer primary key check (id = 1), version bigint not null)').execute(db);
        await sql.raw('insert into config_version (id, version) values (1, 0)').execute(db);
        await sql.raw(`create or replace function twofa_config_changed() returns trigger language plpgsql as $$
begin
  update config_version set version = version + 1 where id = 1;
  perform pg_notify('twofa_config', '');
  return null;
end
$$`).execute(db);
        for (const table of ['api_keys', 'accounts', 'applications', 'message_templates', 'email_templates', 'security_settings', 'webhook_subscriptions', 'test_numbers']) {
          await sql.raw(`create trigger ${table}_config_version after insert or update or delete or truncate on ${table}
  for each statement execute function twofa_config_changed()`).execute(db);
        }
      },
    },
    '0025_commit_barrier': {
      async up(db: Kysely<unknown>) {
        // PostgreSQL: the row a durability barrier writes (postgres/deferred-flushes.ts). SQLite
        // makes its commits durable by its own group commit.
        if (dialect !== 'postgres') return;
        await sql.raw('create table commit_barrier (id integer primary key check (id = 1), at bigint not null)').execute(db);
        await sql.raw('insert into commit_barrier (id, at) values (1, 0)').execute(db);
      },
    },
    '0026_idempotency_keys_by_account': {
      async up(db: Kysely<unknown>) {
        // An account's keys within their window are counted on each claim of a new key, up to the
        // cap (store/idempotency-store.ts): through this index, never through the whole table.
        await db.schema.createIndex('idempotency_keys_account').on('idempotency_keys').columns(['account_id', 'expires_at']).execute();
      },
    },
    '0027_twilio_auth_token_login': {
      async up(db: Kysely<unknown>) {
        // The Auth Token is also a password (HTTP Basic with the account SID): a login finds its account
        // by the token's SHA-256, and the token replaced by a rotation keeps only its digest, until
        // `previous_valid_until` (TWOFA_TWILIO_AUTH_TOKEN_GRACE). Rows made before carry no digest
        // until the server's start fills it in (it needs TWOFA_SECRET to read the token).
        await db.schema.alterTable('twilio_auth_tokens').addColumn('token_digest', 'text').execute();
        await db.schema.alterTable('twilio_auth_tokens').addColumn('previous_token_digest', 'text').execute();
        await db.schema.alterTable('twilio_auth_tokens').addColumn('previous_valid_until', bigint).execute();
        await db.schema.createIndex('twilio_auth_tokens_digest').on('twilio_auth_tokens').column('token_digest').execute();
        await db.schema.createIndex('twilio_auth_tokens_previous_digest').on('twilio_auth_tokens').column('previous_token_digest').execute();
      },
    },
    '0028_prelude_settings': {
      async up(db: Kysely<unknown>) {
        // Prelude Verify has no Service in its calls: each account names the application its calls use.
        await db.schema.createTable('prelude_settings')
          .addColumn('account_id', 'text', (c) => c.primaryKey())
          .addColumn('application_id', 'text', (c) => c.notNull())
          .addColumn('custom_code_allowed', 'integer', (c) => c.notNull())
          .addColumn('updated_at', bigint, (c) => c.notNull())
          .execute();
      },
    },
    '0029_vonage_applications': {
      async up(db: Kysely<unknown>) {
        // A Vonage application is a twofa application with the public key its JWTs are checked with;
        // a JWT names the application only, so the row is found by the application's id.
        await db.schema.createTable('vonage_applications')
          .addColumn('application_id', 'text', (c) => c.primaryKey())
          .addColumn('account_id', 'text', (c) => c.notNull())
          .addColumn('public_key', 'text', (c) => c.notNull())
          .addColumn('updated_at', bigint, (c) => c.notNull())
          .execute();
      },
    },
    '0030_risk': {
      async up(db: Kysely<unknown>) {
        // The risk score (docs/security.md): each application's mode and thresholds, the counters the
        // score is computed from, and the decisions recorded with their signals.
        await sql.raw(`create table risk_settings (
  application_id text primary key,
  account_id text not null,
  mode text not null,
  block_score integer not null,
  country_block_scores text not null,
  updated_at bigint not null
)`).execute(db);
        // Applications that existed before the score decide in shadow mode: their traffic is scored
        // and recorded, never refused, until the operator has seen the decisions and chooses enforce.
        // Those created afterwards have no row: the defaults, enforce.
        await sql.raw(`insert into risk_settings (application_id, account_id, mode, block_score, country_block_scores, updated_at)
  select id, account_id, 'shadow', 70, '{}', 0 from applications`).execute(db);
        await sql.raw(`create table risk_counters (
  application_id text not null,
  counter text not null,
  bucket_start bigint not null,
  hits integer not null,
  primary key (application_id, counter, bucket_start)
)`).execute(db);
        await sql.raw('create index risk_counters_bucket on risk_counters (bucket_start)').execute(db);
        await sql.raw(`create table risk_decisions (
  id text primary key,
  account_id text not null,
  application_id text not null,
  pin_id text,
  kind text not null,
  created_at bigint not null,
  destination text not null,
  country text,
  score integer not null,
  threshold integer not null,
  decision text not null,
  mode text not null,
  safe_listed integer not null,
  signals text not null
)`).execute(db);
        await sql.raw('create index risk_decisions_account_time on risk_decisions (account_id, created_at)').execute(db);
        await sql.raw('create index risk_decisions_pin on risk_decisions (pin_id)').execute(db);
        if (dialect !== 'postgres') return;
        // risk_settings is configuration the cache holds (postgres/config-version.ts): its changes bump the version.
        await sql.raw(`create trigger risk_settings_config_version after insert or update or delete or truncate on risk_settings
  for each statement execute function twofa_config_changed()`).execute(db);
      },
    },
    '0031_routes': {
      async up(db: Kysely<unknown>) {
        // Routes (docs/routing.md): which named transport first delivered each PIN sent through a
        // routes table (its verification is credited to that transport, then the row goes), the
        // conversion counters per transport, country and hour that the cheapest strategy reads, and
        // the applications' own senders per country.
        await sql.raw(`create table route_deliveries (
  pin_id text primary key,
  transport text not null,
  country text not null,
  bucket_start bigint not null
)`).execute(db);
        await sql.raw('create index route_deliveries_bucket on route_deliveries (bucket_start)').execute(db);
        await sql.raw(`create table route_conversions (
  transport text not null,
  country text not null,
  bucket_start bigint not null,
  sent integer not null,
  verified integer not null,
  primary key (country, transport, bucket_start)
)`).execute(db);
        await sql.raw('create index route_conversions_bucket on route_conversions (bucket_start)').execute(db);
        await sql.raw(`create table application_senders (
  application_id text not null,
  country text not null,
  account_id text not null,
  sender_id text not null,
  kind text not null,
  updated_at bigint not null,
  primary key (application_id, country)
)`).execute(db);
        if (dialect !== 'postgres') return;
        await sql.raw(`create trigger application_senders_config_version after insert or update or delete or truncate on application_senders
  for each statement execute function twofa_config_changed()`).execute(db);
      },
    },
    '0032_prices_budgets': {
      async up(db: Kysely<unknown>) {
        // Prices and budgets (docs/routing.md): the price of every message a transport took, one row
        // per message (its delivery id), written in the transaction that records it sent; the
        // budgets of accounts and applications; and what each budget period has spent, counted in
        // the PIN's own write like the rate limits' buckets.
        await sql.raw(`create table message_prices (
  delivery_id text primary key,
  pin_id text not null,
  account_id text not null,
  application_id text not null,
  channel text not null,
  transport text not null,
  country text,
  prefix text,
  at ${bigint} not null,
  segments integer not null,
  amount ${bigint},
  currency text,
  source text not null,
  provider_message_id text
)`).execute(db);
        await sql.raw('create index message_prices_account_at on message_prices (account_id, at)').execute(db);
        await sql.raw('create index message_prices_pin on message_prices (pin_id)').execute(db);
        await sql.raw(`create table budgets (
  account_id text not null,
  application_id text not null,
  currency text not null,
  caps text not null,
  updated_at ${bigint} not null,
  primary key (account_id, application_id)
)`).execute(db);
        await sql.raw(`create table budget_spend (
  key text not null,
  period_start ${bigint} not null,
  spent ${bigint} not null,
  expires_at ${bigint} not null,
  full_notified integer not null default 0,
  primary key (key, period_start)
)`).execute(db);
        await sql.raw('create index budget_spend_expiry on budget_spend (expires_at)').execute(db);
        if (dialect !== 'postgres') return;
        // Raised by the send statement when a budget would be crossed: the statement, and with it the PIN, is undone.
        await sql.raw(`create or replace function twofa_budget_exceeded() returns integer language plpgsql volatile as $$
begin
  raise exception 'budget exceeded' using errcode = 'TF402';
end
$$`).execute(db);
      },
    },
    '0033_risk_cost': {
      async up(db: Kysely<unknown>) {
        // The risk score's cost on every send (BENCHMARKS.md). The Safe List (numbers and prefixes) is
        // consulted by every scored send, from the configuration cache: its changes bump the version.
        // On SQLite, the counters a send reads and upserts by the dozen are kept in a table keyed by its
        // primary key alone (WITHOUT ROWID): a counter's row is found in one B-tree instead of its index
        // and then its row, and a new row adds one entry instead of two. (PostgreSQL has no rowid.)
        // A PIN keeps the summary of the assessment it was sent under, which its webhook events carry.
        await sql.raw('alter table pins add column risk text').execute(db);
        if (dialect === 'postgres') {
          await sql.raw(`create trigger safe_list_numbers_config_version after insert or update or delete or truncate on safe_list_numbers
  for each statement execute function twofa_config_changed()`).execute(db);
          return;
        }
        await sql.raw(`create table risk_counters_keyed (
  application_id text not null,
  counter text not null,
  bucket_start bigint not null,
  hits integer not null,
  primary key (application_id, counter, bucket_start)
) without rowid`).execute(db);
        await sql.raw('insert into risk_counters_keyed (application_id, counter, bucket_start, hits) select application_id, counter, bucket_start, hits from risk_counters').execute(db);
        await sql.raw('drop table risk_counters').execute(db);
        await sql.raw('alter table risk_counters_keyed rename to risk_counters').execute(db);
        await sql.raw('create index risk_counters_bucket on risk_counters (bucket_start)').execute(db);
      },
    },
    '0034_template_locale_texts': {
      async up(db: Kysely<unknown>) {
        // A message template holds its texts per locale (and per channel) itself, as JSON read with
        // the template (one row, one cache entry, no second read per delivery); a name and a default
        // flag make it one of Vonage's templates. Written by compare-and-set on the JSON (kysely-store.ts).
        await sql.raw('alter table message_templates add column locale_texts text').execute(db);
        await sql.raw('alter table message_templates add column name text').execute(db);
        await sql.raw('alter table message_templates add column is_default integer not null default 0').execute(db);
      },
    },
    '0035_dialect_callbacks': {
      async up(db: Kysely<unknown>) {
        // Vonage Verify's callbacks go to the Vonage application's callback URL, signed with its
        // signature secret (encrypted under TWOFA_SECRET, as webhook secrets are).
        await sql.raw('alter table vonage_applications add column callback_url text').execute(db);
        await sql.raw('alter table vonage_applications add column signature_secret_ciphertext text').execute(db);
        // What a Vonage request adds to its PIN (client_ref, channel_timeout, its channels), and
        // whether its end was reported: the callback sweep (store/dialect-callbacks.ts) walks the
        // unreported ones only, through the partial index.
        await sql.raw(`create table vonage_requests (
  pin_id text primary key,
  account_id text not null,
  application_id text not null,
  client_ref text,
  channel_timeout integer not null,
  channels text not null,
  created_at ${bigint} not null,
  expires_at ${bigint} not null,
  reported text
)`).execute(db);
        await sql.raw('create index vonage_requests_open on vonage_requests (expires_at) where reported is null').execute(db);
        await sql.raw('create index vonage_requests_expiry on vonage_requests (expires_at)').execute(db);
        // What a Prelude verification adds to its PIN (metadata.correlation_id, options.callback_url),
        // and what of it the webhooks reported already; `open` while some may still be due.
        await sql.raw(`create table prelude_verifications (
  pin_id text primary key,
  account_id text not null,
  correlation_id text,
  callback_url text,
  created_at ${bigint} not null,
  expires_at ${bigint} not null,
  authentication_reported integer not null,
  reported_sends integer not null,
  reported_delivery text,
  open integer not null
)`).execute(db);
        await sql.raw('create index prelude_verifications_open on prelude_verifications (expires_at) where open = 1').execute(db);
        await sql.raw('create index prelude_verifications_expiry on prelude_verifications (expires_at)').execute(db);
      },
    },
    '0036_factors': {
      async up(db: Kysely<unknown>) {
        // Twilio Verify's Entities, Factors (TOTP, passkeys) and Challenges (docs/factors.md). A TOTP
        // seed is kept as PIN ciphertexts are (AES-GCM under the keyring, bound to its factor); a
        // passkey's public half in clear. `last_used_step` and `sign_count` only ever grow, by
        // conditional UPDATEs: a code or an assertion is accepted once.
        await sql.raw(`create table factor_entities (
  sid text primary key,
  account_id text not null,
  application_id text not null,
  identity text not null,
  created_at ${bigint} not null,
  updated_at ${bigint} not null,
  unique (application_id, identity)
)`).execute(db);
        await sql.raw('create index factor_entities_account on factor_entities (account_id, application_id, created_at)').execute(db);
        await sql.raw(`create table factors (
  sid text primary key,
  account_id text not null,
  application_id text not null,
  entity_sid text not null,
  factor_type text not null,
  status text not null,
  friendly_name text not null,
  config text not null,
  metadata text,
  secret_ciphertext text,
  registration_challenge text,
  credential_id text,
  public_key text,
  sign_count ${bigint},
  transports text,
  last_used_step ${bigint},
  verification_attempts integer not null default 0,
  created_at ${bigint} not null,
  updated_at ${bigint} not null
)`).execute(db);
        await sql.raw('create index factors_entity on factors (entity_sid, created_at)').execute(db);
        await sql.raw('create unique index factors_credential on factors (application_id, credential_id)').execute(db);
        await sql.raw('create index factors_registration_challenge on factors (registration_challenge)').execute(db);
        // The purge seeks unverified factors by age (Twilio drops them within a day) and challenges by expiry.
        await sql.raw('create index factors_unverified on factors (status, created_at)').execute(db);
        await sql.raw(`create table factor_challenges (
  sid text primary key,
  account_id text not null,
  application_id text not null,
  entity_sid text,
  factor_sid text,
  factor_type text not null,
  status text not null,
  responded_reason text not null,
  details text,
  hidden_details text,
  metadata text,
  nonce text,
  attempts integer not null default 0,
  expires_at ${bigint} not null,
  responded_at ${bigint},
  created_at ${bigint} not null,
  updated_at ${bigint} not null
)`).execute(db);
        await sql.raw('create index factor_challenges_entity on factor_challenges (entity_sid, created_at)').execute(db);
        await sql.raw('create index factor_challenges_factor on factor_challenges (factor_sid)').execute(db);
        await sql.raw('create index factor_challenges_nonce on factor_challenges (nonce)').execute(db);
        await sql.raw('create index factor_challenges_application on factor_challenges (application_id, created_at)').execute(db);
        await sql.raw('create index factor_challenges_expiry on factor_challenges (expires_at)').execute(db);
      },
    },
    '0037_risk_recent_hits': {
      async up(db: Kysely<unknown>) {
        // SQLite keeps the risk score's counters of the recent window (a number and its blocks, a
        // client's address and device, a prefix's verifications) in memory (sqlite/risk-statements.ts):
        // a send to a new number hit five rows at random places of risk_counters, a page each that its
        // commit rewrote, most of what scoring it cost. What a restart rebuilds them from is this log,
        // appended once per commit (a row per application and bucket: a JSON object of the counters hit
        // and their hits) and purged past the hour; the last hour's rows move here from risk_counters.
        // PostgreSQL's nodes share those counters, so they stay rows of risk_counters there (the table is
        // made on both, so that one schema describes both, and stays empty on PostgreSQL).
        await sql.raw(`create table risk_recent_hits (
  bucket_start bigint not null,
  application_id text not null,
  counters text not null
)`).execute(db);
        if (dialect === 'postgres') return;
        const recent = "(counter like 'd:%' or counter like 'addr:%' or counter like 'dev:%' or counter like 'pv:%')";
        await sql.raw(`insert into risk_recent_hits (bucket_start, application_id, counters)
  select bucket_start, application_id, json_group_object(counter, hits) from risk_counters
  where ${recent} and bucket_start >= (select max(bucket_start) from risk_counters) - 3600000
  group by bucket_start, application_id`).execute(db);
        await sql.raw(`delete from risk_counters where ${recent}`).execute(db);
      },
    },
    '0038_risk_decision_price': {
      async up(db: Kysely<unknown>) {
        // What a block saved (a shadow block: would have saved): the estimated price of the message
        // refused or sent anyway, in micro-units of its currency; null when it has none (no price list,
        // an email, an allowed send). The Fraud page's savings sum them per currency.
        await sql.raw(`alter table risk_decisions add column price_micros ${bigint}`).execute(db);
        await sql.raw('alter table risk_decisions add column price_currency text').execute(db);
      },
    },
  };
}

class InCodeMigrations implements MigrationProvider {
  constructor(private readonly dialect: SqlDialect) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations(this.dialect);
  }
}

/**
 * Name of the session advisory lock under which PostgreSQL nodes migrate (any constant of our own;
 * Kysely's Migrator takes another one inside its transaction).
 */
const MIGRATION_LOCK_NAME = 'twofa:migrations';

/**
 * Brings the schema up to date; returns the names of the migrations it applied. On PostgreSQL several
 * nodes may start at once: each takes a session advisory lock on one connection first, so one of
 * them migrates while the others wait, then find nothing left to do. (Kysely's Migrator also locks,
 * but only around running migrations, not around creating its own tables.) A node that dies while
 * migrating loses its session, which releases the lock, and its transaction rolls back.
 */
export async function migrateToLatest(db: Kysely<unknown>, dialect: SqlDialect): Promise<string[]> {
  if (dialect !== 'postgres') return runMigrator(db, dialect);
  return db.connection().execute(async (connection) => {
    await sql`select pg_advisory_lock(${advisoryLockKey(MIGRATION_LOCK_NAME)}::bigint)`.execute(connection);
    try {
      return await runMigrator(connection, dialect);
    } finally {
      await sql`select pg_advisory_unlock(${advisoryLockKey(MIGRATION_LOCK_NAME)}::bigint)`.execute(connection).catch(() => undefined);
    }
  });
}

/**
 * Brings an empty or older schema up to the named migration and no further: what a database written
 * by an older release looks like, for the tests of the migrations that follow it.
 */
export async function migrateUpTo(db: Kysely<unknown>, dialect: SqlDialect, lastMigration: string): Promise<string[]> {
  return runMigrator(db, dialect, lastMigration);
}

async function runMigrator(db: Kysely<unknown>, dialect: SqlDialect, lastMigration?: string): Promise<string[]> {
  const migrator = new Migrator({ db, provider: new InCodeMigrations(dialect), migrationTableName: 'twofa_migrations', migrationLockTableName: 'twofa_migrations_lock' });
  const { error, results } = lastMigration === undefined ? await migrator.migrateToLatest() : await migrator.migrateTo(lastMigration);
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
