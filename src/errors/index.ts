export { ERROR_STATUS, NOT_RETRIED_CODES, RETRYABLE_CODES, isErrorCode, type ErrorCode } from './codes.ts';
export { GatewayError, isGatewayError, validationError, toGatewayError, withRetryHint, type GatewayErrorOptions } from './gateway-error.ts';
export { renameFields } from './rename-fields.ts';
export { buildErrorEnvelope, errorParam, openAIErrorType, type ErrorEnvelope, type RequestIds } from './envelope.ts';
