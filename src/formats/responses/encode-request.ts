import { validationError } from '../../errors/index.ts';
import type { ChatRequest, ResponseFormat } from '../../ir/index.ts';
import type { EncodeRequestOptions } from '../types.ts';
import { encodeInput, encodeInputPart, type ForeignReasoning } from './encode-input.ts';
import { encodeReasoningRequest, encodeTextFormat, encodeToolChoice, encodeTools } from './encode-settings.ts';
import { encodeWebSearchTool, isWebSearchToolType } from './map-web-search.ts';
import { openAIStrict, openaiUser } from '../shared/index.ts';

/** The `include` entry that asks for the answer's token log probabilities. */
export const LOGPROBS_INCLUDE = 'message.output_text.logprobs';

/** Encoder options; `foreignReasoning` is Responses-specific and optional. */
export interface ResponsesEncodeRequestOptions extends EncodeRequestOptions {
  /**
   * Reasoning without OpenAI encrypted_content (Anthropic signatures, plain reasoning text):
   * 'drop' (default) leaves it out, since OpenAI rejects reasoning items it did not create;
   * 'stash' sends it as reasoning items with a `gwsig:` encrypted_content (for a gateway upstream).
   */
  foreignReasoning?: ForeignReasoning;
}

/**
 * IR → a Responses request body. `extra` (hosted tools, raw tool_choice, include, truncation, …)
 * is spread in as-is: the pipeline passes it only when the inbound format is Responses too.
 * previous_response_id is not sent: the pipeline has already rebuilt the history into `messages`.
 */
export function encodeResponsesRequest(request: ChatRequest, options: ResponsesEncodeRequestOptions): Record<string, unknown> {
  // Responses has no `n`: dropping it would answer one choice to a client that asked for several.
  if (request.n !== undefined && request.n > 1) throw validationError({ n: 'must be 1: the upstream (OpenAI Responses) returns a single choice' });
  const { hostedTools, tool_choice: rawToolChoice, text: textRest, ...passthrough } = request.extra ?? {};
  const body: Record<string, unknown> = { ...passthrough, model: options.upstreamModel };
  const input = encodeInput(request.messages, options.foreignReasoning ?? 'drop');
  // `instructions` is a string: system text with a cache breakpoint goes as a leading system item instead.
  if (request.system.some((part) => part.cacheBreakpoint)) input.unshift({ type: 'message', role: 'system', content: request.system.map(encodeInputPart) });
  else if (request.system.length > 0) body.instructions = request.system.map((part) => part.text).join('\n\n');
  body.input = input;
  body.stream = request.stream;
  if (request.maxTokens !== undefined) body.max_output_tokens = request.maxTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  // OpenAI keeps a request and its answer unless told `store: false`; a client of another format
  // never agreed to that (Chat's default is not to store; Messages and Gemini have no such setting).
  if (request.store !== undefined) body.store = request.store;
  else if (options.converted) body.store = false;
  if (request.metadata !== undefined) body.metadata = request.metadata;
  if (request.serviceTier !== undefined) body.service_tier = request.serviceTier;
  if (request.safetyIdentifier !== undefined) body.safety_identifier = request.safetyIdentifier;
  if (request.user !== undefined) body.user = openaiUser(request.user);
  if (request.promptCacheKey !== undefined) body.prompt_cache_key = request.promptCacheKey;
  if (request.promptCacheRetention !== undefined) body.prompt_cache_retention = request.promptCacheRetention;
  if (request.promptCacheOptions !== undefined) body.prompt_cache_options = request.promptCacheOptions;

  // Strict only where OpenAI's strict mode takes the schema (the response object echoes the client's own).
  const tools = encodeTools(request.tools?.map((tool) => ({ ...tool, strict: openAIStrict(tool.strict, tool.parameters) })), hostedTools);
  // A client of another format asked for a hosted web search: the Responses tool runs it.
  if (request.webSearch && !tools.some((tool) => isWebSearchToolType(tool.type))) {
    tools.push(encodeWebSearchTool(request.webSearch));
    // Its max_uses: `max_tool_calls` bounds every built-in tool call, and this search is the only
    // built-in tool (hosted tools come only from a Responses client), so the bound is the same.
    const maxUses = request.webSearch.maxUses;
    if (maxUses !== undefined && Number.isInteger(maxUses) && maxUses > 0 && body.max_tool_calls === undefined && !hostedTools) body.max_tool_calls = maxUses;
  }
  // A client of another format asked for images (Chat `modalities`, Gemini `responseModalities`): OpenAI's hosted image tool makes them.
  if (request.outputModalities?.includes('image') && !tools.some((tool) => tool.type === 'image_generation')) tools.push({ type: 'image_generation' });
  if (tools.length > 0) {
    body.tools = tools;
    const toolChoice = encodeToolChoice(request.toolChoice, rawToolChoice);
    if (toolChoice !== undefined) body.tool_choice = toolChoice;
    if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  }

  const reasoning = encodeReasoningRequest(request.reasoning, options.baseModel ?? options.upstreamModel);
  if (reasoning) body.reasoning = reasoning;
  // Converted thinking must come back signed (encrypted) so the client can replay it next turn.
  if (request.reasoning?.enabled && request.reasoning.effort !== 'none' && body.include === undefined) body.include = ['reasoning.encrypted_content'];
  if (request.logprobs) {
    // A Chat client's `logprobs`: Responses gives them only when `include` names them.
    const include = Array.isArray(body.include) ? (body.include as unknown[]) : [];
    if (!include.includes(LOGPROBS_INCLUDE)) body.include = [...include, LOGPROBS_INCLUDE];
    if (request.topLogprobs !== undefined) body.top_logprobs = request.topLogprobs;
  }

  const given = typeof textRest === 'object' && textRest !== null ? (textRest as Record<string, unknown>) : undefined;
  // A Chat client's top-level verbosity is Responses' text.verbosity.
  const rest = request.verbosity !== undefined ? { ...given, verbosity: request.verbosity } : given;
  if (request.responseFormat) body.text = { ...rest, format: encodeTextFormat(upstreamFormat(request.responseFormat)) };
  else if (rest) body.text = rest;
  return body;
}

/** A json_schema format strict only where OpenAI's strict mode takes its schema (the response object echoes the client's own). */
function upstreamFormat(format: ResponseFormat): ResponseFormat {
  return format.type === 'json_schema' && format.strict === true ? { ...format, strict: openAIStrict(true, format.schema) } : format;
}
