import type { ContentPart, MediaSource, ProviderMetadata, ReasoningPart, TokenLogprob, ToolDefinition } from '../../ir/index.ts';
import { encodeAnnotations, webSearchCallItem } from './map-web-search.ts';
import { splitToolName } from './map-namespace.ts';
import { customToolCallItem, customToolInput, isCustomTool } from './map-custom-tool.ts';
import { isLocalShellTool, localShellCallItem } from './map-local-shell.ts';
import { shellCallItem, shellToolKind } from './map-shell-tools.ts';
import { createItemId, createReasoningItemId, functionCallItemIdFor, imageItemId, storedItemId } from './create-id.ts';
import { argumentsForClient, carryOpaque, encodeLogprobs, hasMetadata, opaqueOfReasoning, toolIdForClient } from '../shared/index.ts';

type Item = Record<string, unknown>;

/** An `output_text` content part (`url_citation` annotations of a web search; the tokens' log probabilities when asked for). */
export function outputTextPart(text: string, annotations: Item[] = [], logprobs?: readonly TokenLogprob[]): Item {
  return { type: 'output_text', text, annotations, logprobs: logprobs ? encodeLogprobs(logprobs) : [] };
}

export function refusalPart(refusal: string): Item {
  return { type: 'refusal', refusal };
}

export function messageItem(id: string, content: Item[], status: string): Item {
  return { id, type: 'message', status, role: 'assistant', content };
}

export function functionCallItem(id: string, callId: string, name: string, args: string, status: string, namespace?: string): Item {
  const item: Item = { id, type: 'function_call', status, arguments: args, call_id: callId, name };
  if (namespace !== undefined) item.namespace = namespace;
  return item;
}

/** The encrypted_content for a reasoning part: OpenAI's own byte-exact, else what the gateway carries for other providers (shared/carry-opaque.ts). */
export function encryptedContentFor(part: Pick<ReasoningPart, 'encrypted' | 'signature' | 'redacted' | 'data' | 'providerMetadata'>): string | undefined {
  const foreign = part.signature !== undefined || (part.redacted === true && part.data !== undefined) || hasMetadata(part.providerMetadata);
  if (!foreign) return part.encrypted;
  const carried = opaqueOfReasoning({ type: 'reasoning', text: '', ...part });
  delete carried.id;
  return carryOpaque(carried);
}

export function reasoningItem(id: string, summaryTexts: readonly string[], encrypted: string | undefined): Item {
  const item: Item = { id, type: 'reasoning', summary: summaryTexts.map((text) => ({ type: 'summary_text', text })) };
  if (encrypted !== undefined) item.encrypted_content = encrypted;
  return item;
}

/**
 * IR assistant content → output items: one message item per contiguous text/refusal run,
 * one function_call item per call (a custom_tool_call for a custom tool, a local_shell_call, shell_call or apply_patch_call for those tools), one reasoning item per reasoning part.
 */
export function encodeOutputItems(content: readonly ContentPart[], incomplete: boolean, tools?: readonly ToolDefinition[], responseId?: string): Item[] {
  const items: Item[] = [];
  // Items the gateway names itself carry the (minted) response id, so item_reference can find them.
  const own = (prefix: 'msg' | 'rs' | 'fc'): string | undefined => storedItemId(prefix, responseId, items.length);
  let run: Item[] = [];
  // The message item an upstream named (TextPart.itemId): its text stays one item, under that id.
  let runId: string | undefined;
  const flush = (): void => {
    if (run.length > 0) items.push(messageItem(runId ?? own('msg') ?? createItemId('msg'), run, 'completed'));
    run = [];
    runId = undefined;
  };
  for (const part of content) {
    if (part.type === 'text') {
      if (part.itemId !== undefined && runId !== undefined && part.itemId !== runId) flush();
      if (run.length === 0) runId = part.itemId;
      // Adjacent uncited texts are one output_text, as OpenAI writes a message and the stream
      // does: Gemini answers in several parts, and a client reading output[0].content[0].text got the first.
      const last = run.at(-1);
      if (!part.citations?.length && last?.type === 'output_text' && (last.annotations as unknown[]).length === 0) {
        last.text = `${last.text as string}${part.text}`;
        if (part.logprobs) last.logprobs = [...(last.logprobs as unknown[]), ...encodeLogprobs(part.logprobs)];
      } else run.push(outputTextPart(part.text, encodeAnnotations(part.text, part.citations), part.logprobs));
    }
    else if (part.type === 'web_search') {
      flush();
      items.push(webSearchCallItem(part));
    }
    else if (part.type === 'refusal') run.push(refusalPart(part.refusal));
    else if (part.type === 'tool_call') {
      flush();
      const id = part.itemId ?? own('fc') ?? functionCallItemIdFor(part.id);
      const callId = toolIdForClient(part.id, part.providerMetadata);
      if (isCustomTool(part.name, tools)) {
        items.push(customToolCallItem(id, callId, part.name, customToolInput(part.arguments), 'completed'));
        continue;
      }
      if (isLocalShellTool(part.name, tools)) {
        items.push(localShellCallItem(id, callId, part.arguments, 'completed'));
        continue;
      }
      const shellKind = shellToolKind(part.name, tools);
      if (shellKind) {
        items.push(shellCallItem(shellKind, id, callId, part.arguments, 'completed'));
        continue;
      }
      const { name, namespace } = splitToolName(part.name, tools);
      items.push(functionCallItem(id, callId, name, argumentsForClient(part.arguments), 'completed', namespace));
    } else if (part.type === 'image') {
      flush();
      const item = imageGenerationCallItem(part.source, part.providerMetadata);
      if (item) items.push(item);
    } else if (part.type === 'reasoning') {
      flush();
      items.push(reasoningItem(part.itemId ?? own('rs') ?? createReasoningItemId(), part.text ? [part.text] : [], encryptedContentFor(part)));
    }
  }
  flush();
  // A cut-off answer marks its last message incomplete, as OpenAI does.
  const last = items.at(-1);
  if (incomplete && last?.type === 'message') last.status = 'incomplete';
  return items;
}

/**
 * An image the model made, as OpenAI's image generation tool answers it: an
 * `image_generation_call` item with the base64 image in `result` (undefined for an image the
 * format cannot carry inline, e.g. a file id).
 */
export function imageGenerationCallItem(source: MediaSource, metadata?: ProviderMetadata): Item | undefined {
  if (source.kind !== 'base64') return undefined;
  const format = source.mediaType.replace(/^image\//, '').replace('jpg', 'jpeg');
  return { id: imageItemId(metadata), type: 'image_generation_call', status: 'completed', output_format: format, result: source.data };
}
