import type { ContentPart, Message, TextPart, ToolCallPart, ToolResultPart, Unconvertible } from '../../ir/index.ts';
import { customToolArguments, FieldChecker, isRecord, readToolId, stringifyToolInput } from '../shared/index.ts';
import { decodeTextContent, decodeUserContent, withCacheControl } from './decode-content.ts';
import { madeImages } from './decode-response.ts';
import { decodeChatReasoning } from './map-reasoning.ts';

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;

/**
 * Chat `messages` → IR. Leading system/developer messages become `system` (the IR's slot
 * for instructions); later ones stay in place with their role, so encoders decide where
 * they go. Each `tool` message becomes an IR `tool` message with one tool result.
 */
export function decodeChatMessages(list: unknown[], check: FieldChecker): { system: TextPart[]; messages: Message[]; unconvertible: Unconvertible[] } {
  const system: TextPart[] = [];
  const messages: Message[] = [];
  const unconvertible: Unconvertible[] = [];
  list.forEach((raw, i) => {
    const at = `messages[${i}]`;
    if (!isRecord(raw)) {
      check.fail(at, 'must be an object');
      return;
    }
    // A role the gateway does not know is the upstream's to judge: a passthrough forwards it as
    // written, a conversion refuses it (prepare-call) since it has no IR form.
    if (typeof raw.role === 'string' && !(ROLES as readonly string[]).includes(raw.role)) {
      unconvertible.push({ field: `${at}.role`, message: `role '${raw.role}' has no equivalent in another format` });
      return;
    }
    const role = check.requiredOneOf(raw.role, `${at}.role`, ROLES);
    if (!role) return;
    if (role === 'system' || role === 'developer') {
      const text = decodeTextContent(raw.content, `${at}.content`, check);
      if (messages.length === 0) system.push(...text);
      else messages.push(named({ role, content: text }, raw));
      return;
    }
    const message = decodeMessage(role, raw, at, check);
    if (message) messages.push(message);
  });
  return { system, messages, unconvertible };
}

function decodeMessage(role: 'user' | 'assistant' | 'tool' | 'function', raw: Record<string, unknown>, at: string, check: FieldChecker): Message | undefined {
  switch (role) {
    case 'user':
      return named({ role: 'user', content: decodeUserContent(raw.content, `${at}.content`, check) }, raw);
    case 'assistant':
      return named({ role: 'assistant', content: decodeAssistantContent(raw, at, check) }, raw);
    case 'tool': {
      const toolCallId = readToolId(check.requiredString(raw.tool_call_id, `${at}.tool_call_id`)).id;
      const text = decodeTextContent(raw.content, `${at}.content`, check);
      if (text.length !== 1) return { role: 'tool', content: [{ type: 'tool_result', toolCallId, content: text }] };
      // One text part: its cache marker belongs on the result block (Anthropic's tool_result).
      const result: ToolResultPart = { type: 'tool_result', toolCallId, content: text[0].text };
      if (text[0].cacheControl) result.cacheControl = text[0].cacheControl;
      return { role: 'tool', content: [result] };
    }
    case 'function': {
      // Deprecated predecessor of `tool`: the result is matched by function name.
      const name = check.requiredString(raw.name, `${at}.name`);
      const content = typeof raw.content === 'string' ? raw.content : '';
      return { role: 'tool', content: [{ type: 'tool_result', toolCallId: functionCallId(name), content }] };
    }
  }
}

/**
 * Assistant message → IR parts in the canonical order: reasoning, text, images, refusal, tool calls.
 * The images are the ones an image model made (OpenRouter's `message.images`), sent back for an edit.
 */
function decodeAssistantContent(raw: Record<string, unknown>, at: string, check: FieldChecker): ContentPart[] {
  const parts: ContentPart[] = [...decodeChatReasoning(raw)];
  const content = raw.content;
  if (typeof content === 'string') {
    if (content !== '') parts.push({ type: 'text', text: content });
  } else if (Array.isArray(content)) {
    content.forEach((part, j) => {
      if (!isRecord(part)) return;
      if (part.type === 'text') {
        const text: TextPart = { type: 'text', text: check.requiredString(part.text, `${at}.content[${j}].text`) };
        parts.push(withCacheControl(text, part, `${at}.content[${j}]`, check));
      }
      else if (part.type === 'refusal') parts.push({ type: 'refusal', refusal: check.requiredString(part.refusal, `${at}.content[${j}].refusal`) });
    });
  } else if (content !== undefined && content !== null) {
    check.fail(`${at}.content`, 'must be a string, an array of content parts or null');
  }
  parts.push(...madeImages(raw.images));
  if (typeof raw.refusal === 'string' && raw.refusal !== '') parts.push({ type: 'refusal', refusal: raw.refusal });
  parts.push(...decodeToolCalls(raw, at, check));
  return parts;
}

/** A custom tool's call `{id, type: 'custom', custom: {name, input}}`: its text as the one argument `input`. */
function decodeCustomCall(call: Record<string, unknown>, path: string, check: FieldChecker): ToolCallPart {
  const custom = check.requiredRecord(call.custom, `${path}.custom`);
  const { id, providerMetadata, itemId } = readToolId(check.requiredString(call.id, `${path}.id`));
  const part: ToolCallPart = { type: 'tool_call', id, name: check.requiredString(custom?.name, `${path}.custom.name`), arguments: customToolArguments(check.string(custom?.input, `${path}.custom.input`) ?? '') };
  if (providerMetadata) part.providerMetadata = providerMetadata;
  if (itemId !== undefined) part.itemId = itemId;
  return part;
}

function decodeToolCalls(raw: Record<string, unknown>, at: string, check: FieldChecker): ToolCallPart[] {
  const calls: ToolCallPart[] = [];
  const list = check.array(raw.tool_calls, `${at}.tool_calls`) ?? [];
  list.forEach((call, k) => {
    const path = `${at}.tool_calls[${k}]`;
    if (!isRecord(call)) return check.fail(path, 'must be an object');
    if (call.type === 'custom') return void calls.push(decodeCustomCall(call, path, check));
    if (call.type !== undefined && call.type !== 'function') return;
    const fn = check.requiredRecord(call.function, `${path}.function`);
    if (!fn) return;
    const { id, providerMetadata, itemId } = readToolId(check.requiredString(call.id, `${path}.id`));
    const part: ToolCallPart = { type: 'tool_call', id, name: check.requiredString(fn.name, `${path}.function.name`), arguments: decodeArguments(fn.arguments) };
    if (providerMetadata) part.providerMetadata = providerMetadata;
    if (itemId !== undefined) part.itemId = itemId;
    calls.push(part);
  });
  const legacy = raw.function_call;
  if (isRecord(legacy) && typeof legacy.name === 'string') {
    calls.push({ type: 'tool_call', id: functionCallId(legacy.name), name: legacy.name, arguments: decodeArguments(legacy.arguments) });
  }
  return calls;
}

/** `arguments` is JSON text on the wire; some clients send the object itself. */
function decodeArguments(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined || value === null ? '' : stringifyToolInput(value);
}

/** The synthetic call id that pairs a deprecated `function_call` with its `function` result. */
function functionCallId(name: string): string {
  return `call_fn_${name}`;
}

function named(message: Message, raw: Record<string, unknown>): Message {
  if (typeof raw.name === 'string' && raw.name !== '') message.name = raw.name;
  return message;
}
