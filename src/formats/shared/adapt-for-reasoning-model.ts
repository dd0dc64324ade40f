import type { ChatRequest, Message, TextPart, WireFormat } from '../../ir/index.ts';

/**
 * OpenAI reasoning model ids (o1, o3, o4-mini, gpt-5*), with or without a `provider/` prefix; not
 * gpt-5-chat (see isOpenAIChatModelWithoutReasoning).
 */
export function isOpenAIReasoningModel(model: string): boolean {
  const id = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  return /^o\d+(?:$|-)/.test(id) || (id.startsWith('gpt-5') && !isOpenAIChatModelWithoutReasoning(id));
}

/**
 * A model OpenAI itself serves (gpt-*, o-series, chatgpt-*, codex-*, computer-use-*), with or
 * without a `provider/` prefix; not the open-weight gpt-oss, which other vendors serve (Groq's
 * `openai/gpt-oss-120b`).
 */
export function isOpenAIModel(model: string): boolean {
  const id = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  return /^(?:gpt-|o\d|chatgpt-|codex-|computer-use-)/.test(id) && !id.startsWith('gpt-oss');
}

/**
 * gpt-5-chat-latest (and Azure's gpt-5-chat): the GPT-5 of ChatGPT, which does not reason. OpenAI
 * refuses `reasoning_effort` on it and takes sampling parameters and the `system` role. Its
 * gpt-5.1 and later successors (gpt-5.1-chat-latest, …) reason again.
 */
export function isOpenAIChatModelWithoutReasoning(model: string): boolean {
  return model.slice(model.lastIndexOf('/') + 1).toLowerCase().startsWith('gpt-5-chat');
}

/**
 * Adapts a request to what reasoning models accept (spec §4.5). The target format decides the
 * rules; without one it is inferred from the model id (OpenAI reasoning ids → chat rules,
 * `claude` ids → messages rules). Both encoders also apply this themselves, so calling it
 * in the pipeline is optional; it is idempotent.
 */
export function adaptForReasoningModel(request: ChatRequest, model: string, target?: WireFormat): ChatRequest {
  const format = target ?? (isOpenAIReasoningModel(model) ? 'chat' : /claude/i.test(model) ? 'messages' : undefined);
  if (format === 'chat' && isOpenAIReasoningModel(model)) return adaptForOpenAIReasoningModel(request);
  if (format === 'messages') return adaptForAnthropicThinking(request);
  return request;
}

/**
 * OpenAI o-series / gpt-5: no sampling parameters, stop sequences or logprobs, and `system` becomes the `developer` role.
 * The system text moves into developer messages at the head of `messages` (the IR has the
 * role, so no flag is needed; the chat encoder emits roles as they are). The chat encoder
 * sends `max_completion_tokens` instead of `max_tokens` for these models.
 */
export function adaptForOpenAIReasoningModel(request: ChatRequest): ChatRequest {
  const head: Message[] = request.system.map((part) => ({ role: 'developer', content: [toPlainText(part)] }));
  const messages = request.messages.map((message) => (message.role === 'system' ? { ...message, role: 'developer' as const } : message));
  const adapted: ChatRequest = { ...request, system: [], messages: [...head, ...messages] };
  delete adapted.temperature;
  delete adapted.topP;
  delete adapted.presencePenalty;
  delete adapted.frequencyPenalty;
  delete adapted.stop;
  delete adapted.logprobs;
  delete adapted.topLogprobs;
  return adapted;
}

/**
 * Anthropic extended thinking: temperature/top_k must stay default, top_p only 0.95–1, and
 * tool_choice may only be auto/none. When a tool loop continues and the last assistant turn
 * carries no signed thinking (a client that did not send it back), Anthropic would reject the
 * request, so thinking is switched off for that request instead.
 */
export function adaptForAnthropicThinking(request: ChatRequest): ChatRequest {
  if (!request.reasoning?.enabled || request.reasoning.effort === 'none') return request;
  const adapted: ChatRequest = { ...request };
  delete adapted.temperature;
  delete adapted.topK;
  if (adapted.topP !== undefined && adapted.topP < 0.95) delete adapted.topP;
  if (adapted.toolChoice === 'required' || typeof adapted.toolChoice === 'object') adapted.toolChoice = 'auto';
  if (continuesToolLoopWithoutThinking(request.messages)) adapted.reasoning = { ...request.reasoning, enabled: false };
  return adapted;
}

/** The last assistant turn calls tools, their results follow, and it does not start with signed (or redacted) reasoning. */
export function continuesToolLoopWithoutThinking(messages: readonly Message[]): boolean {
  let i = messages.length - 1;
  let hasResult = false;
  for (; i >= 0 && messages[i].role !== 'assistant'; i--) {
    if (messages[i].content.some((part) => part.type === 'tool_result')) hasResult = true;
  }
  if (i < 0 || !hasResult) return false;
  const assistant = messages[i].content;
  if (!assistant.some((part) => part.type === 'tool_call')) return false;
  const first = assistant[0];
  return !(first?.type === 'reasoning' && (Boolean(first.signature) || first.redacted === true));
}

function toPlainText(part: TextPart): TextPart {
  return { type: 'text', text: part.text };
}
