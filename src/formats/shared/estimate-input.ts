import type { ChatRequest } from '../../ir/index.ts';

/** Token estimate from text length (4 characters a token), for what an upstream has not reported (yet). */
export function estimateTokens(chars: number): number {
  return chars <= 0 ? 0 : Math.ceil(chars / 4);
}

/**
 * Input tokens estimated from the request's text and tool definitions (upstreams bill those too),
 * 200 characters for a media part: what billing charges when an upstream never reports usage, and
 * what a converted Messages stream's `message_start` says before the upstream's count comes.
 */
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
  for (const tool of request.tools ?? []) chars += tool.name.length + (tool.description?.length ?? 0) + (tool.parameters ? JSON.stringify(tool.parameters).length : 0);
  return estimateTokens(chars);
}
