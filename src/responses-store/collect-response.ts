import type { ChatResponse, ContentPart, ReasoningPart, StreamPart, TextPart, ToolCallPart } from '../ir/index.ts';

/** Builds the complete response from stream parts, as a client reading the stream would. */
export class ResponseCollector {
  private id = '';
  private model = '';
  private created = 0;
  private readonly content: ContentPart[] = [];
  private text: TextPart | undefined;
  private reasoning: ReasoningPart | undefined;
  private readonly tools = new Map<number, ToolCallPart>();
  private finishReason: ChatResponse['finishReason'] = 'stop';
  private usage: ChatResponse['usage'] = { inputTokens: 0, outputTokens: 0 };
  failed = false;
  /** Characters of text, reasoning, signatures and tool arguments collected so far (a lower bound of the stored bytes). */
  chars = 0;

  push(part: StreamPart): void {
    switch (part.type) {
      case 'start':
        this.id = part.id;
        this.model = part.model;
        this.created = part.created;
        break;
      case 'text-start':
        this.text = part.itemId ? { type: 'text', text: '', itemId: part.itemId } : { type: 'text', text: '' };
        this.content.push(this.text);
        break;
      case 'text-delta':
        if (!this.text) this.push({ type: 'text-start' });
        this.chars += part.text.length;
        this.text!.text += part.text;
        break;
      case 'text-end':
        if (this.text && part.providerMetadata) this.text.providerMetadata = part.providerMetadata;
        this.text = undefined;
        break;
      case 'reasoning-start':
        this.reasoning = { type: 'reasoning', text: '', itemId: part.itemId };
        this.content.push(this.reasoning);
        break;
      case 'reasoning-delta':
        if (!this.reasoning) this.push({ type: 'reasoning-start' });
        this.chars += part.text.length;
        this.reasoning!.text += part.text;
        break;
      case 'reasoning-signature':
        this.chars += part.signature.length;
        if (this.reasoning) this.reasoning.signature = part.signature;
        break;
      case 'reasoning-end':
        if (this.reasoning && part.encrypted) {
          this.chars += part.encrypted.length;
          this.reasoning.encrypted = part.encrypted;
        }
        if (this.reasoning && part.providerMetadata) this.reasoning.providerMetadata = part.providerMetadata;
        this.reasoning = undefined;
        break;
      case 'redacted-reasoning':
        this.chars += part.data.length;
        this.content.push({ type: 'reasoning', text: '', redacted: true, data: part.data });
        break;
      case 'tool-call-start': {
        const call: ToolCallPart = { type: 'tool_call', id: part.id, name: part.name, arguments: '', itemId: part.itemId };
        if (part.providerMetadata) call.providerMetadata = part.providerMetadata;
        this.tools.set(part.index, call);
        this.content.push(call);
        break;
      }
      case 'tool-call-delta': {
        const call = this.tools.get(part.index);
        this.chars += part.argumentsDelta.length;
        if (call) call.arguments += part.argumentsDelta;
        break;
      }
      case 'finish':
        this.finishReason = part.finishReason;
        break;
      case 'usage':
        this.usage = part.usage;
        break;
      case 'error':
        this.failed = true;
        break;
      default:
        break;
    }
  }

  result(): ChatResponse {
    return { id: this.id, model: this.model, created: this.created, content: this.content, finishReason: this.finishReason, usage: this.usage };
  }
}
