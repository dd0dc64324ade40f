/**
 * Client request bodies for the matrix, written the way each format's clients write them
 * (hand-made wire shapes, not produced by the codecs under test). A small format-free
 * conversation is rendered into each of the four formats.
 *
 * A Gemini request carries its model and stream flag in the URL, not the body: its body here
 * has one extra key, `GEMINI_URL` (the request line, e.g. `models/client-model:streamGenerateContent?alt=sse`),
 * which `geminiTarget` reads and `geminiBody` strips before the body is decoded.
 */
import type { BuiltinFormat, RouteTarget } from '../../../src/formats/index.ts';

/**
 * The formats the conversion matrix covers, named (a new built-in format joins by its id here, with its fixtures and
 * rows); legacy Completions carries one prompt, no tools or reasoning: test/e2e/completions.test.ts.
 */
export type MatrixFormat = Extract<BuiltinFormat, 'chat' | 'messages' | 'responses' | 'gemini'>;
type WireFormat = MatrixFormat;

type Json = Record<string, any>;

export type UserPart = { text: string } | { image: string } | { file: { data?: string; url?: string; filename?: string } };

export type Turn =
  | { role: 'user'; parts: UserPart[] }
  | { role: 'assistant'; text?: string; calls?: Array<{ id: string; name: string; args: Json }> }
  | { role: 'tool'; results: Array<{ id: string; text: string }> };

export interface Conversation {
  system?: string;
  turns: Turn[];
  tools?: Array<{ name: string; description: string; parameters: Json }>;
  toolChoice?: 'auto' | 'none' | 'required' | { name: string };
  parallel?: false;
  /** Reasoning asked for: chat `reasoning_effort`, messages `thinking` budget, responses `reasoning`. */
  reasoning?: 'high';
  stream?: boolean;
  /** Chat only: `stream_options.include_usage`. */
  includeUsage?: boolean;
}

export const MODEL = 'client-model';

// ---------------------------------------------------------------- chat

function chatUserContent(parts: UserPart[]): unknown {
  if (parts.length === 1 && 'text' in parts[0]) return parts[0].text;
  return parts.map((part) => {
    if ('text' in part) return { type: 'text', text: part.text };
    if ('image' in part) return { type: 'image_url', image_url: { url: part.image } };
    const file: Json = part.file.data ? { file_data: part.file.data } : { file_url: part.file.url };
    if (part.file.filename) file.filename = part.file.filename;
    return { type: 'file', file };
  });
}

function buildChat(c: Conversation): Json {
  const messages: Json[] = c.system ? [{ role: 'system', content: c.system }] : [];
  for (const turn of c.turns) {
    if (turn.role === 'user') messages.push({ role: 'user', content: chatUserContent(turn.parts) });
    else if (turn.role === 'tool') for (const r of turn.results) messages.push({ role: 'tool', tool_call_id: r.id, content: r.text });
    else {
      const message: Json = { role: 'assistant', content: turn.text ?? null };
      if (turn.calls) message.tool_calls = turn.calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } }));
      messages.push(message);
    }
  }
  const body: Json = { model: MODEL, messages };
  if (c.tools) body.tools = c.tools.map((t) => ({ type: 'function', function: t }));
  if (c.toolChoice) body.tool_choice = typeof c.toolChoice === 'object' ? { type: 'function', function: { name: c.toolChoice.name } } : c.toolChoice;
  if (c.parallel === false) body.parallel_tool_calls = false;
  if (c.reasoning) body.reasoning_effort = c.reasoning;
  if (c.stream) body.stream = true;
  if (c.includeUsage) body.stream_options = { include_usage: true };
  return body;
}

// ---------------------------------------------------------------- messages

function messagesSource(url: string): Json {
  const match = /^data:([^;]+);base64,(.*)$/.exec(url);
  return match ? { type: 'base64', media_type: match[1], data: match[2] } : { type: 'url', url };
}

