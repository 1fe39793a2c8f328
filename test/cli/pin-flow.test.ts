// The server-talking commands (apps, templates, email-templates, send, inbox, verify, resend) run as
// real `twofa` processes against one real server: human output, --json output and exit codes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { freePort, runCli, startServerProcess, type CliResult, type ServerProcess } from '../support/server-process.js';

const HEX32 = /^[0-9A-F]{32}$/;

let server: ServerProcess;
let env: Record<string, string>;

/** `twofa <args>` against the test server, with its key in TWOFA_API_KEY. */
function twofa(...args: string[]): Promise<CliResult> {
  return runCli([...args, '--url', server.url], env, 60_000);
}

function json(result: CliResult): any {
  assert.equal(result.stderr.includes('twofa:'), false, `no error expected: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

before(async () => {
  server = await startServerProcess({ TWOFA_LOG_LEVEL: 'warn' });
  env = { TWOFA_API_KEY: server.key };
});

after(async () => {
  if (server) {
    assert.equal(await server.stop(), 0);
    fs.rmSync(server.dataDir, { recursive: true, force: true });
  }
});

// The suites are independent (each makes its own applications): they run side by side.
describe('the twofa command line against one server', { concurrency: true }, () => {
  describe('twofa apps', { concurrency: true }, () => {
    it('create prints "created application <id>" and a summary, --json the full answer, -q only the id', async () => {
      const human = await twofa('apps', 'create', '--name', 'Acme login', '--pin-ttl', '5m', '--pin-attempts', '3', '--single-use');
      assert.equal(human.code, 0, human.stderr);
      const id = /^created application ([0-9A-F]{32})$/m.exec(human.stdout)?.[1];
      assert.ok(id, human.stdout);
      assert.match(human.stdout, /name\s+Acme login/);
      assert.match(human.stdout, /pin time to live\s+5m/);
      assert.match(human.stdout, /pin attempts\s+3/);
      assert.match(human.stdout, /multiple verifications\s+no/);

      const created = json(await twofa('apps', 'create', '--name', 'Disabled', '--verify-limit', '2/1s', '--send-app-limit', '500/1h', '--send-number-limit', '5/1d', '--disabled', '--json'));
      assert.match(created.applicationId, HEX32);
      assert.deepEqual(created, {
        applicationId: created.applicationId, name: 'Disabled', enabled: false,
        configuration: { pinAttempts: 10, allowMultiplePinVerifications: true, pinTimeToLive: '15m', verifyPinLimit: '2/1s', sendPinPerApplicationLimit: '500/1h', sendPinPerPhoneNumberLimit: '5/1d' },
      });

      const quiet = await twofa('apps', 'create', '--name', 'Quiet', '-q');
      assert.equal(quiet.code, 0, quiet.stderr);
      assert.match(quiet.stdout, /^[0-9A-F]{32}\n$/);

      const [list, listJson, show, showJson] = await Promise.all([
        twofa('apps', 'list'), twofa('apps', 'list', '--json'), twofa('apps', 'show', id), twofa('apps', 'show', id, '--json'),
      ]);
      assert.equal(list.code, 0, list.stderr);
      assert.match(list.stdout.split('\n')[0] ?? '', /^APPLICATION ID\s+NAME\s+ENABLED/);
      assert.match(list.stdout, new RegExp(`${id}\\s+Acme login\\s+yes\\s+5m\\s+3\\s+no`));
      assert.match(list.stdout, new RegExp(`${created.applicationId}\\s+Disabled\\s+no`));
      const listed = json(listJson) as { applicationId: string }[];
      assert.ok(Array.isArray(listed));
      assert.deepEqual(listed.map((a) => a.applicationId).filter((a) => a === id || a === created.applicationId).sort(), [id, created.applicationId].sort());
      assert.equal(show.code, 0, show.stderr);
      assert.match(show.stdout, new RegExp(`application\\s+${id}`));
      assert.equal(json(showJson).configuration.allowMultiplePinVerifications, false);
    });

    it('update changes only what it is given and keeps the name', async () => {
      const id = (await twofa('apps', 'create', '--name', 'To update', '-q')).stdout.trim();
      const updated = json(await twofa('apps', 'update', id, '--pin-ttl', '2m', '--disable', '--json'));
      assert.equal(updated.name, 'To update');
      assert.equal(updated.enabled, false);
      assert.equal(updated.configuration.pinTimeToLive, '2m');
      assert.equal(updated.configuration.pinAttempts, 10);
    });

    it('workflow set, get and delete an application\'s workflow; a bad one is the server\'s 400', async () => {
      const id = (await twofa('apps', 'create', '--name', 'With a workflow', '-q')).stdout.trim();
      const set = await twofa('apps', 'workflow', 'set', id, 'whatsapp', 'sms:30s', 'voice:60s');
      assert.equal(set.code, 0, set.stderr);
      assert.match(set.stdout, /2\s+sms\s+30s/);
      assert.deepEqual(json(await twofa('apps', 'workflow', 'get', id, '--json')), {
        steps: [{ channel: 'whatsapp' }, { channel: 'sms', after: '30s' }, { channel: 'voice', after: '60s' }],
      });
      const bad = await twofa('apps', 'workflow', 'set', id, 'sms', 'pigeon:10s');
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /400/);
      assert.equal((await twofa('apps', 'workflow', 'delete', id)).code, 0);
      assert.match((await twofa('apps', 'workflow', 'get', id)).stderr, /no workflow/);
    });

    it('show of an unknown application exits 1 with the server\'s 404, nothing on stdout', async () => {
      const result = await twofa('apps', 'show', '0123456789ABCDEF0123456789ABCDEF', '--json');
      assert.equal(result.code, 1);
      assert.equal(result.stdout, '');
      assert.match(result.stderr, /^twofa: the server answered 404 NOT_FOUND/);
    });

    it('a bad option value is bad usage (exit 2) and nothing is sent (the parsers have unit tests)', async () => {
      const result = await twofa('apps', 'create', '--name', 'Bad', '--pin-ttl', '2y');
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /^twofa: option '--pin-ttl <duration>' argument '2y' is invalid/);
      const names = (json(await twofa('apps', 'list', '--json')) as { name: string }[]).map((a) => a.name);
      assert.ok(!names.includes('Bad'));
    });
  });

  describe('twofa templates and email-templates', { concurrency: true }, () => {
    let appId: string;
    before(async () => {
      appId = (await twofa('apps', 'create', '--name', 'Templates', '-q')).stdout.trim();
    });

    it('templates create, list and show: human and JSON', async () => {
      const human = await twofa('templates', 'create', appId, '--text', 'Your Acme code is {{pin}}', '--pin-type', 'alphanumeric', '--pin-length', '6', '--sender', 'Acme', '--language', 'de');
      assert.equal(human.code, 0, human.stderr);
      const msgId = /^created message template ([0-9A-F]{32})$/m.exec(human.stdout)?.[1];
      assert.ok(msgId, human.stdout);
      assert.match(human.stdout, /pin\s+6 × ALPHANUMERIC/);
      assert.match(human.stdout, /sender\s+Acme/);

      const created = json(await twofa('templates', 'create', appId, '--text', 'Code {{pin}}', '--json'));
      assert.deepEqual(created, { messageId: created.messageId, applicationId: appId, pinPlaceholder: '{{pin}}', messageText: 'Code {{pin}}', pinLength: 4, pinType: 'NUMERIC', language: 'en' });

      const [list, listJson, show, showJson] = await Promise.all([
        twofa('templates', 'list', appId), twofa('templates', 'list', appId, '--json'),
        twofa('templates', 'show', appId, msgId), twofa('templates', 'show', appId, msgId, '--json'),
      ]);
      assert.equal(list.code, 0, list.stderr);
      assert.match(list.stdout, new RegExp(`${msgId}\\s+sms/voice\\s+6 × ALPHANUMERIC\\s+de\\s+Acme\\s+Your Acme code is \\{\\{pin\\}\\}`));
      assert.deepEqual((json(listJson) as { messageId: string }[]).map((m) => m.messageId).sort(), [msgId, created.messageId].sort());
      assert.match(show.stdout, /text\s+Your Acme code is \{\{pin\}\}/);
      assert.equal(json(showJson).senderId, 'Acme');

      const updated = json(await twofa('templates', 'update', appId, msgId, '--pin-length', '8', '--json'));
      assert.equal(updated.pinLength, 8);
      assert.equal(updated.messageText, 'Your Acme code is {{pin}}');
    });

    it('templates create without {{pin}} exits 1 with the field the server named', async () => {
      const result = await twofa('templates', 'create', appId, '--text', 'no placeholder');
      assert.equal(result.code, 1);
      assert.match(result.stderr, /^twofa: the server answered 400 BAD_REQUEST:\n {2}messageText: /);
    });

    it('email-templates create, list, show; templates create-email; delete refused while used, then allowed', async () => {
      const htmlFile = `${server.dataDir}/login.html`;
      fs.writeFileSync(htmlFile, '<p>Your code is <b>{{pin}}</b></p>');
      const human = await twofa('email-templates', 'create', '--name', 'login', '--subject', 'Your Acme code', '--text', 'Code: {{pin}}', '--html-file', htmlFile, '--from', 'Acme <no-reply@acme.example>');
      assert.equal(human.code, 0, human.stderr);
      const id = /^created email template (\d+)$/m.exec(human.stdout)?.[1];
      assert.ok(id, human.stdout);
      assert.match(human.stdout, /subject\s+Your Acme code/);

      const other = json(await twofa('email-templates', 'create', '--name', 'spare', '--subject', '{{pin}} is your code', '--text', 'x', '--json'));
      assert.equal(typeof other.id, 'number');
      assert.equal(other.html, null);

      const [list, listJson, showJson] = await Promise.all([
        twofa('email-templates', 'list'), twofa('email-templates', 'list', '--json'), twofa('email-templates', 'show', id, '--json'),
      ]);
      assert.match(list.stdout, new RegExp(`^${id}\\s+login\\s+Acme <no-reply@acme.example>\\s+Your Acme code\\s+text\\+html$`, 'm'));
      assert.deepEqual((json(listJson) as { id: number }[]).map((t) => t.id), [Number(id), other.id]);
      assert.equal(json(showJson).html, '<p>Your code is <b>{{pin}}</b></p>');

      const emailMessage = json(await twofa('templates', 'create-email', appId, '--email-template', id, '--pin-length', '6', '--json'));
      assert.equal(emailMessage.emailTemplateId, Number(id));
      assert.equal(emailMessage.pinLength, 6);

      const refused = await twofa('email-templates', 'delete', id);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /409 CONFLICT/);

      const deleted = await twofa('email-templates', 'delete', String(other.id));
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.equal(deleted.stdout, `deleted email template ${other.id}\n`);
      const deletedJson = await twofa('email-templates', 'delete', String(other.id), '--json');
      assert.equal(deletedJson.code, 1, 'a second delete is a 404');
      assert.match(deletedJson.stderr, /404 NOT_FOUND/);
      assert.deepEqual((json(await twofa('email-templates', 'list', '--json')) as { id: number }[]).map((t) => t.id), [Number(id)]);
    });

    it('email-templates create without a body, or with an unreadable --html-file, is bad usage (exit 2)', async () => {
      const [noBody, missingFile] = await Promise.all([
        twofa('email-templates', 'create', '--name', 'x', '--subject', 'y'),
        twofa('email-templates', 'create', '--name', 'x', '--subject', 'y', '--html-file', '/nonexistent/file.html'),
      ]);
      assert.equal(noBody.code, 2);
      assert.match(noBody.stderr, /--text, --html-file/);
      assert.equal(missingFile.code, 2);
      assert.match(missingFile.stderr, /ENOENT/);
    });
  });

  describe('twofa send, inbox, verify and resend', { concurrency: true }, () => {
    let appId: string;
    let msgId: string;
    before(async () => {
      // A verify limit that lets a wrong and a right attempt follow each other at once.
      appId = (await twofa('apps', 'create', '--name', 'Flow', '--verify-limit', '10/1s', '-q')).stdout.trim();
      msgId = (await twofa('templates', 'create', appId, '--text', 'Hi {{firstName}}, your code is {{pin}}', '--pin-length', '6', '-q')).stdout.trim();
    });

    async function pinFromInbox(to: string, pinId: string): Promise<string> {
      for (let i = 0; i < 100; i++) {
        const result = await twofa('inbox', '--to', to, '--json');
        assert.equal(result.code, 0, result.stderr);
        const messages = result.stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { pinId: string; text: string });
        const message = messages.find((m) => m.pinId === pinId);
        if (message) return /code is (\d{6})/.exec(message.text)?.[1] ?? assert.fail(message.text);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return assert.fail('the PIN never reached the inbox');
    }

    it('templates texts add, list, update and remove a locale text; send --locale sends it', async () => {
      const textsApp = (await twofa('apps', 'create', '--name', 'Texts', '-q')).stdout.trim();
      const textsMsg = (await twofa('templates', 'create', textsApp, '--text', 'Your code is {{pin}}', '--pin-length', '6', '-q')).stdout.trim();
      const added = await twofa('templates', 'texts', 'add', textsApp, textsMsg, '--locale', 'es', '--text', 'Tu código es {{pin}}');
      assert.equal(added.code, 0, added.stderr);
      const textId = /^added text ([0-9A-F]{32})$/m.exec(added.stdout)?.[1];
      assert.ok(textId, added.stdout);
      assert.match(added.stdout, /channel\s+every phone channel/);
      const list = await twofa('templates', 'texts', 'list', textsApp, textsMsg);
      assert.match(list.stdout, new RegExp(`${textId}\\s+es\\s+all\\s+Tu código es \\{\\{pin\\}\\}`));
      assert.equal((await twofa('templates', 'texts', 'add', textsApp, textsMsg, '--locale', 'ES', '--text', 'x {{pin}}')).code, 1, 'one text per locale and channel');

      const to = '41793026799';
      const sent = (await twofa('send', '--app', textsApp, '--message', textsMsg, '--to', to, '--locale', 'es-mx')).stdout.trim();
      const inbox = async () => (await twofa('inbox', '--to', to, '--json')).stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { pinId: string; text: string });
      for (let i = 0; i < 100 && !(await inbox()).some((m) => m.pinId === sent); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      assert.match((await inbox()).find((m) => m.pinId === sent)?.text ?? '', /^Tu código es \d{6}$/);
      assert.equal((await twofa('send', '--app', textsApp, '--message', textsMsg, '--to', 'jane@example.com', '--channel', 'email', '--locale', 'es')).code, 2, '--locale is for the phone channels');

      const updated = json(await twofa('templates', 'texts', 'update', textsApp, textsMsg, textId, '--text', 'Código: {{pin}}', '--json'));
      assert.equal(updated.text, 'Código: {{pin}}');
      assert.deepEqual(json(await twofa('templates', 'texts', 'remove', textsApp, textsMsg, textId, '--json')), { removed: textId });
      assert.deepEqual(json(await twofa('templates', 'texts', 'list', textsApp, textsMsg, '--json')), []);
    });

    it('send prints only the pinId; inbox shows the message; a wrong PIN exits 1, the right one 0; resend delivers it again', async () => {
      const to = '41793026727';
      const sent = await twofa('send', '--app', appId, '--message', msgId, '--to', to, '--placeholder', 'firstName=Jane');
      assert.equal(sent.code, 0, sent.stderr);
      assert.match(sent.stdout, /^[0-9A-F]{32}\n$/, 'only the pinId on stdout');
      const pinId = sent.stdout.trim();
      assert.match(sent.stderr, /sent by sms to 41793026727 \(MESSAGE_SENT/);

      const pin = await pinFromInbox(to, pinId);
      const inbox = await twofa('inbox', '--to', to);
      assert.equal(inbox.code, 0, inbox.stderr);
      assert.match(inbox.stdout, new RegExp(`sms\\s+to ${to}.*pin ${pinId}\\n\\s+Hi Jane, your code is ${pin}`));

      const wrongPin = pin === '000000' ? '111111' : '000000';
      const wrong = await twofa('verify', pinId, wrongPin);
      assert.equal(wrong.code, 1);
      assert.equal(wrong.stdout, 'not verified: WRONG_PIN, 9 attempts remaining\n');
      const wrongJson = await twofa('verify', pinId, wrongPin, '--json');
      assert.equal(wrongJson.code, 1);
      assert.deepEqual(JSON.parse(wrongJson.stdout), { pinId, msisdn: to, verified: false, attemptsRemaining: 8, pinError: 'WRONG_PIN' });

      const resent = await twofa('resend', pinId, '--channel', 'voice', '--placeholder', 'firstName=Jane');
      assert.equal(resent.code, 0, resent.stderr);
      assert.equal(resent.stdout, `${pinId}\n`);
      assert.match(resent.stderr, /resent by voice to 41793026727 \(PENDING_ACCEPTED\)/);
      const resentJson = json(await twofa('resend', pinId, '--placeholder', 'firstName=Jane', '--json'));
      assert.equal(resentJson.pinId, pinId);
      assert.equal(resentJson.smsStatus, 'MESSAGE_SENT');

      const right = await twofa('verify', pinId, pin);
      assert.equal(right.code, 0, right.stderr);
      assert.equal(right.stdout, 'verified\n');
      const rightJson = await twofa('verify', pinId, pin, '--json');
      assert.equal(rightJson.code, 0);
      assert.deepEqual(JSON.parse(rightJson.stdout), { pinId, msisdn: to, verified: true, attemptsRemaining: 6 });
    });

    it('test-numbers add, list and remove; a send to a test number reaches no inbox and its fixed code verifies', async () => {
      const to = '41793026740';
      const added = await twofa('test-numbers', 'add', `+${to}`, '135790');
      assert.equal(added.code, 0, added.stderr);
      const id = /^added test number ([0-9A-F]{32}) for 41793026740/.exec(added.stdout)?.[1];
      assert.ok(id, added.stdout);
      const list = await twofa('test-numbers', 'list');
      assert.match(list.stdout.split('\n')[0] ?? '', /^ID\s+DESTINATION\s+CREATED/);
      assert.match(list.stdout, new RegExp(`${id}\\s+${to}\\s`));
      assert.equal(list.stdout.includes('135790'), false, 'the code is never shown');
      assert.equal((await twofa('test-numbers', 'add', to, '135790')).code, 1, 'a duplicate is refused');

      const pinId = (await twofa('send', '--app', appId, '--message', msgId, '--to', to, '--placeholder', 'firstName=Rev')).stdout.trim();
      assert.match(pinId, HEX32);
      const right = await twofa('verify', pinId, '135790');
      assert.equal(right.stdout, 'verified\n');
      const inbox = await twofa('inbox', '--to', to, '--json');
      assert.equal(inbox.code, 0, inbox.stderr);
      assert.equal(inbox.stdout.includes(pinId), false, 'nothing delivered (test/http/test-numbers.test.ts proves it after the worker ran)');

      assert.deepEqual(json(await twofa('test-numbers', 'remove', id, '--json')), { removed: id });
      assert.deepEqual(json(await twofa('test-numbers', 'list', '--json')).filter((t: { id: string }) => t.id === id), []);
      assert.equal((await twofa('test-numbers', 'remove', id)).code, 1);
    });

    it('send --json prints the full answer; --no-nc leaves ncStatus out', async () => {
      const [withNcResult, withoutNcResult] = await Promise.all([
        twofa('send', '--app', appId, '--message', msgId, '--to', '41793026728', '--placeholder', 'firstName=Al', '--json'),
        twofa('send', '--app', appId, '--message', msgId, '--to', '41793026729', '--placeholder', 'firstName=Al', '--no-nc', '--json'),
      ]);
      const withNc = json(withNcResult);
      const withoutNc = json(withoutNcResult);
      assert.deepEqual(Object.keys(withNc).sort(), ['ncStatus', 'pinId', 'smsStatus', 'to']);
      assert.equal(withNc.ncStatus, 'NC_NOT_CONFIGURED');
      assert.deepEqual(Object.keys(withoutNc).sort(), ['pinId', 'smsStatus', 'to']);
    });

    it('a send the server refuses (missing placeholder) exits 1 with the field and prints no pinId', async () => {
      const result = await twofa('send', '--app', appId, '--message', msgId, '--to', '41793026730');
      assert.equal(result.code, 1);
      assert.equal(result.stdout, '');
      assert.match(result.stderr, /^twofa: the server answered 400 BAD_REQUEST:\n {2}placeholders/);
    });
  });

  describe('usage errors and an unreachable server', { concurrency: true }, () => {
    it('send without --to, with a bad --channel or a bad --placeholder exits 2 before contacting the server', async () => {
      const [missing, channel, placeholder, noNc] = await Promise.all([
        twofa('send', '--app', 'A', '--message', 'M'),
        twofa('send', '--app', 'A', '--message', 'M', '--to', '41793026727', '--channel', 'fax'),
        twofa('send', '--app', 'A', '--message', 'M', '--to', '41793026727', '--placeholder', 'novalue'),
        twofa('send', '--app', 'A', '--message', 'M', '--to', 'a@example.com', '--channel', 'email', '--no-nc'),
      ]);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /^twofa: required option '--to <destination>' not specified/);
      assert.equal(channel.code, 2);
      assert.match(channel.stderr, /Allowed choices are sms, voice, email/);
      assert.equal(placeholder.code, 2);
      assert.match(placeholder.stderr, /name=value/);
      assert.equal(noNc.code, 2);
      assert.match(noNc.stderr, /--no-nc applies to --channel sms only/);
    });

    it('no API key is a configuration error (exit 2) naming TWOFA_API_KEY', async () => {
      const result = await runCli(['apps', 'list', '--url', server.url], {});
      assert.equal(result.code, 2);
      assert.match(result.stderr, /^twofa: an API key is needed: set TWOFA_API_KEY or pass --key/);
      assert.equal(result.stdout, '');
    });

    it('a wrong key exits 1 with 401 and a hint; --key overrides TWOFA_API_KEY', async () => {
      const [wrong, right] = await Promise.all([
        runCli(['apps', 'list', '--url', server.url, '--key', 'not-a-key-not-a-key'], env),
        runCli(['apps', 'list', '--url', server.url, '--key', server.key, '--json'], { TWOFA_API_KEY: 'not-a-key-not-a-key' }),
      ]);
      assert.equal(wrong.code, 1);
      assert.match(wrong.stderr, /401 UNAUTHORIZED[\s\S]*check the API key/);
      assert.equal(right.code, 0, right.stderr);
    });

    it('a server that is not running exits 3 with a clear message', async () => {
      const url = `http://127.0.0.1:${await freePort()}`;
      const commands = [['apps', 'list'], ['verify', '0123456789ABCDEF0123456789ABCDEF', '1234', '--json'], ['inbox']];
      const results = await Promise.all(commands.map((args) => runCli([...args, '--url', url], env)));
      for (const [i, result] of results.entries()) {
        const args = commands[i] ?? [];
        assert.equal(result.code, 3, `${args.join(' ')}: ${result.stderr}`);
        assert.equal(result.stdout, '');
        assert.match(result.stderr, new RegExp(`^twofa: cannot reach the twofa server at ${url} \\(ECONNREFUSED\\)`));
      }
    });

    it('--url defaults to TWOFA_HOST and TWOFA_PORT; a bad TWOFA_PORT is a configuration error (exit 2)', async () => {
      const port = new URL(server.url).port;
      const [result, badPort] = await Promise.all([
        runCli(['apps', 'list', '--json'], { ...env, TWOFA_HOST: '127.0.0.1', TWOFA_PORT: port }),
        runCli(['apps', 'list'], { ...env, TWOFA_PORT: 'abc' }),
      ]);
      assert.equal(result.code, 0, result.stderr);
      assert.ok(Array.isArray(JSON.parse(result.stdout)));
      assert.equal(badPort.code, 2);
      assert.match(badPort.stderr, /^twofa: configuration error: TWOFA_PORT/);
    });
  });
});
