// The one error type a command prints as a single line, apart from the rest of what commands share: the `svc` entry
// needs it before anything else loads, and whatever it imports is compiled before Node's compile cache is on.

/** An error the CLI prints as one line (no stack) before exiting with exitCode. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
