/** An error with a message for the user and a process exit code; printed without a stack trace. */
export class ExitError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}