function buildMessages(c: Conversation): Json {
  const messages: Json[] = [];
  const push = (role: 'user' | 'assistant', blocks: Json[]) => {
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const turn of c.turns) {
    if (turn.role === 'user') {
      push('user', turn.parts.map((part) => {
        if ('text' in part) return { type: 'text', text: part.text };
        if ('image' in part) return { type: 'image', source: messagesSource(part.image) };
        const block: Json = { type: 'document', source: messagesSource(part.file.data ?? part.file.url!) };
        if (part.file.filename) block.title = part.file.filename;
        return block;
      }));
    } else if (turn.role === 'tool') push('user', turn.results.map((r) => ({ type: 'tool_result', tool_use_id: r.id, content: r.text })));
    else push('assistant', [...(turn.text ? [{ type: 'text', text: turn.text }] : []), ...(turn.calls ?? []).map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: call.args }))]);
  }
  const body: Json = { model: MODEL, max_tokens: 1024, messages };
  if (c.system) body.system = c.system;
  if (c.tools) body.tools = c.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
  const choice = c.toolChoice === undefined ? undefined : typeof c.toolChoice === 'object' ? { type: 'tool', name: c.toolChoice.name } : { type: c.toolChoice === 'required' ? 'any' : c.toolChoice };
  if (choice || c.parallel === false) body.tool_choice = { ...(choice ?? { type: 'auto' }), ...(c.parallel === false ? { disable_parallel_tool_use: true } : {}) };
  if (c.reasoning) {
    body.thinking = { type: 'enabled', budget_tokens: 4096 };
    body.max_tokens = 8192;
  }
  if (c.stream) body.stream = true;
  return body;
}

// ---------------------------------------------------------------- responses

function buildResponses(c: Conversation): Json {
  const input: Json[] = [];
  for (const turn of c.turns) {
    if (turn.role === 'user') {
      const only = turn.parts.length === 1 && 'text' in turn.parts[0] ? turn.parts[0].text : undefined;
      input.push({
        role: 'user',
        content: only ?? turn.parts.map((part) => {
          if ('text' in part) return { type: 'input_text', text: part.text };
          if ('image' in part) return { type: 'input_image', image_url: part.image, detail: 'auto' };
          const file: Json = { type: 'input_file', ...(part.file.data ? { file_data: part.file.data } : { file_url: part.file.url }) };
          if (part.file.filename) file.filename = part.file.filename;
          return file;
        }),
      });
    } else if (turn.role === 'tool') for (const r of turn.results) input.push({ type: 'function_call_output', call_id: r.id, output: r.text });
    else {
      if (turn.text) input.push({ role: 'assistant', content: turn.text });
      for (const call of turn.calls ?? []) input.push({ type: 'function_call', call_id: call.id, name: call.name, arguments: JSON.stringify(call.args) });
    }
  }
  const body: Json = { model: MODEL, input };
  if (c.system) body.instructions = c.system;
  if (c.tools) body.tools = c.tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters, strict: false }));
  if (c.toolChoice) body.tool_choice = typeof c.toolChoice === 'object' ? { type: 'function', name: c.toolChoice.name } : c.toolChoice;
  if (c.parallel === false) body.parallel_tool_calls = false;
  if (c.reasoning) body.reasoning = { effort: c.reasoning, summary: 'auto' };
  if (c.stream) body.stream = true;
  return body;
}

// ---------------------------------------------------------------- gemini

/** The key that holds a Gemini request's URL (model and method) next to its body, in this test only. */
export const GEMINI_URL = '$url';

function geminiMedia(url: string, fallbackMime: string): Json {
  const match = /^data:([^;]+);base64,(.*)$/.exec(url);
  if (match) return { inlineData: { mimeType: match[1], data: match[2] } };
  const mimeType = url.endsWith('.jpg') ? 'image/jpeg' : url.endsWith('.png') ? 'image/png' : url.endsWith('.pdf') ? 'application/pdf' : fallbackMime;
  return { fileData: { mimeType, fileUri: url } };
}

