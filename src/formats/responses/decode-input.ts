import { z } from 'zod';
import { flatToolName } from './map-namespace.ts';
import { customToolArguments, readToolId } from '../shared/index.ts';
import type { ContentPart, Message, Unconvertible } from '../../ir/index.ts';
import { compactionSummaryText, readCompactionSummary } from './compaction.ts';
import { decodeContentPart, decodeToolOutput } from './decode-parts.ts';
import { reasoningPartFromItem } from './decode-reasoning.ts';
import { decodeWebSearchCall } from './map-web-search.ts';
import { LOCAL_SHELL, localShellArguments } from './map-local-shell.ts';
import { SHELL_CALL_TYPES, shellCallArguments, shellOutputText } from './map-shell-tools.ts';
import { fieldPath, invalid, parseOrThrow } from './validate.ts';
import { metadataOfImageItemId } from './create-id.ts';
import { generatedImageSource } from './decode-output.ts';

const ROLES: readonly unknown[] = ['user', 'assistant', 'system', 'developer'];
const messageSchema = z.looseObject({
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(z.unknown())]),
});
const functionCallSchema = z.looseObject({
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
  id: z.string().nullish(),
  namespace: z.string().nullish(),
});
const customToolCallSchema = z.looseObject({ call_id: z.string().min(1), name: z.string().min(1), input: z.string(), id: z.string().nullish() });
const localShellCallSchema = z.looseObject({ call_id: z.string().min(1), action: z.looseObject({}), id: z.string().nullish() });
const shellCallSchema = z.looseObject({ call_id: z.string().min(1), id: z.string().nullish() });
const functionCallOutputSchema = z.looseObject({ call_id: z.string().min(1), output: z.unknown() });
const summaryPartSchema = z.looseObject({ text: z.string() });
const reasoningSchema = z.looseObject({
  id: z.string().nullish(),
  summary: z.array(summaryPartSchema),
  content: z.array(summaryPartSchema).nullish(),
  encrypted_content: z.string().nullish(),
});
const itemReferenceSchema = z.looseObject({ id: z.string().min(1) });
const compactionSchema = z.looseObject({ encrypted_content: z.string() });

/** Options for decoding `input`. */
export interface DecodeInputOptions {
  /** Earlier turns live server-side (previous_response_id / conversation): unknown call_ids are allowed. */
  hasServerHistory: boolean;
  /** Resolves an item_reference id to a raw wire item (e.g. from stored responses); undefined if unknown. */
  resolveItemReference?: (id: string) => unknown;
  /**
   * Collects the ids of item_references nothing here resolves, instead of a 422: a Responses
   * upstream may resolve them itself (OpenAI keeps stored items); the pipeline decides.
   */
  unresolved?: string[];
  /** Collects messages whose role the gateway does not know, instead of a 422 (forwarded as written on a passthrough). */
  unconvertible?: Unconvertible[];
}

type Item = Record<string, unknown>;

function itemKind(item: Item): string | undefined {
  if (typeof item.type === 'string') return item.type;
  return 'role' in item ? 'message' : undefined;
}

/** The item types the decoder below gives a form in the IR (one switch case each, beside `item_reference`, `compaction` and `compaction_trigger`). */
const HISTORY_ITEM_TYPES: ReadonlySet<string> = new Set([
  'message', 'function_call', 'function_call_output', 'custom_tool_call', 'custom_tool_call_output', 'local_shell_call',
  'local_shell_call_output', 'shell_call', 'shell_call_output', 'apply_patch_call', 'apply_patch_call_output', 'reasoning',
  'web_search_call', 'compaction',
]);

/**
 * Whether an input item becomes part of a request's history to any model (it has an IR form), as
 * kept in a conversation, whose items are read back only through the IR: a hosted-tool item only
 * OpenAI runs (`file_search_call`, `computer_call`, `mcp_call`, …), an image made without its
 * bytes, a type nobody knows would be kept and then left out of every later turn.
 */
export function hasHistoryForm(item: Record<string, unknown>): boolean {
  const kind = itemKind(item);
  if (kind === 'image_generation_call') return typeof item.result === 'string' && item.result !== '';
  return kind !== undefined && HISTORY_ITEM_TYPES.has(kind);
}

