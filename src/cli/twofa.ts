#!/usr/bin/env node
// The `twofa` command. Exit codes: 0 success, 1 the operation failed (an error answer, a PIN that did
// not verify, a failed doctor check), 2 bad usage or configuration, 3 the server cannot be reached.
// Errors go to stderr as `twofa: <message>`; results go to stdout (JSON with --json).
// package.json's `bin` points here; `twofa serve` continues in serve-command.ts -> main.ts -> app.ts
// (docs/architecture.md, *Entry*).
import { EXIT_FAILURE, EXIT_UNREACHABLE, EXIT_USAGE } from './cli-errors.js';
import { buildProgram, exitCodeFor } from './program.js';

export { EXIT_FAILURE, EXIT_UNREACHABLE, EXIT_USAGE };

try {
  await buildProgram().parseAsync(process.argv);
} catch (err) {
  const { code, message } = exitCodeFor(err);
  if (message !== undefined) process.stderr.write(`twofa: ${message}\n`);
  process.exitCode = code;
}
