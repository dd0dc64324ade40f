import type { ChatRequest, ReasoningConfig, ResponseFormat } from '../../ir/index.ts';
import { FieldChecker, asksForUsageCost, assignDefined as set, collectExtra, decodeOpenRouterReasoning, isReasoningEffort, isRecord, requireBodyShape } from '../shared/index.ts';
import { decodeChatMessages } from './decode-messages.ts';
import { decodeWebSearchOptions } from './map-web-search.ts';
import { decodeChatToolChoice, decodeChatTools } from './decode-tools.ts';

/** Body fields mapped into the IR; everything else is kept in `extra`. */
const MAPPED = new Set([
  'model', 'messages', 'stream', 'stream_options', 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p',
  'top_k', 'n', 'stop', 'seed', 'presence_penalty', 'frequency_penalty', 'tools', 'functions', 'tool_choice',
  'function_call', 'parallel_tool_calls', 'response_format', 'reasoning_effort', 'thinking', 'user', 'metadata',
  'prompt_cache_key', 'prompt_cache_retention', 'prompt_cache_options',
]);

/** A Chat Completions request body → IR. Throws 400 for a wrong shape, 422 for invalid values. */
export function decodeChatRequest(raw: unknown): ChatRequest {
  const body = requireBodyShape(raw, 'messages');
  const check = new FieldChecker();
  const { system, messages, unconvertible } = decodeChatMessages(body.messages as unknown[], check);
  const request: ChatRequest = {
    model: body.model,
    system,
    messages,
    stream: check.boolean(body.stream, 'stream') ?? false,
  };
  const streamOptions = check.record(body.stream_options, 'stream_options');
  // OpenRouter's `usage: {include: true}` asks a stream for its usage chunk too: read below, from `extra`, where it is kept.
  if (streamOptions?.include_usage === true) request.includeUsage = true;

  const maxTokens =
    check.number(body.max_completion_tokens, 'max_completion_tokens', { min: 0, integer: true }) ??
    check.number(body.max_tokens, 'max_tokens', { min: 0, integer: true });
  set(request, 'maxTokens', maxTokens);
  set(request, 'temperature', check.number(body.temperature, 'temperature', { min: 0, max: 2 }));
  set(request, 'topP', check.number(body.top_p, 'top_p', { min: 0, max: 1 }));
  set(request, 'topK', check.number(body.top_k, 'top_k', { min: 0, integer: true }));
  set(request, 'n', check.number(body.n, 'n', { min: 1, integer: true }));
  set(request, 'stop', check.stringList(body.stop, 'stop'));
  set(request, 'seed', check.number(body.seed, 'seed', { integer: true }));
  set(request, 'presencePenalty', check.number(body.presence_penalty, 'presence_penalty', { min: -2, max: 2 }));
  set(request, 'frequencyPenalty', check.number(body.frequency_penalty, 'frequency_penalty', { min: -2, max: 2 }));
  set(request, 'promptCacheKey', check.string(body.prompt_cache_key, 'prompt_cache_key'));
  set(request, 'promptCacheRetention', check.string(body.prompt_cache_retention, 'prompt_cache_retention'));
  set(request, 'promptCacheOptions', check.record(body.prompt_cache_options, 'prompt_cache_options'));

  const { tools, toolChoice } = decodeChatToolChoice(body, decodeChatTools(body, check), check);
  set(request, 'tools', tools);
  set(request, 'toolChoice', toolChoice);
  set(request, 'parallelToolCalls', check.boolean(body.parallel_tool_calls, 'parallel_tool_calls'));
  set(request, 'reasoning', decodeReasoning(body, check));
  // Whatever else sets the effort (the client's own reasoning_effort wins over the object's), `exclude` keeps the reasoning out of the answer.
  if (isRecord(body.reasoning) && body.reasoning.exclude === true) request.excludeReasoning = true;
  set(request, 'responseFormat', decodeResponseFormat(body.response_format, check));
  set(request, 'user', check.string(body.user, 'user'));
  set(request, 'metadata', check.stringMap(body.metadata, 'metadata'));
  // Also kept in `extra` (not MAPPED): a Chat upstream takes them as written; a Responses upstream gets them from here.
  set(request, 'store', check.boolean(body.store, 'store'));
  set(request, 'serviceTier', check.string(body.service_tier, 'service_tier'));
  set(request, 'verbosity', check.string(body.verbosity, 'verbosity'));
  set(request, 'safetyIdentifier', check.string(body.safety_identifier, 'safety_identifier'));
  if (check.boolean(body.logprobs, 'logprobs') === true) request.logprobs = true;
  set(request, 'topLogprobs', check.number(body.top_logprobs, 'top_logprobs', { min: 0, max: 20, integer: true }));
  // Kept in `extra` too: a Chat upstream (a search model) takes it as written.
  set(request, 'webSearch', decodeWebSearchOptions(body.web_search_options));
  const extra = collectExtra(body, MAPPED);
  if (extra !== undefined) {
    request.extra = extra;
    // OpenRouter's usage accounting (kept in `extra`, so a Chat upstream still gets it as written): a stream then has its usage chunk.
    if (asksForUsageCost(extra.usage)) {
      request.reportCost = true;
      if (request.stream) request.includeUsage = true;
    }
  }
  check.throwIfAny();
  // Audio output: the IR answer holds no audio, so a conversion would answer text only.
  if (Array.isArray(body.modalities) && body.modalities.includes('audio')) unconvertible.push({ field: 'modalities', message: 'audio output has no equivalent in another format' });
  // Image output (OpenRouter's `modalities: ['image', 'text']`): an image model's images come back in `message.images`.
  else if (Array.isArray(body.modalities) && body.modalities.includes('image')) {
    request.outputModalities = body.modalities.filter((m): m is 'text' | 'image' => m === 'text' || m === 'image');
  }
  if (unconvertible.length > 0) request.unconvertible = unconvertible;
  return request;
}

