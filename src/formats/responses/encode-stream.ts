import type { RequestIds } from '../../errors/index.ts';
import type { ChatRequest, FinishReason, MediaSource, ProviderMetadata, StreamError, StreamPart, TokenLogprob, UrlCitation, Usage, WebSearchPart } from '../../ir/index.ts';
import { annotationOf, webSearchCallItem } from './map-web-search.ts';
import { jsonRecord, type SseRecord } from '../../sse/index.ts';
import { redactSecrets } from '../../util/index.ts';
import type { StreamEncoder } from '../types.ts';
import { encodeLogprobs, gatewayErrorOf, toolIdForClient } from '../shared/index.ts';
import { buildResponseObject, type ResponseObjectState } from './build-response-object.ts';
import { compactionItem } from './compaction.ts';
import { createItemId, createReasoningItemId, functionCallItemIdFor, responseIdFor, storedItemId } from './create-id.ts';
import { encodeResponsesStreamError, failedResponseCode } from './encode-error.ts';
import { encryptedContentFor, functionCallItem, imageGenerationCallItem, messageItem, outputTextPart, reasoningItem, refusalPart } from './encode-output.ts';
import { statusForFinish, type ResponseStatus } from './map-status.ts';
import { encodeUsage } from './map-usage.ts';
import { splitToolName } from './map-namespace.ts';
import { customToolCallItem, customToolInput, isCustomTool } from './map-custom-tool.ts';
import { isLocalShellTool, localShellCallItem } from './map-local-shell.ts';
import { shellCallItem, shellToolKind, type ShellToolKind } from './map-shell-tools.ts';

type Item = Record<string, unknown>;

interface OpenPart { kind: 'text' | 'refusal'; index: number; text: string; annotations?: Item[]; wholePart?: UrlCitation[]; logprobs?: Item[] }
interface OpenMessage { id: string; outputIndex: number; parts: Item[]; part?: OpenPart }
interface OpenReasoning { id: string; outputIndex: number; summaries: string[]; current?: string; signature?: string }
/**
 * A call being streamed. `kind`: a custom tool's text, or a local_shell, shell or apply_patch
 * call's action, is given out whole once its arguments are in (a function's arguments as they
 * come). An apply_patch call's item is added then too (`outputIndex` -1 until then): its
 * `output_item.added` already names the operation and the file, as OpenAI's does.
 */
interface OpenCall { id: string; callId: string; name: string; namespace: string | undefined; outputIndex: number; args: string; kind: 'function' | 'custom' | 'local_shell' | ShellToolKind }

/**
 * IR stream parts → Responses SSE (wire-formats §3.6, §4.8). Sequence numbers start at 0;
 * one message item per contiguous text run; every item gets its `.done` events before the
 * terminal event, whose `response.output` holds the final items. The terminal event waits
 * for usage (Chat upstreams send it after the finish) or the end of the stream.
 */
class ResponsesStreamEncoder implements StreamEncoder {
  private seq = 0;
  private phase: 'new' | 'open' | 'done' = 'new';
  private id = '';
  private model: string;
  private createdAt = 0;
  private readonly output: Item[] = [];
  private message: OpenMessage | undefined;
  private reasoning: OpenReasoning | undefined;
  private readonly calls = new Map<number, OpenCall>();
  /** Hosted web searches begun (call id → query): announced whole when their results come (see openSearch). */
  private readonly searches = new Map<string, string | undefined>();
  private finishReason: FinishReason | undefined;
  private usage: Usage | undefined;
  private startUsage: Partial<Usage> | undefined;
  /** The records of the part being encoded. */
  private out: SseRecord[] = [];
  /** A compaction (request.compaction): the summary so far, given out as one `compaction` item at the end. */
  private summary: string | undefined;

  constructor(
    private readonly request: ChatRequest,
    private readonly ids: RequestIds,
  ) {
    this.model = request.model;
    if (request.compaction) this.summary = '';
  }

