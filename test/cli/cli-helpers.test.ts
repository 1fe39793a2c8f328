// The pieces of the command line that need no process: server URL defaults, option parsers, and how
// an error answer or a network failure becomes a message.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidArgumentError, type Command } from 'commander';
import { TwofaApiError } from '../../src/client/index.js';
import { describeApiError, networkFailureReason, resolveServerUrl, serverUrlFor } from '../../src/cli/connection.js';
import { collectPlaceholder, integerBetween, parseLanguage, parsePinType, parseSendLimit, parseTimeToLive, parseVerifyLimit } from '../../src/cli/option-parsers.js';
import { UsageError } from '../../src/cli/cli-errors.js';
import { buildProgram } from '../../src/cli/program.js';

describe('server URL', () => {
  it('is built from TWOFA_HOST and TWOFA_PORT, with IPv6 in brackets and wildcard addresses as loopback', () => {
    assert.equal(serverUrlFor({ host: '127.0.0.1', port: 8080 }), 'http://127.0.0.1:8080');
    assert.equal(serverUrlFor({ host: '::1', port: 8080 }), 'http://[::1]:8080');
    assert.equal(serverUrlFor({ host: 'fe80::1', port: 9 }), 'http://[fe80::1]:9');
    assert.equal(serverUrlFor({ host: '0.0.0.0', port: 8080 }), 'http://127.0.0.1:8080');
    assert.equal(serverUrlFor({ host: '::', port: 8080 }), 'http://[::1]:8080');
    assert.equal(serverUrlFor({ host: 'twofa.internal', port: 80 }), 'http://twofa.internal:80');
  });

  it('--url must be an absolute http(s) URL; a trailing slash is dropped', () => {
    assert.equal(resolveServerUrl('https://twofa.example.com/'), 'https://twofa.example.com');
    assert.throws(() => resolveServerUrl('localhost:8080'), UsageError);
    assert.throws(() => resolveServerUrl('ftp://example.com'), UsageError);
    assert.throws(() => resolveServerUrl('not a url'), UsageError);
  });
});

describe('option parsers', () => {
  it('accept what the server accepts and refuse the rest as bad usage', () => {
    assert.equal(integerBetween(1, 1000)('10'), 10);
    for (const bad of ['0', '1001', '1.5', '-1', 'ten', '']) assert.throws(() => integerBetween(1, 1000)(bad), InvalidArgumentError, bad);
    assert.equal(parseTimeToLive('15m'), '15m');
    assert.throws(() => parseTimeToLive('366d'), /one year/);
    assert.equal(parseVerifyLimit('1/3s'), '1/3s');
    assert.throws(() => parseVerifyLimit('1/2d'), /one day/);
    assert.equal(parseSendLimit('3/1d'), '3/1d');
    assert.throws(() => parseSendLimit('3 per day'), InvalidArgumentError);
    assert.equal(parsePinType('hex'), 'HEX');
    assert.throws(() => parsePinType('EMOJI'), /NUMERIC, ALPHA, HEX, ALPHANUMERIC/);
    assert.equal(parseLanguage('pt-PT'), 'pt_pt');
    assert.throws(() => parseLanguage('klingon'), InvalidArgumentError);
  });

  it('--placeholder name=value collects into one record; the value may hold "="', () => {
    const first = collectPlaceholder('firstName=Jane', undefined);
    assert.deepEqual(collectPlaceholder('query=a=b', first), { firstName: 'Jane', query: 'a=b' });
    assert.deepEqual(collectPlaceholder('empty=', undefined), { empty: '' });
    for (const bad of ['novalue', '=x', '{{x}}=1', 'pin=1234']) assert.throws(() => collectPlaceholder(bad, undefined), InvalidArgumentError, bad);
  });
});

