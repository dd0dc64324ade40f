import { ERROR_STATUS, openAIErrorType, type ErrorCode } from '../../errors/index.ts';

/**
 * The OpenAI `error.type` for a gateway error code, as every other OpenAI-style route says it
 * (`openAIErrorType` by the code's status): OpenAI's Responses API answers the Chat API's types
 * (`invalid_request_error` for an unknown model, not a `not_found_error` of its own).
 */
export function openAiErrorType(code: string): string {
  const status = ERROR_STATUS[code as ErrorCode] as number | undefined;
  return status === undefined ? 'api_error' : openAIErrorType(status, code);
}
