import { GatewayError, type ErrorCode, type GatewayErrorOptions } from '../../errors/index.ts';
import type { Usage } from '../../ir/index.ts';
import { hasMark } from '../../util/index.ts';

/** The mark of a FailedAnswerError, shared through the global symbol registry (see GatewayError's). */
const MARK = Symbol.for('gateway.failed-answer-error');

/**
 * A whole upstream answer that says it failed (a Responses `status: "failed"`): the error the
 * client gets, carrying what the failed response reports it used, so it is billed as the same
 * answer streamed (`response.failed`) or passed through is. Plugins throw it too (the plugin kit
 * exports it), so it is recognised by its mark: a plugin with its own copy of the kit makes
 * another class object.
 */
export class FailedAnswerError extends GatewayError {
  readonly [MARK] = true;

  constructor(
    code: ErrorCode,
    message: string,
    options: GatewayErrorOptions,
    readonly usage: Usage,
  ) {
    super(code, message, options);
  }
}

/** What a failed answer reports it used, when `error` is one that says (from any copy of the kit). */
export function usageOfFailedAnswer(error: unknown): Usage | undefined {
  return hasMark(error, MARK) ? (error as FailedAnswerError).usage : undefined;
}
