/**
 * The exception an AWS SDK client (Bedrock Runtime) recognises for an error of this HTTP status:
 * the class it raises, read from `x-amzn-errortype` or the body's `__type`.
 */
export function awsExceptionOf(status: number): string {
  if (status === 429) return 'ThrottlingException';
  if (status === 401 || status === 403) return 'AccessDeniedException';
  if (status === 404) return 'ResourceNotFoundException';
  if (status === 503) return 'ServiceUnavailableException';
  if (status === 504 || status === 408) return 'ModelTimeoutException';
  if (status >= 500) return 'InternalServerException';
  return 'ValidationException';
}
