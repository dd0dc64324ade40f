/** Wire shapes the chat encoders emit (OpenAI Chat Completions, wire-formats §1). */

/** OpenRouter-style reasoning detail: carries Anthropic signatures and opaque data through Chat. */
export type ChatReasoningDetail =
  | { type: 'reasoning.text'; text: string; signature?: string; format: string; index: number; id?: string }
  | { type: 'reasoning.summary'; summary: string; format: string; index: number; id?: string }
  | { type: 'reasoning.encrypted'; data: string; format: string; index: number; id?: string };

export type ChatToolCall =
  | { id: string; type: 'function'; function: { name: string; arguments: string } }
  /** A custom (freeform) tool's call: its text in `input`. */
  | { id: string; type: 'custom'; custom: { name: string; input: string } };

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number; cache_write_tokens?: number };
  completion_tokens_details: { reasoning_tokens: number };
}

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

/** `format` values of reasoning details. */
export const ANTHROPIC_REASONING_FORMAT = 'anthropic-claude-v1';
export const OPENAI_REASONING_FORMAT = 'openai-responses-v1';
export const GOOGLE_REASONING_FORMAT = 'google-gemini-v1';
/** OpenRouter's label for reasoning whose model's format it cannot name (DeepSeek's or vLLM's plain `reasoning_content`). */
export const UNKNOWN_REASONING_FORMAT = 'unknown';