describe('error messages', () => {
  it('an error answer shows status, messageId and each invalid field on its own line', () => {
    const err = new TwofaApiError({ status: 400, messageId: 'BAD_REQUEST', text: '[to : bad]', validationErrors: { to: ['must be a phone number'], from: ['too long', 'bad'] } });
    assert.equal(describeApiError(err), 'the server answered 400 BAD_REQUEST:\n  to: must be a phone number\n  from: too long; bad');
    const limited = new TwofaApiError({ status: 429, messageId: 'TOO_MANY_REQUESTS', text: 'Too many requests', retryAfterSeconds: 3 });
    assert.equal(describeApiError(limited), 'the server answered 429 TOO_MANY_REQUESTS: Too many requests\n  retry in 3 s');
    assert.match(describeApiError(new TwofaApiError({ status: 403, messageId: 'FORBIDDEN', text: 'no' })), /2fa:manage/);
  });

  it('a request that got no answer is told apart from an answer, with the low-level reason', () => {
    const refused = new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }) });
    assert.equal(networkFailureReason(refused), 'ECONNREFUSED');
    assert.equal(networkFailureReason(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), 'timed out');
    assert.equal(networkFailureReason(new TypeError('fetch failed', { cause: new Error('bad port') })), 'bad port');
    assert.equal(networkFailureReason(new TwofaApiError({ status: 500, messageId: 'GENERAL_ERROR', text: 'x' })), undefined);
    assert.equal(networkFailureReason(new Error('something else')), undefined);
  });
});

describe('help', () => {
  function leaves(command: Command): Command[] {
    return command.commands.length === 0 ? [command] : command.commands.flatMap(leaves);
  }

  function fullName(command: Command): string {
    const names: string[] = [];
    for (let c: Command | null = command; c !== null; c = c.parent) names.unshift(c.name());
    return names.join(' ');
  }

  it('every command has a description and --help text with an example of itself', () => {
    const commands = leaves(buildProgram());
    assert.deepEqual(commands.map(fullName).sort(), [
      'apps create', 'apps list', 'apps risk decisions', 'apps risk get', 'apps risk set', 'apps show', 'apps update', 'apps workflow delete', 'apps workflow get', 'apps workflow set', 'audit head',
      'audit verify', 'budget remove', 'budget set', 'budget show', 'doctor', 'email-templates create', 'email-templates delete', 'email-templates list', 'email-templates show', 'factors add',
      'factors answer', 'factors challenge', 'factors list', 'factors remove', 'factors verify', 'inbox', 'keys auth-token', 'keys create', 'keys list', 'keys revoke', 'migrate', 'prices check',
      'prices reload', 'prices show', 'resend', 'routes explain', 'routes list', 'routes reload', 'safe-list add', 'safe-list list', 'safe-list remove', 'send', 'serve', 'spend', 'templates create',
      'templates create-email', 'templates list', 'templates show', 'templates texts add', 'templates texts list', 'templates texts remove', 'templates texts update', 'templates update',
      'templates update-email', 'test-numbers add', 'test-numbers list', 'test-numbers remove', 'verify', 'vonage-apps list', 'vonage-apps remove', 'vonage-apps rotate-secret',
      'vonage-apps set-callback', 'vonage-apps set-key', 'vonage-apps show',
    ].map((n) => `twofa ${n}`));
    for (const command of commands) {
      let help = '';
      command.configureOutput({ writeOut: (text) => { help += text; } });
      command.outputHelp();
      const name = fullName(command);
      assert.ok(command.description().length > 10, `${name} has a description`);
      assert.match(help, /\nExamples?:\n/, `${name} --help shows examples`);
      const examples = help.slice(help.search(/\nExamples?:\n/));
      assert.ok(examples.includes(name), `${name}: an example uses the command itself\n${help}`);
    }
  });

  it('every server-talking command takes --url and --key, and every command but serve takes --json', () => {
    const local = new Set(['serve', 'migrate', 'keys auth-token', 'keys create', 'keys list', 'keys revoke', 'doctor', 'audit verify', 'audit head', 'prices check']);
    for (const command of leaves(buildProgram())) {
      const name = fullName(command).replace(/^twofa /, '');
      const flags = command.options.map((o) => o.long);
      if (!local.has(name)) assert.ok(flags.includes('--url') && flags.includes('--key'), `${name}: ${flags.join(' ')}`);
      if (name !== 'serve') assert.ok(flags.includes('--json'), `${name} has --json`);
    }
  });
});
