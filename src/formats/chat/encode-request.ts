import { validationError } from '../../errors/index.ts';
import type { ChatRequest, ReasoningConfig, ResponseFormat, ToolChoice, ToolDefinition } from '../../ir/index.ts';
import type { EncodeRequestOptions } from '../types.ts';
import { adaptForOpenAIReasoningModel, budgetTokensToEffort, isOpenAIModel, isOpenAIReasoningModel, openAIEffortFor, openAIStrict, openaiUser } from '../shared/index.ts';
import { encodeChatMessages } from './encode-messages.ts';

/** Encoder options; `assistantReasoning` is Chat-specific and optional. */
export interface ChatEncodeRequestOptions extends EncodeRequestOptions {
  /**
   * What to do with reasoning on earlier assistant turns: 'drop' (default; OpenAI neither
   * uses nor accepts it) or 'send' it as `reasoning_content` + `reasoning_details` for
   * upstreams that want it back (OpenRouter in front of Claude, DeepSeek tool loops).
   */
  assistantReasoning?: 'drop' | 'send';
}

/**
 * IR → a Chat Completions request body for an upstream. OpenAI reasoning models (o-series,
 * gpt-5) get the spec §4.5 adaptation here: no sampling parameters, `developer` instead of
 * `system`, and `max_completion_tokens` instead of `max_tokens`. Streams always ask for
 * usage, which billing and the Messages stream encoder need.
 */
export function encodeChatRequest(input: ChatRequest, options: ChatEncodeRequestOptions): Record<string, unknown> {
  // A converted answer is read as its first choice: `n` > 1 would bill choices the client never sees (a Chat client's own `n` passes through).
  if (input.n !== undefined && input.n > 1) throw validationError({ n: 'must be 1: the gateway reads a single choice from a converted OpenAI Chat answer' });
  const model = options.baseModel ?? options.upstreamModel;
  const reasoningModel = isOpenAIReasoningModel(model);
  const request = reasoningModel ? adaptForOpenAIReasoningModel(input) : input;
  const body: Record<string, unknown> = { ...request.extra, model: options.upstreamModel };
  body.messages = encodeChatMessages(request.system, request.messages, options.assistantReasoning === 'send', options.upstreamModel);
  if (request.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  if (request.maxTokens !== undefined) body[reasoningModel ? 'max_completion_tokens' : 'max_tokens'] = request.maxTokens;
  put(body, 'temperature', request.temperature);
  put(body, 'top_p', request.topP);
  put(body, 'stop', request.stop && request.stop.length > 0 ? request.stop : undefined);
  put(body, 'seed', request.seed);
  put(body, 'presence_penalty', request.presencePenalty);
  put(body, 'frequency_penalty', request.frequencyPenalty);
  if (request.logprobs) {
    body.logprobs = true;
    put(body, 'top_logprobs', request.topLogprobs);
  }
  if (request.tools && request.tools.length > 0) body.tools = request.tools.map(encodeTool);
  put(body, 'tool_choice', request.toolChoice && encodeToolChoice(request.toolChoice));
  put(body, 'parallel_tool_calls', request.parallelToolCalls);
  put(body, 'reasoning_effort', request.reasoning && encodeReasoningEffort(request.reasoning, model));
  put(body, 'response_format', request.responseFormat && encodeResponseFormat(request.responseFormat));
  // Images in the answer (OpenRouter's and LiteLLM's image models); prepareCall sends it only to a model that makes them.
  put(body, 'modalities', request.outputModalities?.includes('image') ? request.outputModalities : undefined);
  put(body, 'user', openaiUser(request.user));
  // OpenAI's own fields; a converted request (Codex's prompt_cache_key) sends them to OpenAI's models only:
  // other Chat servers refuse unknown ones (Groq: 400 "property 'prompt_cache_key' is unsupported").
  if (!options.converted || isOpenAIModel(model)) {
    put(body, 'prompt_cache_key', request.promptCacheKey);
    put(body, 'prompt_cache_retention', request.promptCacheRetention);
    put(body, 'prompt_cache_options', request.promptCacheOptions);
    // Set by a Chat client too (then also in `extra`, the same value); a Responses client's come from the IR alone.
    put(body, 'service_tier', request.serviceTier);
    put(body, 'safety_identifier', request.safetyIdentifier);
  }
  // Only GPT-5 takes `verbosity` (others: 400, "property 'verbosity' is unsupported" on Groq); a Chat client's own goes as written, in `extra`.
  if (takesVerbosity(model)) put(body, 'verbosity', request.verbosity);
  // OpenAI accepts metadata only for stored completions.
  if (request.metadata && body.store === true) body.metadata = request.metadata;
  return body;
}

/** OpenAI's GPT-5 family (gpt-5-chat-latest aside) takes `verbosity`; other models refuse any value but the default. */
function takesVerbosity(model: string): boolean {
  return isOpenAIReasoningModel(model) && model.slice(model.lastIndexOf('/') + 1).toLowerCase().startsWith('gpt-5');
}

function put(body: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== undefined) body[key] = value;
}

/** IR tool → Chat function tool. */
export function encodeTool(tool: ToolDefinition): Record<string, unknown> {
  const fn: Record<string, unknown> = { name: tool.name };
  put(fn, 'description', tool.description);
  put(fn, 'parameters', tool.parameters);
  put(fn, 'strict', openAIStrict(tool.strict, tool.parameters));
  return { type: 'function', function: fn };
}

function encodeToolChoice(choice: ToolChoice): unknown {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

/**
 * Effort wins; a thinking budget maps to the nearest effort; fitted to an OpenAI model's efforts
 * (`enabled:false` alone: its least; elsewhere nothing).
 */
function encodeReasoningEffort(reasoning: ReasoningConfig, model: string): string | undefined {
  const asked = reasoning.effort ?? (reasoning.enabled && reasoning.budgetTokens !== undefined ? budgetTokensToEffort(reasoning.budgetTokens) : undefined);
  return openAIEffortFor(model, reasoning, asked);
}

function encodeResponseFormat(format: ResponseFormat): Record<string, unknown> {
  if (format.type !== 'json_schema') return { type: format.type };
  const spec: Record<string, unknown> = { name: format.name ?? 'response' };
  put(spec, 'description', format.description);
  put(spec, 'schema', format.schema);
  put(spec, 'strict', openAIStrict(format.strict, format.schema));
  return { type: 'json_schema', json_schema: spec };
}
