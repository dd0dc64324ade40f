import { z } from 'zod';
import { GatewayError, isErrorCode } from '../../errors/index.ts';
import type { ChatResponse } from '../../ir/index.ts';
import { decodeOutputItems } from './decode-output.ts';
import { FailedAnswerError, streamErrorFromUpstream } from '../shared/index.ts';
import { finishForStatus } from './map-status.ts';
import { decodeResponseUsage } from './map-usage.ts';

const responseSchema = z.looseObject({
  id: z.string(),
  model: z.string().nullish(),
  created_at: z.number().nullish(),
  status: z.string().nullish(),
  output: z.array(z.unknown()),
  usage: z.unknown().optional(),
  incomplete_details: z.looseObject({ reason: z.string().nullish() }).nullish(),
  error: z.looseObject({ code: z.string().nullish(), message: z.string().nullish() }).nullish(),
});

/**
 * An upstream Responses response object → IR; a `failed` (or `cancelled`) response becomes a
 * GatewayError, one carrying the usage it reports (FailedAnswerError) when it reports any, to be billed.
 */
export function decodeResponsesResponse(body: unknown): ChatResponse {
  const parsed = responseSchema.safeParse(body);
  if (!parsed.success) throw new GatewayError('provider_error', 'The upstream returned an invalid Responses body.', { cause: parsed.error });
  const response = parsed.data;
  if (response.status === 'failed' || response.status === 'cancelled') {
    const message = response.error?.message ?? `The upstream response ${response.status}.`;
    const { code } = streamErrorFromUpstream(response.error?.code ?? undefined, message);
    const options = { details: { upstream_code: response.error?.code ?? null } };
    const errorCode = isErrorCode(code) ? code : 'provider_error';
    // What the failed response used (its tokens, its web searches) is billed, as its stream's response.failed is.
    const usage = decodeResponseUsage(response);
    throw usage ? new FailedAnswerError(errorCode, message, options, usage) : new GatewayError(errorCode, message, options);
  }
  const { content, hasToolCalls } = decodeOutputItems(response.output);
  return {
    id: response.id,
    model: response.model ?? '',
    created: response.created_at ?? Math.floor(Date.now() / 1000),
    content,
    finishReason: finishForStatus(response.status ?? 'completed', response.incomplete_details?.reason ?? undefined, hasToolCalls),
    usage: decodeResponseUsage(response) ?? { inputTokens: 0, outputTokens: 0 },
  };
}
