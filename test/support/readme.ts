// The runnable sections of the README and docs/: their fenced code blocks, and a child process to run them in.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT, cleanEnv } from './server-process.js';

export const README = fs.readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
export const TWILIO_DOC = fs.readFileSync(path.join(PROJECT_ROOT, 'docs', 'twilio-verify.md'), 'utf8');

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
