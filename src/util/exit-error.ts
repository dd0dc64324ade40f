import { hasMark } from './has-mark.ts';

const MARK = Symbol.for('gateway.exit-error');

/** An error with a message for the user and a process exit code; printed without a stack trace. */
export class ExitError extends Error {
  readonly [MARK] = true;

  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** True for an ExitError (or a subclass, such as the CLI's errors), recognised by its mark. */
export function isExitError(value: unknown): value is ExitError {
  return hasMark(value, MARK);
}