/** `@google/genai`'s request shape: one `contents` entry per turn, results in a user turn, JSON Schema tools. Gemini has no filename on media and no parallel-calls switch. */
function buildGemini(c: Conversation): Json {
  const contents: Json[] = [];
  const names = new Map<string, string>();
  const push = (role: 'user' | 'model', parts: Json[]) => {
    const last = contents.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  for (const turn of c.turns) {
    if (turn.role === 'user') {
      push('user', turn.parts.map((part) => ('text' in part ? { text: part.text } : 'image' in part ? geminiMedia(part.image, 'image/jpeg') : geminiMedia(part.file.data ?? part.file.url!, 'application/pdf'))));
    } else if (turn.role === 'tool') {
      push('user', turn.results.map((r) => ({ functionResponse: { id: r.id, name: names.get(r.id) ?? 'tool', response: { result: r.text } } })));
    } else {
      for (const call of turn.calls ?? []) names.set(call.id, call.name);
      push('model', [...(turn.text ? [{ text: turn.text }] : []), ...(turn.calls ?? []).map((call) => ({ functionCall: { id: call.id, name: call.name, args: call.args } }))]);
    }
  }
  const body: Json = { [GEMINI_URL]: `models/${MODEL}:${c.stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`, contents };
  if (c.system) body.systemInstruction = { parts: [{ text: c.system }] };
  if (c.tools) body.tools = [{ functionDeclarations: c.tools.map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: t.parameters })) }];
  if (c.toolChoice) {
    const mode = typeof c.toolChoice === 'object' || c.toolChoice === 'required' ? 'ANY' : c.toolChoice.toUpperCase();
    body.toolConfig = { functionCallingConfig: { mode, ...(typeof c.toolChoice === 'object' ? { allowedFunctionNames: [c.toolChoice.name] } : {}) } };
  }
  if (c.reasoning) body.generationConfig = { thinkingConfig: { thinkingLevel: c.reasoning, includeThoughts: true } };
  return body;
}

/** The route target a Gemini request's URL gives (what the gateway's path reader hands the decoder). */
export function geminiTarget(body: Json): RouteTarget {
  const url = String(body[GEMINI_URL]);
  return { model: /^models\/([^:]+):/.exec(url)![1], stream: url.includes(':streamGenerateContent') };
}

/** A Gemini request's body as it goes on the wire (without the URL). */
export function geminiBody(body: Json): Json {
  const { [GEMINI_URL]: _url, ...wire } = body;
  return wire;
}

/** A conversation as the client of `format` sends it. */
export function buildClientRequest(format: WireFormat, c: Conversation): Json {
  if (format === 'chat') return buildChat(c);
  if (format === 'messages') return buildMessages(c);
  if (format === 'gemini') return buildGemini(c);
  return buildResponses(c);
}

/**
 * The next request of a client that got `echo` back: the earlier body, the assistant turn as
 * the client received it, then tool results for `results` (by call id) or a user text.
 */
export function nextTurn(format: WireFormat, previous: Json, echo: Json | Json[], follow: { results?: Array<{ id: string; text: string }>; text?: string }): Json {
  const body = structuredClone(previous);
  if (format === 'responses') {
    body.input = [...(typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input), ...(echo as Json[])];
    for (const r of follow.results ?? []) body.input.push({ type: 'function_call_output', call_id: r.id, output: r.text });
    if (follow.text) body.input.push({ role: 'user', content: follow.text });
    return body;
  }
  if (format === 'gemini') {
    const model = echo as Json;
    body.contents.push(model);
    const names = new Map<string, string>();
    for (const part of model.parts as Json[]) if (part.functionCall) names.set(part.functionCall.id, part.functionCall.name);
    const parts: Json[] = (follow.results ?? []).map((r) => ({ functionResponse: { id: r.id, name: names.get(r.id), response: { result: r.text } } }));
    if (follow.text) parts.push({ text: follow.text });
    body.contents.push({ role: 'user', parts });
    return body;
  }
  body.messages.push(echo);
  if (format === 'chat') {
    for (const r of follow.results ?? []) body.messages.push({ role: 'tool', tool_call_id: r.id, content: r.text });
    if (follow.text) body.messages.push({ role: 'user', content: follow.text });
    return body;
  }
  const blocks: Json[] = (follow.results ?? []).map((r) => ({ type: 'tool_result', tool_use_id: r.id, content: r.text }));
  if (follow.text) blocks.push({ type: 'text', text: follow.text });
  body.messages.push({ role: 'user', content: blocks });
  return body;
}