  encode(part: StreamPart): SseRecord[] {
    if (this.phase === 'done') return [];
    const out: SseRecord[] = (this.out = []);
    if (this.phase === 'new') this.begin(part.type === 'start' ? part : undefined);
    if (this.summary !== undefined && this.summarize(part)) return out;
    switch (part.type) {
      case 'start':
        break;
      case 'text-start':
        this.openTextPart(part.itemId);
        break;
      case 'text-delta':
        this.textDelta(part.text, part.logprobs);
        break;
      case 'text-end':
        this.closePart();
        break;
      case 'refusal-delta':
        this.refusalDelta(part.text);
        break;
      case 'text-citation':
        this.citation(part.citation);
        break;
      case 'web-search-start':
        this.closeMessage();
        this.closeReasoning(undefined);
        this.searches.set(part.id, part.query);
        break;
      case 'web-search-end':
        this.search(part.part);
        break;
      case 'image':
        this.image(part.source, part.providerMetadata);
        break;
      case 'reasoning-start':
        this.openReasoning(part.itemId);
        break;
      case 'reasoning-delta':
        this.reasoningDelta(part.text);
        break;
      case 'reasoning-signature':
        if (this.reasoning) this.reasoning.signature = part.signature;
        break;
      case 'reasoning-end':
        this.closeReasoning(part.encrypted, part.providerMetadata);
        break;
      case 'redacted-reasoning':
        this.openReasoning(undefined);
        this.closeReasoning(encryptedContentFor({ redacted: true, data: part.data }));
        break;
      case 'tool-call-start':
        this.openCall(part.index, toolIdForClient(part.id, part.providerMetadata), part.name, part.itemId);
        break;
      case 'tool-call-delta':
        this.callDelta(part.index, part.argumentsDelta);
        break;
      case 'tool-call-end':
        this.closeCall(part.index);
        break;
      case 'finish':
        this.finishReason = part.finishReason;
        this.closeAll();
        if (this.usage) this.terminal();
        break;
      case 'usage':
        this.usage = part.usage;
        if (this.finishReason !== undefined) this.terminal();
        break;
      case 'error':
        this.fail(part.error);
        break;
      case 'end':
        this.closeAll();
        this.terminal();
        break;
    }
    return out;
  }

  /** A compaction's answer: its text is the summary, its reasoning is not given out. True when the part is taken. */
  private summarize(part: StreamPart): boolean {
    switch (part.type) {
      case 'text-delta':
        this.summary += part.text;
        return true;
      case 'text-start':
      case 'text-end':
      case 'text-citation':
      case 'refusal-delta':
      case 'reasoning-start':
      case 'reasoning-delta':
      case 'reasoning-signature':
      case 'reasoning-end':
      case 'redacted-reasoning':
        return true;
      default:
        return false;
    }
  }

  /** The compaction item, once the summary is whole. */
  private closeSummary(): void {
    const summary = this.summary?.trim();
    this.summary = undefined;
    if (!summary) return;
    const item = compactionItem(summary);
    this.doneItem(this.addItem(item), item);
  }

  private emit(type: string, payload: Item): void {
    this.out.push(jsonRecord(type, { type, sequence_number: this.seq++, ...payload }));
  }

  private snapshot(status: ResponseStatus, extra: Partial<ResponseObjectState> = {}): Item {
    return buildResponseObject(this.request, {
      id: this.id,
      model: this.model,
      createdAt: this.createdAt,
      status,
      output: [...this.output],
      usage: null,
      error: null,
      incompleteDetails: null,
      ...extra,
    });
  }

  private begin(start: Extract<StreamPart, { type: 'start' }> | undefined): void {
    this.phase = 'open';
    this.id = start?.id ? responseIdFor(start.id) : createItemId('resp');
    if (start?.model) this.model = start.model;
    this.createdAt = start?.created ?? Math.floor(Date.now() / 1000);
    this.startUsage = start?.usage;
    const response = this.snapshot('in_progress');
    this.emit('response.created', { response });
    this.emit('response.in_progress', { response });
  }

  /** Adds an output item; returns its output index. */
  private addItem(item: Item): number {
    const outputIndex = this.output.length;
    this.output.push(item);
    this.emit('response.output_item.added', { output_index: outputIndex, item });
    return outputIndex;
  }

  private doneItem(outputIndex: number, item: Item): void {
    this.output[outputIndex] = item;
    this.emit('response.output_item.done', { output_index: outputIndex, item });
  }

