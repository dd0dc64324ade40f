import type { InboundBody, RequestFacts } from '../types.ts';
import { FieldChecker, isRecord, measureInput, mediaByType, requireBodyShape, requireObjectItems } from '../shared/index.ts';

/** Content part types that carry media (an image, a file, an audio clip). */
const MEDIA = mediaByType(new Set(['image_url', 'file', 'input_audio']));

/**
 * What billing and routing read of a Chat Completions body — all a passthrough reads (the
 * rest is the upstream's to judge): model, stream, the output cap, the input bound, and
 * `prompt_cache_key` (sticky routing).
 */
export function readChatRequest({ body: raw }: InboundBody): RequestFacts {
  const body = requireBodyShape(raw, 'messages');
  requireObjectItems(body.messages as unknown[], 'messages');
  const check = new FieldChecker();
  const stream = check.boolean(body.stream, 'stream') ?? false;
  const maxTokens =
    check.number(body.max_completion_tokens, 'max_completion_tokens', { min: 0, integer: true }) ??
    check.number(body.max_tokens, 'max_tokens', { min: 0, integer: true });
  const promptCacheKey = check.string(body.prompt_cache_key, 'prompt_cache_key');
  check.throwIfAny();
  const input = measureInput([body.messages, body.tools, body.functions, body.response_format], MEDIA);
  const facts: RequestFacts = { model: body.model, stream, inputBound: input.bound, inputEstimate: input.estimate };
  if (maxTokens !== undefined) facts.maxTokens = maxTokens;
  if (promptCacheKey !== undefined) facts.promptCacheKey = promptCacheKey;
  // `web_search_options`: a hosted web search, run by the formats whose face says `hostedWebSearch`.
  if (isRecord(body.web_search_options)) facts.vendorTools = { format: 'chat', types: ['web_search'], webSearch: ['web_search'] };
  // Image output (OpenRouter's `modalities: ['image', 'text']`), as the decoder reads it (audio output has no such path).
  if (Array.isArray(body.modalities) && body.modalities.includes('image') && !body.modalities.includes('audio')) facts.imageOutput = true;
  return facts;
}
