import { GatewayError, type ErrorCode, type GatewayErrorOptions } from '../../errors/index.ts';
import type { Usage } from '../../ir/index.ts';

/**
 * A whole upstream answer that says it failed (a Responses `status: "failed"`): the error the
 * client gets, carrying what the failed response reports it used, so it is billed as the same
 * answer streamed (`response.failed`) or passed through is.
 */
export class FailedAnswerError extends GatewayError {
  constructor(
    code: ErrorCode,
    message: string,
    options: GatewayErrorOptions,
    readonly usage: Usage,
  ) {
    super(code, message, options);
  }
}

/** What a failed answer reports it used, when `error` is one that says. */
export function usageOfFailedAnswer(error: unknown): Usage | undefined {
  return error instanceof FailedAnswerError ? error.usage : undefined;
}
