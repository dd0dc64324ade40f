import type { ChatRequest, StreamError, StreamPart, Usage } from '../../ir/types.ts';
import type { StreamEncoder } from '../types.ts';
import { redactSecrets } from '../../util/redact-secrets.ts';
import { generateId, nowSeconds, prefixedId } from '../shared/index.ts';
import { openAIErrorType } from './encode-error.ts';
import { encodeChatFinishReason } from './map-finish-reason.ts';
import { reasoningFormat } from './map-reasoning.ts';
import { encodeChatUsage } from './map-usage.ts';
import { ANTHROPIC_REASONING_FORMAT, OPENAI_REASONING_FORMAT, type ChatReasoningDetail } from './types.ts';

/**
 * An encoder of IR stream parts into a Chat Completions stream (wire-formats §1.8, spec §6.1):
 * role chunk first, reasoning as `reasoning_content` + `reasoning_details` deltas, tool calls
 * keyed by index, a finish chunk with `delta:{}`, the usage chunk (`choices:[]`) only when
 * the client asked for it, then `[DONE]`. Every chunk repeats the same id/created/model.
 */
export function createChatStreamEncoder(request: ChatRequest): StreamEncoder {
  return new ChatStreamEncoder(request.includeUsage === true);
}

class ChatStreamEncoder implements StreamEncoder {
  private id = generateId('chatcmpl-');
  private model = '';
  private created = nowSeconds();
  private started = false;
  private finished = false;
  private done = false;
  private usage: Usage | undefined;
  private readonly toolIndex = new Map<number, number>();
  private readonly argsPending = new Set<number>();
  private nextDetail = 0;
  private detail: { index: number; format: string; id?: string } | undefined;

  constructor(private readonly includeUsage: boolean) {}

  encode(part: StreamPart): string {
    if (this.done) return '';
    if (part.type === 'start') {
      this.id = prefixedId('chatcmpl-', part.id);
      this.model = part.model;
      this.created = part.created;
    }
    if (part.type === 'error') return this.error(part.error);
    const head = this.started ? '' : this.roleChunk();
    return head + this.body(part);
  }

  private body(part: StreamPart): string {
    switch (part.type) {
      case 'text-delta':
        return part.text ? this.chunk({ content: part.text }) : '';
      case 'refusal-delta':
        return part.text ? this.chunk({ refusal: part.text }) : '';
      case 'reasoning-start':
        this.detail = { index: this.nextDetail++, format: reasoningFormat(part), ...(part.itemId ? { id: part.itemId } : {}) };
        return '';
      case 'reasoning-delta': {
        if (!part.text) return '';
        const detail = this.currentDetail();
        return this.chunk({ reasoning_content: part.text, reasoning_details: [{ type: 'reasoning.text', text: part.text, ...detail }] });
      }
      case 'reasoning-signature':
        return this.details({ type: 'reasoning.text', text: '', signature: part.signature, ...this.currentDetail() });
      case 'reasoning-end': {
        const id = this.detail?.id;
        this.detail = undefined;
        if (part.encrypted === undefined) return '';
        return this.details({ type: 'reasoning.encrypted', data: part.encrypted, format: OPENAI_REASONING_FORMAT, index: this.nextDetail++, ...(id ? { id } : {}) });
      }
      case 'redacted-reasoning':
        return this.details({ type: 'reasoning.encrypted', data: part.data, format: ANTHROPIC_REASONING_FORMAT, index: this.nextDetail++ });
      case 'tool-call-start': {
        const index = this.toolIndex.size;
        this.toolIndex.set(part.index, index);
        this.argsPending.add(part.index);
        return this.chunk({ tool_calls: [{ index, id: part.id, type: 'function', function: { name: part.name, arguments: '' } }] });
      }
      case 'tool-call-delta': {
        const index = this.toolIndex.get(part.index);
        if (index === undefined || part.argumentsDelta === '') return '';
        this.argsPending.delete(part.index);
        return this.chunk({ tool_calls: [{ index, function: { arguments: part.argumentsDelta } }] });
      }
      case 'tool-call-end': {
        // A call that got no argument text (a no-argument tool) still ends as valid JSON.
        const index = this.toolIndex.get(part.index);
        if (index === undefined || !this.argsPending.delete(part.index)) return '';
        return this.chunk({ tool_calls: [{ index, function: { arguments: '{}' } }] });
      }
      case 'finish':
        return this.finish(encodeChatFinishReason(part.finishReason));
      case 'usage':
        this.usage = part.usage;
        return '';
      case 'end':
        return this.end();
      default:
        return '';
    }
  }

  private end(): string {
    this.done = true;
    let out = this.finished ? '' : this.finish('stop');
    if (this.includeUsage && this.usage) {
      out += sse({ id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices: [], usage: encodeChatUsage(this.usage) });
    }
    return `${out}data: [DONE]\n\n`;
  }

  private finish(reason: string): string {
    if (this.finished) return '';
    this.finished = true;
    return this.chunk({}, reason);
  }

  /**
   * A mid-stream error as OpenAI-style `data: {"error":…}`. No `[DONE]` follows: clients
   * treat the error as the end, and `[DONE]` would read as a normal completion.
   */
  private error(error: StreamError): string {
    this.done = true;
    return sse({ error: { message: redactSecrets(error.message), type: openAIErrorType(error.status, error.code), param: null, code: error.code } });
  }

  /** The open reasoning detail's fields, in OpenRouter's key order (format, index, id). */
  private currentDetail(): { format: string; index: number; id?: string } {
    this.detail ??= { index: this.nextDetail++, format: ANTHROPIC_REASONING_FORMAT };
    const { format, index, id } = this.detail;
    return id ? { format, index, id } : { format, index };
  }

  private details(detail: ChatReasoningDetail): string {
    return this.chunk({ reasoning_details: [detail] });
  }

  private roleChunk(): string {
    this.started = true;
    return this.chunk({ role: 'assistant', content: '' });
  }

  private chunk(delta: Record<string, unknown>, finishReason: string | null = null): string {
    return sse({
      id: this.id,
      object: 'chat.completion.chunk',
      created: this.created,
      model: this.model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    });
  }
}

function sse(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}