/** Collects both id kinds of the function_call items, for the call_id check (pitfall 10). */
function collectCalls(items: readonly unknown[]): { callIds: Set<string>; itemIds: Set<string> } {
  const callIds = new Set<string>();
  const itemIds = new Set<string>();
  for (const item of items) {
    if (typeof item !== 'object' || item === null) continue;
    const { type, call_id: callId, id } = item as Item;
    if (type !== 'function_call' && type !== 'custom_tool_call' && type !== 'local_shell_call' && !Object.hasOwn(SHELL_CALL_TYPES, String(type))) continue;
    if (typeof callId === 'string') callIds.add(callId);
    if (typeof id === 'string') itemIds.add(id);
  }
  return { callIds, itemIds };
}

class InputDecoder {
  readonly messages: Message[] = [];
  private assistant: Message | undefined;
  private readonly calls: { callIds: Set<string>; itemIds: Set<string> };
  private readonly ids = new Set<string>();
  private readonly hasReferences: boolean;

  constructor(private readonly items: readonly unknown[], private readonly options: DecodeInputOptions) {
    this.calls = collectCalls(items);
    this.hasReferences = items.some((item) => typeof item === 'object' && item !== null && (item as Item).type === 'item_reference');
  }

  run(): Message[] {
    this.items.forEach((item, index) => this.item(item, ['input', index], true));
    return this.messages;
  }

  private item(raw: unknown, path: PropertyKey[], allowReference: boolean): void {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return invalid(path, 'Expected an input item object');
    const item = raw as Item;
    const kind = itemKind(item);
    if (typeof item.id === 'string' && kind !== 'item_reference') this.ids.add(item.id);
    switch (kind) {
      case 'message':
        return this.message(item, path);
      case 'function_call': {
        const call = parseOrThrow(functionCallSchema, item, path);
        const name = call.namespace ? flatToolName(call.namespace, call.name) : call.name;
        const { id, providerMetadata } = readToolId(call.call_id);
        const part: ContentPart = { type: 'tool_call', id, name, arguments: call.arguments };
        if (call.id) part.itemId = call.id;
        if (providerMetadata) part.providerMetadata = providerMetadata;
        return this.pushAssistant([part]);
      }
      case 'custom_tool_call': {
        // A custom tool's free text, carried elsewhere as its one argument `input` (decode-tools.ts).
        const call = parseOrThrow(customToolCallSchema, item, path);
        const { id, providerMetadata } = readToolId(call.call_id);
        const part: ContentPart = { type: 'tool_call', id, name: call.name, arguments: customToolArguments(call.input) };
        if (call.id) part.itemId = call.id;
        if (providerMetadata) part.providerMetadata = providerMetadata;
        return this.pushAssistant([part]);
      }
      case 'local_shell_call': {
        // A command the client ran: elsewhere a call of the function local_shell (map-local-shell.ts).
        const call = parseOrThrow(localShellCallSchema, item, path);
        const { id, providerMetadata } = readToolId(call.call_id);
        const part: ContentPart = { type: 'tool_call', id, name: LOCAL_SHELL, arguments: localShellArguments(call.action) };
        if (call.id) part.itemId = call.id;
        if (providerMetadata) part.providerMetadata = providerMetadata;
        return this.pushAssistant([part]);
      }
      case 'shell_call':
      case 'apply_patch_call': {
        // Commands the client ran, a patch it applied: elsewhere a call of the function shell / apply_patch (map-shell-tools.ts).
        const call = parseOrThrow(shellCallSchema, item, path);
        const { id, providerMetadata } = readToolId(call.call_id);
        const part: ContentPart = { type: 'tool_call', id, name: SHELL_CALL_TYPES[kind], arguments: shellCallArguments(item) };
        if (call.id) part.itemId = call.id;
        if (providerMetadata) part.providerMetadata = providerMetadata;
        return this.pushAssistant([part]);
      }
      case 'shell_call_output':
      case 'apply_patch_call_output':
        return this.callOutput({ ...item, output: shellOutputText(item) }, path);
      case 'function_call_output':
      case 'custom_tool_call_output':
      case 'local_shell_call_output':
        return this.callOutput(item, path);
      case 'reasoning':
        return this.pushAssistant([reasoningPartFromItem(parseOrThrow(reasoningSchema, item, path))]);
      case 'item_reference':
        return this.reference(item, path, allowReference);
      case 'web_search_call':
        return this.pushAssistant([decodeWebSearchCall(item)]);
      case 'image_generation_call':
        // An image the model made, sent back for an edit: with its bytes it is the assistant's image; by id alone only OpenAI knows it.
        if (typeof item.result === 'string' && item.result !== '') {
          const metadata = metadataOfImageItemId(item.id);
          return this.pushAssistant([{ type: 'image', source: generatedImageSource(item.result, item.output_format), ...(metadata ? { providerMetadata: metadata } : {}) }]);
        }
        return;
      case 'compaction':
        return this.compaction(item, path);
      case 'compaction_trigger':
        // Asks for a compaction of the input before it (request.compaction, set by decodeResponsesRequest).
        return;
      case undefined:
        return invalid([...path, 'type'], 'Expected an item type or a message role');
      default:
        // Hosted-tool items (web_search_call, mcp_call, …) have no IR form; a same-format
        // passthrough keeps them in the raw body, a conversion drops them.
        return;
    }
  }

