import { creditsToUsd, roundCredits } from '../billing/index.ts';
import type { LedgerRecord } from '../store/index.ts';

/** OpenRouter's `api_type` of a gateway endpoint (its enum: completions, embeddings, tts, stt, video, compaction…); null for one it has no word for. */
function apiTypeOf(endpoint: string): string | null {
  if (endpoint === '/v1/embeddings') return 'embeddings';
  if (endpoint === '/v1/audio/speech') return 'tts';
  if (endpoint.startsWith('/v1/audio/')) return 'stt';
  if (endpoint.startsWith('/v1/videos')) return 'video';
  if (endpoint === '/v1/responses/compact') return 'compaction';
  if (endpoint.startsWith('/v1/images')) return null;
  return 'completions';
}

/**
 * OpenRouter's normalized finish reason (stop, length, tool_calls, content_filter, error) of the
 * one a ledger line kept: the upstream's own word for a passed-through answer (Anthropic's
 * `end_turn`, Google's `MAX_TOKENS`, a Response's `incomplete`), the gateway's for a converted
 * one (already normalized). A word it has no mapping for stays as it is.
 */
const NORMALIZED_FINISH: Readonly<Record<string, string>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  function_call: 'tool_calls',
  refusal: 'content_filter',
  completed: 'stop',
  incomplete: 'length',
  failed: 'error',
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
  MALFORMED_FUNCTION_CALL: 'error',
  OTHER: 'stop',
};

function normalizeFinishReason(reason: string | undefined): string | null {
  if (reason === undefined || reason === null) return null;
  return Object.hasOwn(NORMALIZED_FINISH, reason) ? NORMALIZED_FINISH[reason] : reason;
}

/**
 * GET /v1/generation body: one settled request in OpenRouter's shape (`GET /api/v1/generation`),
 * from its usage-ledger line. Amounts in USD as `/v1/key` says them (`total_cost`, `usage`: what
 * was charged), the gateway's own beside them (`usage_credits`, `cost_credits`, `endpoint`,
 * `estimated`). The answer's own id is `upstream_id`; `finish_reason` is normalized as OpenRouter's,
 * `native_finish_reason` the one the line kept; what the line does not keep (the generation time,
 * the client's headers; all of it on lines written before these fields) is null, as OpenRouter
 * has it when it does not know.
 */
export function buildGenerationView(entry: LedgerRecord) {
  const charged = entry.charged_credits ?? entry.cost_credits ?? 0;
  const created = new Date(entry.ts).toISOString();
  const latency = entry.latency_ms ?? null;
  // A line that has a latency was written with these fields: no `streamed` on it is a whole answer.
  const streamed = entry.streamed === true ? true : latency === null ? null : false;
  return {
    data: {
      id: entry.request_id,
      upstream_id: entry.answer_id ?? null,
      total_cost: creditsToUsd(charged),
      usage: creditsToUsd(charged),
      cache_discount: null,
      upstream_inference_cost: null,
      created_at: created,
      model: entry.model,
      app_id: null,
      streamed,
      cancelled: entry.aborted,
      provider_name: entry.provider,
      latency,
      moderation_latency: null,
      generation_time: null,
      finish_reason: normalizeFinishReason(entry.finish_reason),
      native_finish_reason: entry.finish_reason ?? null,
      tokens_prompt: entry.input_tokens,
      tokens_completion: entry.output_tokens,
      native_tokens_prompt: entry.input_tokens,
      native_tokens_completion: entry.output_tokens,
      native_tokens_completion_images: null,
      native_tokens_reasoning: entry.reasoning_tokens,
      native_tokens_cached: entry.cached_tokens,
      num_media_prompt: null,
      num_input_audio_prompt: null,
      num_media_completion: entry.media?.images ?? null,
      num_search_results: null,
      num_fetches: null,
      origin: '',
      is_byok: false,
      api_type: apiTypeOf(entry.endpoint),
      external_user: null,
      http_referer: null,
      user_agent: null,
      router: null,
      service_tier: null,
      web_search_engine: null,
      provider_responses: null,
      request_id: entry.request_id,
      // The gateway's own: the same charge in credits, the price before what the balance allowed, the route, the usage estimated from text.
      usage_credits: roundCredits(charged),
      cost_credits: roundCredits(entry.cost_credits),
      endpoint: entry.endpoint,
      estimated: entry.estimated,
      web_search_requests: entry.web_search_requests ?? 0,
      currency: 'USD',
    },
  };
}
