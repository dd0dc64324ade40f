/**
 * Reads an upstream request body (what the gateway would send) into one flat, format-free
 * list of lines, so the matrix can say "the upstream got this conversation" once for all
 * three formats. Written from the wire reference, independently of the codecs under test.
 *
 * Lines: `system <text>`, `<role> text <text>`, `user image <url>`, `user file <url> [<filename>]`,
 * `assistant call <id> <name> <canonical args>`, `tool result <id> <text>`,
 * `assistant reasoning <text> [opaque=<signature or encrypted content>]`.
 * Gemini has no call id of its own (`-` when absent) and signs parts: a line whose part carries
 * a `thoughtSignature` ends ` sig=<signature>`.
 */
import type { MatrixFormat as WireFormat } from './client-requests.ts';

type Json = Record<string, any>;

export interface UpstreamView {
  lines: string[];
  tools: Array<{ name: string; description?: string; parameters: unknown }>;
  toolChoice: unknown;
  /** false when the body forbids parallel calls, undefined when it says nothing. */
  parallel: boolean | undefined;
  stream: boolean;
}

/** Canonical JSON of tool arguments (`""` and `{}` both read as `{}`). */
export function canonicalArgs(args: unknown): string {
  if (typeof args === 'string') return JSON.stringify(args.trim() === '' ? {} : JSON.parse(args));
  return JSON.stringify(args ?? {});
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: Json) => part.text ?? '').join('');
}

function withName(url: string, filename: unknown): string {
  return typeof filename === 'string' ? `${url} ${filename}` : url;
}

function readChat(body: Json): UpstreamView {
  const lines: string[] = [];
  for (const message of body.messages as Json[]) {
    const role = message.role as string;
    if (role === 'system' || role === 'developer') lines.push(`system ${textOf(message.content)}`);
    else if (role === 'tool') lines.push(`tool result ${message.tool_call_id} ${textOf(message.content)}`);
    else if (role === 'assistant') {
      for (const detail of (message.reasoning_details ?? []) as Json[]) {
        lines.push(`assistant reasoning ${detail.text ?? detail.summary ?? ''}${detail.signature || detail.data ? ` opaque=${detail.signature ?? detail.data}` : ''}`);
      }
      if (message.content) lines.push(`assistant text ${textOf(message.content)}`);
      for (const call of (message.tool_calls ?? []) as Json[]) lines.push(`assistant call ${call.id} ${call.function.name} ${canonicalArgs(call.function.arguments)}`);
    } else {
      const parts = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content as Json[]);
      for (const part of parts) {
        if (part.type === 'text') lines.push(`user text ${part.text}`);
        else if (part.type === 'image_url') lines.push(`user image ${part.image_url.url}`);
        else if (part.type === 'file') lines.push(`user file ${withName(part.file.file_data ?? part.file.file_url ?? part.file.file_id, part.file.filename)}`);
        else lines.push(`user ${part.type}`);
      }
    }
  }
  const tools = ((body.tools ?? []) as Json[]).map((t) => ({ name: t.function.name, description: t.function.description, parameters: t.function.parameters }));
  const choice = body.tool_choice;
  return {
    lines,
    tools,
    toolChoice: typeof choice === 'object' && choice ? { name: choice.function.name } : choice,
    parallel: body.parallel_tool_calls,
    stream: body.stream === true,
  };
}

function messagesSourceUrl(source: Json): string {
  if (source.type === 'base64') return `data:${source.media_type};base64,${source.data}`;
  if (source.type === 'url') return source.url;
  if (source.type === 'text') return `text:${source.data}`;
  return `file:${source.file_id}`;
}

function readMessages(body: Json): UpstreamView {
  const system = body.system;
  const lines: string[] = [];
  if (typeof system === 'string') lines.push(`system ${system}`);
  else for (const block of (system ?? []) as Json[]) lines.push(`system ${block.text}`);
  for (const message of body.messages as Json[]) {
    const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content as Json[]);
    for (const block of blocks) {
      const role = message.role as string;
      if (block.type === 'text') lines.push(`${role} text ${block.text}`);
      else if (block.type === 'image') lines.push(`user image ${messagesSourceUrl(block.source)}`);
      else if (block.type === 'document') lines.push(`user file ${withName(messagesSourceUrl(block.source), block.title)}`);
      else if (block.type === 'tool_use') lines.push(`assistant call ${block.id} ${block.name} ${canonicalArgs(block.input)}`);
      else if (block.type === 'tool_result') lines.push(`tool result ${block.tool_use_id} ${textOf(block.content)}`);
      else if (block.type === 'thinking') lines.push(`assistant reasoning ${block.thinking}${block.signature ? ` opaque=${block.signature}` : ''}`);
      else if (block.type === 'redacted_thinking') lines.push(`assistant reasoning  opaque=${block.data}`);
      else lines.push(`${role} ${block.type}`);
    }
  }
  const choice = body.tool_choice as Json | undefined;
  const toolChoice = !choice ? undefined : choice.type === 'any' ? 'required' : choice.type === 'tool' ? { name: choice.name } : choice.type;
  return {
    lines,
    tools: ((body.tools ?? []) as Json[]).map((t) => ({ name: t.name, description: t.description, parameters: t.input_schema })),
    toolChoice,
    parallel: choice?.disable_parallel_tool_use === true ? false : undefined,
    stream: body.stream === true,
  };
}

