import type { ChatRequest, ChatResponse, Message } from '../../ir/index.ts';

/**
 * The turns a follow-up with `previous_response_id` must prepend: the stored request's messages
 * (its own history included, but never its system/instructions, pitfall 11) and the stored
 * output as one assistant message. Store the request as sent upstream (history already
 * prepended), so one hop back is enough.
 */
export function responseToHistory(storedRequest: ChatRequest, storedResponse: ChatResponse): Message[] {
  const history = [...storedRequest.messages];
  if (storedResponse.content.length > 0) history.push({ role: 'assistant', content: [...storedResponse.content] });
  return history;
}

/**
 * The follow-up request with the history in front; its own instructions stay. The id stays too:
 * the client's answer names it (`previous_response_id`, as OpenAI's does), and no encoder sends
 * it upstream.
 */
export function prependHistory(request: ChatRequest, history: readonly Message[]): ChatRequest {
  return { ...request, messages: [...history, ...request.messages] };
}
