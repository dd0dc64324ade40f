/** The request pipeline: route a request over its candidates, call upstream, relay or convert the answer. */
export { runChat, decodeInbound, failedAnswerSettlement, type ChatPipelineDeps } from './run-chat.ts';
export { tryCandidates, type Served, type TryOptions } from './try-candidates.ts';
export { callUpstream, mapPluginError, overUpstreamLimit, UpstreamAttempt, type UpstreamSuccess } from './call-upstream.ts';
export { patchCall } from './patch-request.ts';
export { estimateInputTokens, estimateTokens } from './estimate-usage.ts';
export { boundInputTokens } from './bound-input-tokens.ts';
export { iterateTarget } from './relay-stream.ts';
export { checkConvertible, prepareCall, refusedAsk, withoutAsk, withoutRefusedAsk, type CallSource, type PreparedCall } from './prepare-call.ts';
export { restoreToolNames, type ToolNames } from './fit-tool-names.ts';
export { cutAtStop } from './emulate-stop.ts';
export type { ChatExchange, ChatOutcome, ResponseCapture, RelayedStream, RoutingHeaders, Settlement, StreamTarget } from './types.ts';
export { countInputTokens } from './count-input-tokens.ts';
export { InboundRequest, readInbound, factsOf, type InboundSource } from './inbound.ts';
export { mayThinkPastCap } from './think-past-cap.ts';
