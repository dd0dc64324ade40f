import type { ChatRequest, Message } from '../../ir/index.ts';
import { validationError } from '../../errors/index.ts';
import type { EncodeRequestOptions } from '../types.ts';
import { assignDefined as put, openaiUser } from '../shared/index.ts';
import { COMPLETIONS_DEFAULT_MAX_TOKENS } from './decode-request.ts';

const SPEAKER: Record<string, string> = { user: 'User', assistant: 'Assistant', tool: 'Tool' };

/** A message's text; a part a prompt cannot hold (an image, a tool call) is a 422 naming it. */
function textOf(message: Message, index: number): string {
  return message.content
    .map((part, at) => {
      if (part.type === 'text') return part.text;
      if (part.type === 'reasoning') return '';
      throw validationError({ [`messages[${index}].content[${at}]`]: `a ${part.type} part has no place in a legacy Completions prompt (text only)` });
    })
    .join('');
}

/**
 * The prompt for a request: one user turn (what a Completions client sent) is its text as it
 * was; a conversation becomes a transcript (system text, then `User:` / `Assistant:` turns, ending
 * with `Assistant:` for the model to go on), the usual way to prompt a base model.
 */
function promptOf(request: ChatRequest): string {
  const only = request.messages.length === 1 && request.messages[0].role === 'user' && request.system.length === 0 ? request.messages[0] : undefined;
  if (only) return textOf(only, 0);
  const lines = request.system.map((part) => part.text);
  request.messages.forEach((message, index) => {
    const text = textOf(message, index);
    if (message.role === 'system' || message.role === 'developer') lines.push(text);
    else lines.push(`${SPEAKER[message.role]}: ${text}`);
  });
  lines.push('Assistant:');
  return lines.join('\n\n');
}

/**
 * IR → a legacy Completions body for an upstream that serves `/v1/completions` (a base model on
 * vLLM, `gpt-3.5-turbo-instruct`). Tools and structured output have no place in it: a 422 naming them.
 */
export function encodeCompletionsRequest(request: ChatRequest, options: EncodeRequestOptions): Record<string, unknown> {
  if (request.tools && request.tools.length > 0) throw validationError({ tools: 'a legacy Completions upstream runs no tools' });
  const body: Record<string, unknown> = { model: options.upstreamModel, prompt: promptOf(request) };
  if (request.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  body.max_tokens = request.maxTokens ?? options.defaultMaxTokens ?? COMPLETIONS_DEFAULT_MAX_TOKENS;
  put(body, 'temperature', request.temperature);
  put(body, 'top_p', request.topP);
  put(body, 'stop', request.stop && request.stop.length > 0 ? request.stop : undefined);
  put(body, 'seed', request.seed);
  put(body, 'presence_penalty', request.presencePenalty);
  put(body, 'frequency_penalty', request.frequencyPenalty);
  put(body, 'user', openaiUser(request.user));
  return body;
}
