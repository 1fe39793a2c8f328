// The command line's failure kinds and their exit codes. Every command throws one of these (or lets a
// ConfigError, DsnError or commander error through); twofa.ts turns it into `twofa: <message>` on
// stderr and the exit code. Scripts rely on the codes, so they never change meaning.

/** The operation failed: the server answered an error, a PIN did not verify, a doctor check failed. */
export const EXIT_FAILURE = 1;
/** Bad usage or configuration: unknown option, bad option value, missing API key, bad TWOFA_* variable. */
export const EXIT_USAGE = 2;
/** The server could not be reached (connection refused, DNS failure, timeout). */
export const EXIT_UNREACHABLE = 3;

/** Bad usage found after commander parsed the line (e.g. a missing key or an unreadable file). */
export class UsageError extends Error {
  readonly exitCode = EXIT_USAGE;
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The operation was carried out and failed; the message says why. */
export class OperationFailedError extends Error {
  readonly exitCode = EXIT_FAILURE;
  constructor(message: string) {
    super(message);
    this.name = 'OperationFailedError';
  }
}

export class ServerUnreachableError extends Error {
  readonly exitCode = EXIT_UNREACHABLE;
  constructor(message: string) {
    super(message);
    this.name = 'ServerUnreachableError';
  }
}

/**
 * A failure without a message to print: the command already wrote its result (a PIN that did not
 * verify, a doctor report with a failed check) and only the exit code is left to set.
 */
export class SilentExit extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
    this.name = 'SilentExit';
  }
}