  private message(item: Item, path: PropertyKey[]): void {
    // A role the gateway does not know is the upstream's to judge: a passthrough forwards it as
    // written, a conversion refuses it (prepare-call) since it has no IR form.
    if (typeof item.role === 'string' && !ROLES.includes(item.role) && this.options.unconvertible) {
      this.options.unconvertible.push({ field: fieldPath([...path, 'role']), message: `role '${item.role}' has no equivalent in another format` });
      return;
    }
    const message = parseOrThrow(messageSchema, item, path);
    const content: ContentPart[] =
      typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : message.content.map((part, index) => decodeContentPart(part, [...path, 'content', index]));
    if (message.role === 'assistant') return this.pushAssistant(content);
    this.pushOther({ role: message.role, content });
  }

  /**
   * A `compaction` item (from `POST /v1/responses/compact`): the gateway's own becomes a user
   * message holding its summary; OpenAI's is encrypted for OpenAI only, so a passthrough forwards
   * it and a conversion refuses it (dropping it would lose the whole compacted history).
   */
  private compaction(item: Item, path: PropertyKey[]): void {
    const { encrypted_content: encrypted } = parseOrThrow(compactionSchema, item, path);
    const summary = readCompactionSummary(encrypted);
    if (summary !== undefined) return this.pushOther({ role: 'user', content: [{ type: 'text', text: compactionSummaryText(summary) }] });
    const message = 'a compaction item made by OpenAI can be read only by an OpenAI Responses upstream';
    if (this.options.unconvertible) return void this.options.unconvertible.push({ field: fieldPath([...path, 'encrypted_content']), message });
    invalid([...path, 'encrypted_content'], message);
  }

  private callOutput(item: Item, path: PropertyKey[]): void {
    const output = parseOrThrow(functionCallOutputSchema, item, path);
    const callId = output.call_id;
    if (!this.calls.callIds.has(callId)) {
      if (this.calls.itemIds.has(callId)) {
        invalid([...path, 'call_id'], `'${callId}' is the item id of a function_call; send its call_id instead`);
      }
      if (!this.options.hasServerHistory && !this.hasReferences) {
        invalid([...path, 'call_id'], `No function_call with call_id '${callId}' found in input`);
      }
    }
    const content = decodeToolOutput(output.output, [...path, 'output']);
    this.pushOther({ role: 'tool', content: [{ type: 'tool_result', toolCallId: readToolId(callId).id, content }] });
  }

  private reference(item: Item, path: PropertyKey[], allowReference: boolean): void {
    const { id } = parseOrThrow(itemReferenceSchema, item, path);
    if (this.ids.has(id)) return; // already present in this input
    const resolved = allowReference ? this.options.resolveItemReference?.(id) : undefined;
    if (resolved === undefined) {
      if (this.options.unresolved) return void this.options.unresolved.push(id);
      return invalid([...path, 'id'], `Cannot resolve item_reference '${id}'`);
    }
    if (typeof resolved === 'object' && resolved !== null && (resolved as Item).type === 'function_call') {
      const { call_id: callId } = resolved as Item;
      if (typeof callId === 'string') this.calls.callIds.add(callId);
    }
    this.item(resolved, path, false);
  }

  private pushAssistant(parts: ContentPart[]): void {
    // Consecutive assistant-side items (reasoning, message, function calls) form one assistant turn.
    if (!this.assistant) {
      this.assistant = { role: 'assistant', content: [] };
      this.messages.push(this.assistant);
    }
    this.assistant.content.push(...parts);
  }

  private pushOther(message: Message): void {
    this.assistant = undefined;
    this.messages.push(message);
  }
}

/** Responses `input` (string or items) → IR messages; throws 422 naming the offending item. */
export function decodeInput(input: string | readonly unknown[], options: DecodeInputOptions): Message[] {
  if (typeof input === 'string') return [{ role: 'user', content: [{ type: 'text', text: input }] }];
  return new InputDecoder(input, options).run();
}
