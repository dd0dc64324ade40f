import type { ChatRequest, Usage } from '../ir/index.ts';

/** Token estimate from text length (4 characters a token), for upstreams that never reported usage. */
export function estimateTokens(chars: number): number {
  return chars <= 0 ? 0 : Math.ceil(chars / 4);
}

/** Input tokens estimated from the request's text. */
export function estimateInputTokens(request: ChatRequest): number {
  let chars = 0;
  for (const part of request.system) chars += part.text.length;
  for (const message of request.messages) {
    for (const part of message.content) {
      if (part.type === 'text') chars += part.text.length;
      else if (part.type === 'tool_call') chars += part.arguments.length + part.name.length;
      else if (part.type === 'tool_result') chars += typeof part.content === 'string' ? part.content.length : 200;
      else chars += 200;
    }
  }
  return estimateTokens(chars);
}

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0 };
}