  private openMessage(itemId?: string): void {
    if (this.message) return;
    this.closeReasoning(undefined);
    const id = itemId ?? storedItemId('msg', this.id, this.output.length) ?? createItemId('msg');
    const outputIndex = this.addItem(messageItem(id, [], 'in_progress'));
    this.message = { id, outputIndex, parts: [] };
  }

  private openPart(kind: OpenPart['kind'], itemId?: string): void {
    this.openMessage(itemId);
    const message = this.message!;
    if (message.part?.kind === kind) return;
    this.closePart();
    const index = message.parts.length;
    const part = kind === 'text' ? outputTextPart('') : refusalPart('');
    message.parts.push(part);
    message.part = { kind, index, text: '' };
    this.emit('response.content_part.added', { item_id: message.id, output_index: message.outputIndex, content_index: index, part });
  }

  /** A new content part of the current run; text of another named message item (`itemId`, as encodeOutputItems) starts that item. */
  private openTextPart(itemId?: string): void {
    if (itemId !== undefined && this.message !== undefined && this.message.id !== itemId) this.closeMessage();
    this.closePart();
    this.openPart('text', itemId);
  }

  private textDelta(delta: string, logprobs?: readonly TokenLogprob[]): void {
    this.openPart('text');
    const message = this.message!;
    const part = message.part!;
    part.text += delta;
    if (delta.length === 0) return;
    const given = logprobs ? encodeLogprobs(logprobs) : [];
    if (logprobs) (part.logprobs ??= []).push(...given);
    this.emit('response.output_text.delta', { item_id: message.id, output_index: message.outputIndex, content_index: part.index, delta, logprobs: given });
  }

  private refusalDelta(delta: string): void {
    this.openPart('refusal');
    const message = this.message!;
    message.part!.text += delta;
    this.emit('response.refusal.delta', { item_id: message.id, output_index: message.outputIndex, content_index: message.part!.index, delta });
  }

  private closePart(): void {
    const message = this.message;
    const part = message?.part;
    if (!message || !part) return;
    message.part = undefined;
    const where = { item_id: message.id, output_index: message.outputIndex, content_index: part.index };
    for (const citation of part.wholePart ?? []) this.annotate(message, part, annotationOf(citation, part.text.length));
    const final = part.kind === 'text' ? { ...outputTextPart(part.text, part.annotations ?? []), logprobs: part.logprobs ?? [] } : refusalPart(part.text);
    message.parts[part.index] = final;
    if (part.kind === 'text') this.emit('response.output_text.done', { ...where, text: part.text, logprobs: part.logprobs ?? [] });
    else this.emit('response.refusal.done', { ...where, refusal: part.text });
    this.emit('response.content_part.done', { ...where, part: final });
  }

  /** A citation of the open text: announced at once when its span is known, else when the text ends (it covers it all). */
  private citation(citation: UrlCitation): void {
    if (this.message?.part?.kind !== 'text') this.openPart('text');
    const message = this.message!;
    const part = message.part!;
    if (citation.startIndex !== undefined && citation.endIndex !== undefined) this.annotate(message, part, annotationOf(citation, part.text.length));
    else (part.wholePart ??= []).push(citation);
  }

  private annotate(message: OpenMessage, part: OpenPart, annotation: Item): void {
    const annotations = (part.annotations ??= []);
    this.emit('response.output_text.annotation.added', { item_id: message.id, output_index: message.outputIndex, content_index: part.index, annotation_index: annotations.length, annotation });
    annotations.push(annotation);
  }

  private closeMessage(): void {
    const message = this.message;
    if (!message) return;
    this.closePart();
    this.message = undefined;
    const incomplete = this.finishReason !== undefined && statusForFinish(this.finishReason).status === 'incomplete';
    this.doneItem(message.outputIndex, messageItem(message.id, message.parts, incomplete ? 'incomplete' : 'completed'));
  }

  private openReasoning(itemId: string | undefined): void {
    this.closeMessage();
    this.closeReasoning(undefined);
    const id = itemId ?? storedItemId('rs', this.id, this.output.length) ?? createReasoningItemId();
    const outputIndex = this.addItem(reasoningItem(id, [], undefined));
    this.reasoning = { id, outputIndex, summaries: [] };
  }

