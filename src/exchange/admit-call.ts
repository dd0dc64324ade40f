import type { Admission, AdmissionRequest } from '../accounts/index.ts';
import type { RequestFacts } from '../formats/index.ts';
import type { MaybePromise } from '../util/index.ts';
import type { ExchangeCall, ExchangeDeps } from './types.ts';

/** What admission reads of a request: its model, its input bound, its output cap, its web search and image tool (read without decoding it: `readCall`). */
export type AdmittedFacts = Pick<RequestFacts, 'model' | 'inputBound' | 'maxTokens' | 'thinkingOnTop' | 'vendorTools' | 'imageOutput' | 'fallbacks'>;

/** What admission reads of a call: who, where from, which model, how much it may use. */
function admissionOf(call: ExchangeCall, request: AdmittedFacts): AdmissionRequest {
  const admission: AdmissionRequest = {
    auth: call.auth,
    method: 'POST',
    route: call.route,
    clientAddress: call.clientAddress,
    model: request.model,
    estimatedInputTokens: request.inputBound,
    maxOutputTokens: request.maxTokens,
    requestId: call.ids.requestId,
  };
  // Only a request asking for thinking over its cap: the budget on top is held only where a model that may serve it answers past the cap.
  if (request.thinkingOnTop !== undefined) admission.thinkingOnTop = { tokens: request.thinkingOnTop, format: call.format };
  // Only a request with vendor tools pays for this look (the hold covers its searches and images).
  const tools = request.vendorTools;
  if (tools && tools.webSearch.length > 0) admission.webSearch = tools.maxUses === undefined ? {} : { maxUses: tools.maxUses };
  if (tools?.imageGeneration) admission.imageTool = tools.imageGeneration;
  // Images asked of a Chat or Gemini answer: one, at auto (the gateway's tool asks no quality or size).
  else if (request.imageOutput) admission.imageTool = { calls: 1 };
  if (request.fallbacks) admission.fallbacks = request.fallbacks;
  if (call.limits !== undefined) admission.limits = call.limits;
  if (call.priceMultiplier !== undefined) admission.priceMultiplier = call.priceMultiplier;
  return admission;
}

/** Admits a call (limits, scopes, credits); in-process guards answer at once, with no promise. */
export function admitCall(deps: Pick<ExchangeDeps, 'guards'>, call: ExchangeCall, request: AdmittedFacts): MaybePromise<Admission> {
  return deps.guards.admit(admissionOf(call, request));
}