function readResponses(body: Json): UpstreamView {
  const lines: string[] = [];
  if (body.instructions) lines.push(`system ${body.instructions}`);
  const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : (body.input as Json[]);
  for (const item of input) {
    if (item.type === 'function_call') lines.push(`assistant call ${item.call_id} ${item.name} ${canonicalArgs(item.arguments)}`);
    else if (item.type === 'function_call_output') lines.push(`tool result ${item.call_id} ${typeof item.output === 'string' ? item.output : textOf(item.output)}`);
    else if (item.type === 'reasoning') {
      const text = ((item.summary ?? []) as Json[]).map((s) => s.text).join('');
      lines.push(`assistant reasoning ${text}${item.encrypted_content ? ` opaque=${item.encrypted_content}` : ''}`);
    } else {
      const role = item.role === 'developer' || item.role === 'system' ? 'system' : (item.role as string);
      const parts = typeof item.content === 'string' ? [{ type: 'input_text', text: item.content }] : (item.content as Json[]);
      if (role === 'system') {
        lines.push(`system ${textOf(parts)}`);
        continue;
      }
      for (const part of parts) {
        if (part.type === 'input_text' || part.type === 'output_text') lines.push(`${role} text ${part.text}`);
        else if (part.type === 'input_image') lines.push(`user image ${part.image_url ?? `file:${part.file_id}`}`);
        else if (part.type === 'input_file') lines.push(`user file ${withName(part.file_data ?? part.file_url ?? `file:${part.file_id}`, part.filename)}`);
        else lines.push(`${role} ${part.type}`);
      }
    }
  }
  const choice = body.tool_choice;
  return {
    lines,
    tools: ((body.tools ?? []) as Json[]).filter((t) => t.type === 'function').map((t) => ({ name: t.name, description: t.description ?? undefined, parameters: t.parameters })),
    toolChoice: typeof choice === 'object' && choice ? { name: choice.name } : choice,
    parallel: body.parallel_tool_calls,
    stream: body.stream === true,
  };
}

function geminiResult(response: Json): string {
  const keys = Object.keys(response ?? {});
  return keys.length === 1 && keys[0] === 'result' && typeof response.result === 'string' ? response.result : JSON.stringify(response);
}

function geminiMediaLine(mimeType: string, url: string): string {
  return `user ${mimeType.startsWith('image/') ? 'image' : 'file'} ${url}`;
}

/** Gemini carries the stream flag in the URL: `stream` is the method the call was made with. */
function readGemini(body: Json, stream: boolean): UpstreamView {
  const lines: string[] = [];
  for (const part of (body.systemInstruction?.parts ?? []) as Json[]) lines.push(`system ${part.text}`);
  for (const content of body.contents as Json[]) {
    const role = content.role === 'model' ? 'assistant' : 'user';
    for (const part of content.parts as Json[]) {
      const sig = part.thoughtSignature ? ` sig=${part.thoughtSignature}` : '';
      if (part.functionCall) lines.push(`assistant call ${part.functionCall.id ?? '-'} ${part.functionCall.name} ${canonicalArgs(part.functionCall.args)}${sig}`);
      else if (part.functionResponse) lines.push(`tool result ${part.functionResponse.id ?? `@${part.functionResponse.name}`} ${geminiResult(part.functionResponse.response)}`);
      else if (part.inlineData) lines.push(geminiMediaLine(part.inlineData.mimeType, `data:${part.inlineData.mimeType};base64,${part.inlineData.data}`));
      else if (part.fileData) lines.push(geminiMediaLine(part.fileData.mimeType ?? '', part.fileData.fileUri));
      else if (part.thought) lines.push(`assistant reasoning ${part.text}${sig}`);
      else if (typeof part.text === 'string') lines.push(`${role} text ${part.text}${sig}`);
      else lines.push(`${role} ${Object.keys(part).join(',')}`);
    }
  }
  const declarations = ((body.tools ?? []) as Json[]).flatMap((t) => (t.functionDeclarations ?? []) as Json[]);
  const config = body.toolConfig?.functionCallingConfig as Json | undefined;
  const names = config?.allowedFunctionNames as string[] | undefined;
  const toolChoice = !config ? undefined : config.mode === 'ANY' ? (names?.length === 1 ? { name: names[0] } : 'required') : String(config.mode).toLowerCase();
  return {
    lines,
    tools: declarations.map((d) => ({ name: d.name, description: d.description, parameters: d.parametersJsonSchema ?? d.parameters })),
    toolChoice,
    parallel: undefined,
    stream,
  };
}

/** An upstream body of any format → its flat view (`stream`: for Gemini, whose body does not say). */
export function readUpstream(format: WireFormat, body: Json, stream = false): UpstreamView {
  if (format === 'chat') return readChat(body);
  if (format === 'messages') return readMessages(body);
  if (format === 'gemini') return readGemini(body, stream);
  return readResponses(body);
}
