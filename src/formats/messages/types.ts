/** Wire shapes the messages encoders emit (Anthropic Messages, wire-formats §2). */

export interface MessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  /** The cache writes by TTL; only when the 1-hour part is known. */
  cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  /** Only when reasoning tokens are known (Anthropic's newer usage field). */
  output_tokens_details?: { thinking_tokens: number };
  /** Server tools the upstream ran and bills per use. */
  server_tool_use?: { web_search_requests: number };
}

export type MessagesStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal';

export type MessagesSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'url'; url: string }
  | { type: 'text'; media_type: string; data: string }
  | { type: 'file'; file_id: string };

export type MessagesBlock = { type: string; [field: string]: unknown };

export interface MessagesMessage {
  role: 'user' | 'assistant';
  content: MessagesBlock[];
}