/**
 * `reasoning_effort` and the non-standard `thinking: {type, budget_tokens}` the spec accepts; else
 * OpenRouter's `reasoning: {effort, max_tokens, enabled}` (what apps and SDKs written for OpenRouter
 * send). The object is also kept in `extra`, so a Chat upstream gets it as written.
 */
function decodeReasoning(body: Record<string, unknown>, check: FieldChecker): ReasoningConfig | undefined {
  let config: ReasoningConfig | undefined;
  if (body.thinking === undefined && (body.reasoning_effort === undefined || body.reasoning_effort === null)) return decodeOpenRouterReasoning(body.reasoning, check);
  const thinking = check.record(body.thinking, 'thinking');
  if (thinking) {
    const type = check.requiredOneOf(thinking.type, 'thinking.type', ['enabled', 'disabled', 'adaptive'] as const);
    config = { enabled: type !== 'disabled' };
    const budget = check.number(thinking.budget_tokens, 'thinking.budget_tokens', { min: 1, integer: true });
    if (budget !== undefined) config.budgetTokens = budget;
  }
  if (body.reasoning_effort !== undefined && body.reasoning_effort !== null) {
    if (!isReasoningEffort(body.reasoning_effort)) {
      check.fail('reasoning_effort', 'must be one of none, minimal, low, medium, high, xhigh, max');
    } else {
      config = { ...config, enabled: body.reasoning_effort !== 'none', effort: body.reasoning_effort };
    }
  }
  return config;
}

function decodeResponseFormat(value: unknown, check: FieldChecker): ResponseFormat | undefined {
  const format = check.record(value, 'response_format');
  if (!format) return undefined;
  const type = check.requiredOneOf(format.type, 'response_format.type', ['text', 'json_object', 'json_schema'] as const);
  if (type !== 'json_schema') return type ? { type } : undefined;
  const spec = check.requiredRecord(format.json_schema, 'response_format.json_schema');
  if (!spec) return undefined;
  const out: ResponseFormat = { type: 'json_schema' };
  const name = check.string(spec.name, 'response_format.json_schema.name');
  const description = check.string(spec.description, 'response_format.json_schema.description');
  const schema = check.record(spec.schema, 'response_format.json_schema.schema');
  const strict = check.boolean(spec.strict, 'response_format.json_schema.strict');
  if (name !== undefined) out.name = name;
  if (description !== undefined) out.description = description;
  if (schema) out.schema = schema;
  if (strict !== undefined) out.strict = strict;
  return out;
}