  private reasoningDelta(delta: string): void {
    if (!this.reasoning) this.openReasoning(undefined);
    const reasoning = this.reasoning!;
    const where = { item_id: reasoning.id, output_index: reasoning.outputIndex, summary_index: reasoning.summaries.length };
    if (reasoning.current === undefined) {
      reasoning.current = '';
      this.emit('response.reasoning_summary_part.added', { ...where, part: { type: 'summary_text', text: '' } });
    }
    reasoning.current += delta;
    if (delta.length === 0) return;
    this.emit('response.reasoning_summary_text.delta', { ...where, delta });
  }

  /** Ends the reasoning item; its encrypted_content (or what the gateway carries for other providers) goes in output_item.done. */
  private closeReasoning(encrypted: string | undefined, providerMetadata?: ProviderMetadata): void {
    const reasoning = this.reasoning;
    if (!reasoning) return;
    this.reasoning = undefined;
    if (reasoning.current !== undefined) {
      const where = { item_id: reasoning.id, output_index: reasoning.outputIndex, summary_index: reasoning.summaries.length };
      const text = reasoning.current;
      reasoning.summaries.push(text);
      this.emit('response.reasoning_summary_text.done', { ...where, text });
      this.emit('response.reasoning_summary_part.done', { ...where, part: { type: 'summary_text', text } });
    }
    const opaque: Parameters<typeof encryptedContentFor>[0] = {};
    if (encrypted !== undefined) opaque.encrypted = encrypted;
    if (reasoning.signature !== undefined) opaque.signature = reasoning.signature;
    if (providerMetadata !== undefined) opaque.providerMetadata = providerMetadata;
    const content = encryptedContentFor(opaque);
    this.doneItem(reasoning.outputIndex, reasoningItem(reasoning.id, reasoning.summaries, content));
  }

  private openCall(index: number, callId: string, name: string, itemId: string | undefined): void {
    this.closeMessage();
    this.closeReasoning(undefined);
    this.closeCall(index);
    const id = itemId ?? storedItemId('fc', this.id, this.output.length) ?? functionCallItemIdFor(callId);
    if (isCustomTool(name, this.request.tools)) {
      const outputIndex = this.addItem(customToolCallItem(id, callId, name, '', 'in_progress'));
      this.calls.set(index, { id, callId, name, namespace: undefined, outputIndex, args: '', kind: 'custom' });
      return;
    }
    if (isLocalShellTool(name, this.request.tools)) {
      const outputIndex = this.addItem(localShellCallItem(id, callId, '{}', 'in_progress'));
      this.calls.set(index, { id, callId, name, namespace: undefined, outputIndex, args: '', kind: 'local_shell' });
      return;
    }
    const shellKind = shellToolKind(name, this.request.tools);
    if (shellKind) {
      const outputIndex = shellKind === 'shell' ? this.addItem(shellCallItem('shell', id, callId, '{}', 'in_progress')) : -1;
      this.calls.set(index, { id, callId, name, namespace: undefined, outputIndex, args: '', kind: shellKind });
      return;
    }
    const split = splitToolName(name, this.request.tools);
    const outputIndex = this.addItem(functionCallItem(id, callId, split.name, '', 'in_progress', split.namespace));
    this.calls.set(index, { id, callId, name: split.name, namespace: split.namespace, outputIndex, args: '', kind: 'function' });
  }

  private callDelta(index: number, delta: string): void {
    const call = this.calls.get(index);
    if (!call || delta.length === 0) return;
    call.args += delta;
    // A custom tool's text (a local_shell, shell or apply_patch action) is inside the JSON arguments: given out whole when they end.
    if (call.kind !== 'function') return;
    this.emit('response.function_call_arguments.delta', { item_id: call.id, output_index: call.outputIndex, delta });
  }

