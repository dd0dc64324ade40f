import { ERROR_STATUS } from '../../errors/index.ts';
import type { StreamError } from '../../ir/index.ts';
import { classifyUpstreamError } from '../../upstream/index.ts';

/**
 * An error an upstream reported inside a stream → the IR stream error, classified like the
 * same fault anywhere else (see classifyUpstreamError): throttling, overload and timeouts keep
 * their meaning, so clients retry on them.
 */
export function streamErrorFromUpstream(type: string | undefined, message: string, upstreamCode?: string): StreamError {
  const code = classifyUpstreamError({ type, code: upstreamCode, phase: 'mid-stream' });
  return { code, message: message || 'The upstream provider reported an error.', status: ERROR_STATUS[code] };
}
