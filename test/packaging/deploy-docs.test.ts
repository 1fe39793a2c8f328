// docs/deploy cannot drift from the code: the env example lists exactly the variables the server
// reads (config.ts CONFIG_OPTIONS), each once, with its real default; and the three deployment files
// agree with each other and with the package (paths, port, body limit, bin name).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { SERVE_NODE_OPTIONS } from '../../src/cli/serve-command.js';
import { CONFIG_OPTIONS } from '../../src/config.js';
import { PROJECT_ROOT } from '../support/server-process.js';

const deploy = (file: string) => fs.readFileSync(path.join(PROJECT_ROOT, 'docs', 'deploy', file), 'utf8');

interface EnvEntry { name: string; value: string; enabled: boolean; header: string | undefined }

/** `NAME=value` lines, set or commented out (`#NAME=value`), with the `# NAME (default: ...)` line above each. */
function envEntries(text: string): EnvEntry[] {
  const lines = text.split('\n');
  const entries: EnvEntry[] = [];
  lines.forEach((line, i) => {
    const match = /^(#?)\s*([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (!match) return;
    let header: string | undefined;
    for (let j = i - 1; j >= 0 && lines[j]!.startsWith('#'); j--) {
      if (lines[j]!.startsWith(`# ${match[2]} (default: `)) header = lines[j];
    }
    entries.push({ name: match[2]!, value: match[3]!, enabled: match[1] === '', header });
  });
  return entries;
}

const shownDefault = (value: string | undefined) => (value === undefined ? 'none' : value === '' ? 'empty' : value);

describe('docs/deploy', () => {
  const env = envEntries(deploy('twofa.env.example'));
  const setting = (name: string) => env.find((e) => e.name === name && e.enabled)?.value;

  it('twofa.env.example lists exactly the variables of CONFIG_OPTIONS, each once', () => {
    const names = env.map((e) => e.name);
    assert.deepEqual([...names].sort(), CONFIG_OPTIONS.map((o) => o.env).sort());
    assert.equal(new Set(names).size, names.length, 'no variable twice');
  });

  it('twofa.env.example gives each variable its real default and a comment', () => {
    for (const option of CONFIG_OPTIONS) {
      const entry = env.find((e) => e.name === option.env)!;
      assert.equal(entry.header, `# ${option.env} (default: ${shownDefault(option.default)})`, `${option.env}: the default line above it`);
      // A line left commented out shows the value the server uses anyway.
      if (!entry.enabled) assert.equal(entry.value, option.default ?? '', `#${option.env}= shows the default`);
    }
  });

  it('the variables it sets are valid for the server', async () => {
    const { loadConfig } = await import('../../src/config.js');
    const values = Object.fromEntries(env.filter((e) => e.enabled).map((e) => [e.name, e.value]));
    assert.doesNotThrow(() => loadConfig(values));
    assert.equal(values['TWOFA_HOST'], '127.0.0.1', 'behind the proxy, loopback only');
  });

  it('the unit, the env file, nginx and the Dockerfile agree', () => {
    const unit = deploy('twofa.service');
    const nginx = deploy('nginx.conf');
    const dockerfile = deploy('Dockerfile');
    const pkg = JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string> };
    const dataDir = setting('TWOFA_DATA_DIR');
    const port = setting('TWOFA_PORT');

    assert.ok(pkg.bin['twofa'], 'the package has a twofa bin');
    assert.equal(pkg.scripts['prepack'], 'npm run build', 'npm pack builds first');
    assert.match(unit, /^EnvironmentFile=\/etc\/twofa\/twofa\.env$/m);
    assert.match(unit, /^ExecStart=.*\/opt\/twofa\/node_modules\/\.bin\/twofa serve$/m);
    assert.match(unit, /^KillSignal=SIGTERM$/m);
    assert.match(unit, /^TimeoutStopSec=20$/m);
    for (const line of ['NoNewPrivileges=yes', 'ProtectSystem=strict', 'PrivateTmp=yes', 'ProtectHome=yes', 'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX']) {
      assert.ok(unit.split('\n').includes(line), `the unit has ${line}`);
    }
    assert.equal(dataDir, '/var/lib/twofa');
    assert.match(unit, new RegExp(`^ReadWritePaths=${dataDir}$`, 'm'));
    assert.match(unit, /^StateDirectory=twofa$/m, 'systemd creates /var/lib/twofa for the service user');

    assert.match(nginx, new RegExp(`server 127\\.0\\.0\\.1:${port};`), 'nginx proxies to the port of the env file');
    const limit = CONFIG_OPTIONS.find((o) => o.env === 'TWOFA_BODY_LIMIT')!.default;
    assert.match(nginx, /client_max_body_size 64k;/);
    assert.equal(Number(limit), 64 * 1024, 'client_max_body_size matches TWOFA_BODY_LIMIT\'s default');
    assert.match(nginx, /proxy_set_header X-Request-ID /);
    assert.match(nginx, /proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
    assert.match(nginx, /location \^~ \/metrics \{[^}]*deny all;/);

    assert.match(dockerfile, /^FROM node:24-bookworm-slim/m);
    assert.match(dockerfile, new RegExp(`TWOFA_DATA_DIR=${dataDir}`));
    assert.match(dockerfile, new RegExp(`^VOLUME ${dataDir}$`, 'm'));
    assert.match(dockerfile, /^EXPOSE 8080$/m);
    assert.match(dockerfile, /^USER twofa$/m);
    assert.match(dockerfile, /npm install \/tmp\/twofa-\*\.tgz --omit=dev/);
    assert.match(dockerfile, /^HEALTHCHECK .*\n?.*\/readyz/m);
    assert.match(dockerfile, /^CMD \["twofa", "serve"\]$/m);
    // The heap settings of `twofa serve` are the same wherever it is started.
    assert.equal(pkg.scripts['start'], `node ${SERVE_NODE_OPTIONS} dist/cli/twofa.js serve`);
    assert.ok(unit.split('\n').includes(`Environment="NODE_OPTIONS=${SERVE_NODE_OPTIONS}"`), 'the unit sets NODE_OPTIONS');
    assert.ok(dockerfile.includes(`NODE_OPTIONS="${SERVE_NODE_OPTIONS}"`), 'the image sets NODE_OPTIONS');
    // What it copies from the build context exists (the context is the project root), and is all
    // that `npm pack` needs: every packed path but the compiled dist/, and the build's inputs.
    const copied = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1]!.split(/\s+/));
    for (const source of copied) assert.ok(fs.existsSync(path.join(PROJECT_ROOT, source)), `Dockerfile COPY ${source}`);
    const packageFiles = (JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
    for (const needed of [...packageFiles.filter((f) => f !== 'dist'), 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'src']) {
      assert.ok(copied.includes(needed), `the Dockerfile copies ${needed} into the build stage`);
    }
  });
});
