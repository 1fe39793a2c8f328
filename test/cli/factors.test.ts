// `twofa factors ...` as real processes against a real server: a TOTP factor made (its QR code in the
// terminal), verified with a code otplib computes, a wrong code and a replayed one refused with exit 1.
// The server runs on the wall clock: a code is computed just before it is sent, and the server's skew
// (one step each side) covers a step that turns meanwhile.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { generate } from 'otplib';
import { runCli, startServerProcess, type CliResult, type ServerProcess } from '../support/server-process.js';

let server: ServerProcess;
let env: Record<string, string>;

function twofa(...args: string[]): Promise<CliResult> {
  return runCli([...args, '--url', server.url], env, 60_000);
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

describe('twofa factors', () => {
  it('adds a factor with its QR code, verifies it with the app\'s code, refuses a wrong and a replayed code with exit 1, lists and removes it', async () => {
    const app = await twofa('apps', 'create', '--name', 'Factors CLI', '-q');
    assert.equal(app.code, 0, app.stderr);
    const appId = app.stdout.trim();
    const user = ['--app', appId, '--identity', 'user-cli-0001'];

    const human = await twofa('factors', 'add', ...user, '--name', 'ann@example.com');
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /[▀▄█]/, 'a QR code drawn in the terminal');
    assert.match(human.stdout, /^otpauth:\/\/totp\/Factors%20CLI:ann%40example.com\?secret=[A-Z2-7]{32}&/m);

    const made = JSON.parse((await twofa('factors', 'add', ...user, '--name', 'phone', '--code-length', '8', '--json')).stdout) as { sid: string; secret: string; status: string; config: { code_length: number } };
    assert.equal(made.status, 'unverified');
    assert.equal(made.config.code_length, 8);
    const code = () => generate({ secret: made.secret, digits: 8 });

    const wrongCode = String((Number(await code()) + 1) % 1e8).padStart(8, '0');
    const wrong = await twofa('factors', 'verify', ...user, made.sid, wrongCode);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stdout, new RegExp(`factor ${made.sid}: unverified`));
    const first = await code();
    const verified = await twofa('factors', 'verify', ...user, made.sid, first);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    assert.match(verified.stdout, /: verified$/m);

    const replayed = await twofa('factors', 'challenge', ...user, made.sid, first);
    assert.equal(replayed.code, 1, 'the code that verified the factor does not sign in again');
    assert.match(replayed.stdout, /^challenge YC[0-9a-f]{32}: pending \(4 attempts left\)$/m);

    const listed = JSON.parse((await twofa('factors', 'list', ...user, '--json')).stdout) as Array<{ sid: string; status: string }>;
    assert.deepEqual(listed.map((f) => [f.sid === made.sid, f.status]).sort(), [[false, 'unverified'], [true, 'verified']]);
    const removed = await twofa('factors', 'remove', ...user, made.sid);
    assert.equal(removed.code, 0, removed.stderr);
    const gone = await twofa('factors', 'verify', ...user, made.sid, await code());
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /404/);
  });
});
