import type { RequestIds } from '../../errors/index.ts';
import type { ChatRequest, StreamPart, Usage } from '../../ir/index.ts';
import { jsonRecord, type SseRecord } from '../../sse/index.ts';
import type { StreamEncoder } from '../types.ts';
import { encodeChatStreamError, encodeChatUsage } from '../chat/index.ts';
import { gatewayErrorOf, generateId, nowSeconds, prefixedId } from '../shared/index.ts';
import { echoesPrompt, promptOf } from './decode-request.ts';
import { encodeCompletionsFinishReason } from './map-response.ts';

/**
 * An encoder of IR stream parts into a legacy Completions stream: `text_completion` chunks of
 * one choice (`text`, `index`, `logprobs: null`, `finish_reason`), the finish in a chunk of
 * empty text, the usage chunk (`choices: []`) only when the client asked for it, then `[DONE]`.
 * `echo` sends the prompt as the first text.
 */
export function createCompletionsStreamEncoder(request: ChatRequest, ids: RequestIds): StreamEncoder {
  return new CompletionsStreamEncoder(request, ids);
}

class CompletionsStreamEncoder implements StreamEncoder {
  private id = generateId('cmpl-');
  private model = '';
  private created = nowSeconds();
  private echo: string | undefined;
  private finished = false;
  private done = false;
  private usage: Usage | undefined;
  private out: SseRecord[] = [];

  constructor(
    private readonly request: ChatRequest,
    private readonly ids: RequestIds,
  ) {
    this.echo = echoesPrompt(request) ? promptOf(request) : undefined;
  }

  encode(part: StreamPart): SseRecord[] {
    if (this.done) return [];
    const out: SseRecord[] = (this.out = []);
    switch (part.type) {
      case 'start':
        this.id = prefixedId('cmpl-', part.id);
        this.model = part.model;
        this.created = part.created;
        if (this.echo) this.chunk(this.echo, null);
        this.echo = undefined;
        break;
      case 'text-delta':
      case 'refusal-delta':
        if (part.text) this.chunk(part.text, null);
        break;
      case 'finish':
        this.finish(encodeCompletionsFinishReason(part.finishReason));
        break;
      case 'usage':
        this.usage = part.usage;
        break;
      case 'error':
        this.done = true;
        out.push(encodeChatStreamError(gatewayErrorOf(part.error), this.ids));
        break;
      case 'end':
        this.done = true;
        this.finish('stop');
        if (this.request.includeUsage === true && this.usage) {
          out.push(jsonRecord(undefined, { id: this.id, object: 'text_completion', created: this.created, model: this.model, choices: [], usage: encodeChatUsage(this.usage) }));
        }
        out.push({ data: '[DONE]' });
        break;
      default:
        break;
    }
    return out;
  }

  private finish(reason: string): void {
    if (this.finished) return;
    this.finished = true;
    this.chunk('', reason);
  }

  private chunk(text: string, finishReason: string | null): void {
    this.out.push(jsonRecord(undefined, { id: this.id, object: 'text_completion', created: this.created, model: this.model, choices: [{ text, index: 0, logprobs: null, finish_reason: finishReason }] }));
  }
}
