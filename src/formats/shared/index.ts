export { markerOfBreakpoint } from './cache-breakpoint.ts';
export { isRecord, tryParseJson, readString, readNumber, readRecord, assignDefined, jsonStringContent } from './json.ts';
export { closeObjectSchemas, meetsOpenAIStrict, openAIStrict } from './json-schema-objects.ts';
export { argumentsForClient, parseToolArguments, stringifyToolInput } from './parse-tool-arguments.ts';
export { splitDataUrl, joinDataUrl, urlToMediaSource, mediaSourceToUrl, encodeBase64, decodeBase64, standardBase64 } from './data-url.ts';
export { sanitizeToolId, shortToolName } from './sanitize-tool-id.ts';
export { generateId, nowSeconds, prefixedId } from './generate-id.ts';
export {
  EFFORT_BUDGET_TOKENS,
  MIN_BUDGET_TOKENS,
  effortToBudgetTokens,
  budgetTokensToEffort,
  budgetOfEffort,
  setOutputCap,
  isReasoningEffort,
} from './reasoning-budget.ts';
export {
  isOpenAIReasoningModel,
  isOpenAIModel,
  isOpenAIChatModelWithoutReasoning,
  adaptForReasoningModel,
  adaptForOpenAIReasoningModel,
  adaptForAnthropicThinking,
  continuesToolLoopWithoutThinking,
} from './adapt-for-reasoning-model.ts';
export { FieldChecker, badRequest, requireBodyShape, requireFields, requireObjectItems, MODEL_FIELD, collectExtra } from './check-fields.ts';
export { gatewayErrorOf, isHttpStatus, streamErrorFromUpstream } from './map-upstream-error.ts';
export { FailedAnswerError, usageOfFailedAnswer } from './failed-answer.ts';
export { readErrorBody, contentFilterResult } from './read-error-body.ts';
export { readErrorObject, readRecordObject } from './read-stream-error.ts';
export { firstSignificant, lastSignificant, isBareWord, looksLikeObject, startsWithKey } from './scan-json.ts';
export { sseFraming } from './sse-framing.ts';
export { awsExceptionOf } from './aws-exception.ts';
export { eventStreamCodec, splitEventStream, type EventStreamMessage } from './event-stream-codec.ts';
export { jsonArrayFraming } from './json-array-framing.ts';
export { readCount, countBodyFor, pickCounted, loneResultsAsUserContent } from './count-tokens.ts';
export {
  CARRY_PREFIX,
  CARRIED_PREFIXES,
  CARRIED_ID_PREFIX,
  carryOpaque,
  readCarried,
  opaqueOfReasoning,
  pairsCalls,
  restoreReasoning,
  hasMetadata,
  toolIdForClient,
  readToolId,
  type CarriedOpaque,
} from './carry-opaque.ts';
export { estimateInputTokens, estimateTokens } from './estimate-input.ts';
export { measureInput, mediaByType, isWebSearchType, MEDIA_TOKENS, type InputMeasure, type InputShape } from './measure-input.ts';
export { capFields, type CappedBody } from './cap-output.ts';
export { toolTypesOf } from './vendor-tools.ts';
export { customToolArguments, customToolDefinition, customToolInput, isCustomTool } from './custom-tool.ts';
export { decodeDomains, decodeSearchLocation } from './web-search-location.ts';
export { openaiUser } from './openai-user.ts';
export { openAIReasoningEfforts, openAIEffortFor } from './openai-reasoning-efforts.ts';
export { fitEffort } from './fit-effort.ts';
export { decodeLogprobs, encodeLogprobs, logprobsOfParts } from './map-logprobs.ts';
export { dataUrlOf, fileIdFace, mimeOfFilename } from './openai-stored-files.ts';
export { takeOutOpenRouterRouting, asksForUsageCost, openRouterReasoningEffort, decodeOpenRouterReasoning, type WithoutOpenRouterRouting } from './openrouter-fields.ts';
