// The runnable sections of the README and docs/: their fenced code blocks, and a child process to run them in.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT, cleanEnv, startServerProcess } from './server-process.js';

export const README = fs.readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
export const TWILIO_DOC = fs.readFileSync(path.join(PROJECT_ROOT, 'docs', 'twilio-verify.md'), 'utf8');
export const PRELUDE_DOC = fs.readFileSync(path.join(PROJECT_ROOT, 'docs', 'prelude-verify.md'), 'utf8');
export const VONAGE_DOC = fs.readFileSync(path.join(PROJECT_ROOT, 'docs', 'vonage-verify.md'), 'utf8');

/** The ```<lang> blocks between the "## " heading matching `heading` and the next "## " heading. */
export function sectionBlocks(markdown: string, heading: RegExp, lang = 'sh'): string[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => l.startsWith('## ') && heading.test(l));
  if (start === -1) throw new Error(`no "## " section matching ${String(heading)}`);
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((l) => /^## /.test(l));
  const section = (end === -1 ? rest : rest.slice(0, end)).join('\n');
  return [...section.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1] ?? '');
}

/** Runs a command to its end, bounded by `timeoutMs`; the environment is the tests' clean one plus `env`. */
export function runProcess(command: string, args: string[], options: { cwd: string; env?: Record<string, string>; timeoutMs: number }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: { ...cleanEnv(), ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`${command} timed out\n${stdout}\n${stderr}`)); }, options.timeoutMs);
    child.on('error', (err) => { clearTimeout(timer); reject(err); });
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

const MARK = '::doc-block::';

/**
 * Runs sh blocks in one bash process after `prelude` (the README's exports, earlier steps), and
 * returns what each block printed. `after(i)`: commands run after block i, printing into its output
 * (what a browser page does between two of the server's steps).
 */
export async function runMarkedBlocks(prelude: string[], blocks: string[], options: { cwd: string; timeoutMs: number; after?: (index: number) => string[] }): Promise<{ shell: { code: number | null; stdout: string; stderr: string }; outputs: string[] }> {
  const script = ['set -euo pipefail', ...prelude, ...blocks.flatMap((block, i) => [`echo '${MARK}'`, block, ...(options.after?.(i) ?? [])])].join('\n');
  const shell = await runProcess('bash', ['-c', script], { cwd: options.cwd, timeoutMs: options.timeoutMs });
  return { shell, outputs: shell.stdout.split(`${MARK}\n`).slice(1) };
}

export interface DocWalkthrough {
  /** The "## Walkthrough" section's sh blocks and its js block. */
  blocks: string[];
  sdkBlock: string | undefined;
  shell: { code: number | null; stdout: string; stderr: string };
  /** What each sh block printed, in order (then what `finalEcho` printed, if given). */
  outputs: string[];
  sdk: { code: number | null; stdout: string; stderr: string };
  stop(): Promise<void>;
}

/**
 * Runs a docs page's "## Walkthrough" as a reader would after the README's five-minute walkthrough:
 * its sh blocks in one bash process after the README's exports, against a real `twofa serve` on a free
 * port, then its js block with the project's node_modules. `finalEcho` is a shell command run after the
 * blocks (its output is the last of `outputs`); `sdkEnv` gives the js block its environment.
 */
export async function runDocWalkthrough(doc: string, options: { finalEcho?: string; sdkEnv: (outputs: string[], server: string, key: string) => Record<string, string> }): Promise<DocWalkthrough> {
  const setup = sectionBlocks(README, /^## Five-minute walkthrough/)[0] ?? '';
  const blocks = sectionBlocks(doc, /^## Walkthrough$/);
  const [sdkBlock] = sectionBlocks(doc, /^## Walkthrough$/, 'js');
  const key = /TWOFA_BOOTSTRAP_API_KEY=(\S+)/.exec(setup)?.[1];
  if (!key) throw new Error('the walkthrough\'s first block sets no TWOFA_BOOTSTRAP_API_KEY');
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'twofa-doc-walkthrough-'));
  const server = await startServerProcess({ TWOFA_BOOTSTRAP_API_KEY: key, TWOFA_DATA_DIR: path.join(workDir, 'data') });
  const stop = async () => {
    await server.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  };
  try {
    const exports = setup.split('\n').filter((l) => /^export /.test(l)).map((l) => l.replace(/http:\/\/127\.0\.0\.1:8080/g, server.url));
    const finalEcho = options.finalEcho === undefined ? [] : [options.finalEcho];
    const { shell, outputs } = await runMarkedBlocks(exports, [...blocks, ...finalEcho], { cwd: workDir, timeoutMs: 30_000 });
    // Bare imports of an evaluated module resolve from the working directory: the project's node_modules.
    const sdk = await runProcess(process.execPath, ['--input-type=module', '-e', sdkBlock ?? ''], {
      cwd: PROJECT_ROOT, timeoutMs: 30_000, env: options.sdkEnv(outputs, server.url, key),
    });
    return { blocks, sdkBlock, shell, outputs, sdk, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
