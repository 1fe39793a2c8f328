// A PostgreSQL cluster of the test's own, in a temp folder on a free port of 127.0.0.1, that the test
// may kill -9 (the postmaster and every backend, as a crash or the OOM killer does) and start again on
// the same data: what the shared test server, used by every other suite, cannot go through. It runs as
// the `postgres` OS user (initdb refuses root), with the binaries of /usr/lib/postgresql/<version>/bin.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { answersQueries } from './postgres.js';
import { freePort } from './server-process.js';

const run = promisify(execFile);

export interface ThrowawayPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust authentication). */
  url: string;
  /** SIGKILL to the postmaster and each of its processes: nothing is shut down, the next start recovers from the WAL. */
  kill(): Promise<void>;
  /** Starts the cluster again on the same data and port, once it accepts connections. */
  start(): Promise<void>;
  /** Stops the cluster (if running) and deletes its folder. */
  destroy(): Promise<void>;
}

function binDirectory(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  const versions = fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : path.join(root, versions[0], 'bin');
}

function postgresUser(): { uid: number; gid: number } | undefined {
  try {
    return { uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })) };
  } catch {
    return undefined;
  }
}

/** `skip` option for node:test: false when this machine can run a throwaway cluster, else why not. */
export function skipUnlessThrowawayPostgres(): false | string {
  if (binDirectory() === undefined) return 'no PostgreSQL server binaries under /usr/lib/postgresql';
  if (process.getuid?.() !== 0) return 'starting a cluster as the postgres user needs root';
  if (postgresUser() === undefined) return 'no postgres OS user';
  return false;
}

/** The ids of the processes whose parent is `pid` (read from /proc: the backends of a postmaster). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return children;
}

/** Running, neither gone nor a zombie left for a parent that may never reap it (a container's init). */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function until(what: string, timeoutMs: number, condition: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`throwaway PostgreSQL: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const bin = binDirectory()!;
  const user = postgresUser()!;
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-pg-'));
  fs.chownSync(folder, user.uid, user.gid);
  const data = path.join(folder, 'data');
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const asPostgres = (program: string, args: string[]) => run('runuser', ['-u', 'postgres', '--', path.join(bin, program), ...args], { cwd: folder, timeout: 60_000 });
  await asPostgres('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);

  const accepts = () => answersQueries(url, 1000);
  const postmasterPid = () => {
    try {
      return Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    } catch {
      return undefined;
    }
  };
  const start = async () => {
    // -W: pg_ctl returns at once; readiness is waited for below, within a bound.
    await asPostgres('pg_ctl', ['start', '-W', '-D', data, '-l', path.join(folder, 'log'), '-o', `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1`]);
    await until('the cluster to accept connections', 30_000, accepts);
  };
  await start();

  return {
    url,
    async kill() {
      const pid = postmasterPid();
      if (pid === undefined || !alive(pid)) return;
      const backends = childrenOf(pid);
      process.kill(pid, 'SIGKILL');
      for (const child of backends) {
        try {
          process.kill(child, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
      await until('every process of the cluster to end', 10_000, () => !alive(pid) && backends.every((child) => !alive(child)));
      // The lock files name the dead postmaster, which may linger as a zombie (a container's init that
      // never reaps it) and so look alive to the next start: removed, as an operator would after a crash.
      fs.rmSync(path.join(data, 'postmaster.pid'), { force: true });
      fs.rmSync(path.join(folder, `.s.PGSQL.${port}.lock`), { force: true });
    },
    start,
    async destroy() {
      await asPostgres('pg_ctl', ['stop', '-D', data, '-m', 'immediate']).catch(() => undefined);
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
}
