import type { AdmissionRequest } from '../accounts/types.ts';
import type { ChatRequest } from '../ir/types.ts';
import { boundInputTokens } from '../pipeline/index.ts';

/**
 * What a batch line asks of admission, emulated or native: the caller's key and account as for
 * a live request, priced at the batch multiplier, under the line's own request id.
 */
export function lineAdmission(auth: AdmissionRequest['auth'], request: ChatRequest, requestId: string, priceMultiplier: number): AdmissionRequest {
  return {
    auth,
    method: 'POST',
    // The batch route: exempt from rate limits (§8.1), so lines never count against the caller's RPM.
    route: '/v1/batches',
    clientAddress: 'batch',
    model: request.model,
    estimatedInputTokens: boundInputTokens(request),
    maxOutputTokens: request.maxTokens,
    priceMultiplier,
    requestId,
  };
}