  private closeCall(index: number): void {
    const call = this.calls.get(index);
    if (!call) return;
    this.calls.delete(index);
    const where = { item_id: call.id, output_index: call.outputIndex };
    if (call.kind === 'local_shell') {
      this.doneItem(call.outputIndex, localShellCallItem(call.id, call.callId, call.args, 'completed'));
      return;
    }
    if (call.kind === 'shell' || call.kind === 'apply_patch') {
      const item = shellCallItem(call.kind, call.id, call.callId, call.args, 'completed');
      const outputIndex = call.outputIndex >= 0 ? call.outputIndex : this.addItem({ ...item, status: 'in_progress' });
      this.doneItem(outputIndex, item);
      return;
    }
    if (call.kind === 'custom') {
      const input = customToolInput(call.args);
      if (input.length > 0) this.emit('response.custom_tool_call_input.delta', { ...where, delta: input });
      this.emit('response.custom_tool_call_input.done', { ...where, input });
      this.doneItem(call.outputIndex, customToolCallItem(call.id, call.callId, call.name, input, 'completed'));
      return;
    }
    // A no-argument call that streamed no text still ends as valid JSON (deltas add up to it).
    if (call.args.trim() === '') {
      this.emit('response.function_call_arguments.delta', { ...where, delta: '{}' });
      call.args = '{}';
    }
    this.emit('response.function_call_arguments.done', { ...where, name: call.name, arguments: call.args });
    this.doneItem(call.outputIndex, functionCallItem(call.id, call.callId, call.name, call.args, 'completed', call.namespace));
  }

  /**
   * A hosted web search, as OpenAI streams it: the item, `in_progress`, `searching`,
   * `completed`, the item done. All at once when the results are in: the item id of another
   * vendor's search carries its results (webSearchItemId), so it is known only then.
   */
  private search(part: WebSearchPart): void {
    this.closeMessage();
    this.closeReasoning(undefined);
    const query = part.query ?? this.searches.get(part.id);
    this.searches.delete(part.id);
    const done = webSearchCallItem(query === undefined ? part : { ...part, query });
    const outputIndex = this.addItem({ ...done, status: 'in_progress' });
    const where = { output_index: outputIndex, item_id: done.id };
    this.emit('response.web_search_call.in_progress', where);
    this.emit('response.web_search_call.searching', where);
    this.emit('response.web_search_call.completed', where);
    this.doneItem(outputIndex, done);
  }

  /** A made image: a whole `image_generation_call` item, with the events OpenAI's image tool sends. */
  private image(source: MediaSource, metadata: ProviderMetadata | undefined): void {
    const done = imageGenerationCallItem(source, metadata);
    if (!done) return;
    this.closeMessage();
    this.closeReasoning(undefined);
    const outputIndex = this.addItem({ ...done, status: 'in_progress', result: null });
    const where = { output_index: outputIndex, item_id: done.id };
    this.emit('response.image_generation_call.in_progress', where);
    this.emit('response.image_generation_call.generating', where);
    this.emit('response.image_generation_call.completed', where);
    this.doneItem(outputIndex, done);
  }

  private closeAll(): void {
    this.closeSummary();
    this.closeMessage();
    this.closeReasoning(undefined);
    for (const [id, query] of [...this.searches]) this.search({ type: 'web_search', id, error: 'incomplete', ...(query !== undefined ? { query } : {}) });
    for (const index of [...this.calls.keys()]) this.closeCall(index);
  }

  private terminal(): void {
    this.phase = 'done';
    const { status, incompleteDetails } = statusForFinish(this.finishReason ?? 'stop');
    const usage = this.usage ?? (this.startUsage ? { inputTokens: 0, outputTokens: 0, ...this.startUsage } : undefined);
    const error = status === 'failed' ? { code: 'server_error', message: 'The response failed.' } : null;
    const response = this.snapshot(status, { usage: usage ? encodeUsage(usage) : null, error, incompleteDetails });
    this.emit(`response.${status}`, { response });
  }

  /** An error mid-stream: an `error` event (which the openai SDK throws on), then `response.failed`. */
  private fail(error: StreamError): void {
    this.phase = 'done';
    const message = redactSecrets(error.message);
    const failure = gatewayErrorOf(error);
    this.out.push(encodeResponsesStreamError(failure, this.ids, this.seq++));
    const response = this.snapshot('failed', { error: { code: failedResponseCode(failure), message } });
    this.emit('response.failed', { response });
  }
}

/** A stream encoder for one Responses client request. */
export function createResponsesStreamEncoder(request: ChatRequest, ids: RequestIds): StreamEncoder {
  return new ResponsesStreamEncoder(request, ids);
}
