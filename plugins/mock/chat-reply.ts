import { createHash } from 'node:crypto';

/** What the mock decides to answer, before it is put on the Chat Completions wire. */
export interface MockReply {
  reasoning?: { text: string; signature: string };
  text?: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finishReason: 'stop' | 'tool_calls' | 'length';
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number;
}

type Json = Record<string, unknown>;

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: Json) => (part?.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .filter(Boolean)
    .join('\n');
}

/** Rough token count (4 characters a token), deterministic. */
export function countTokens(text: string): number {
  return text.length === 0 ? 0 : Math.ceil(text.length / 4);
}

function stableId(prefix: string, seed: string): string {
  return `${prefix}${createHash('sha256').update(seed).digest('hex').slice(0, 24)}`;
}

/** Example arguments for a JSON schema: from JSON in the prompt, else the schema's required fields. */
function argumentsFor(schema: Json | undefined, prompt: string): string {
  const inline = prompt.match(/\{[^{}]*\}/);
  if (inline) {
    try {
      return JSON.stringify(JSON.parse(inline[0]));
    } catch {
      // not JSON: fall through to the schema
    }
  }
  const props = (schema?.properties ?? {}) as Record<string, Json>;
  const required = Array.isArray(schema?.required) ? (schema.required as string[]) : Object.keys(props);
  const args: Json = {};
  for (const name of required) {
    const type = props[name]?.type;
    if (Array.isArray(props[name]?.enum)) args[name] = (props[name].enum as unknown[])[0];
    else if (type === 'number' || type === 'integer') args[name] = 1;
    else if (type === 'boolean') args[name] = true;
    else if (type === 'array') args[name] = [];
    else if (type === 'object') args[name] = {};
    else args[name] = name === 'location' || name === 'city' ? 'Paris' : `mock ${name}`;
  }
  return JSON.stringify(args);
}

/** A value of `schema` built from `text`: strings are the text, enums their first value, objects their required fields. */
function exampleOf(schema: Json | undefined, text: string, depth = 0): unknown {
  // JSON Schema allows `true`/`false` as a schema: no object to read, so the text.
  if (typeof schema !== 'object' || schema === null || depth > 8) return text;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ('const' in schema) return schema.const;
  const variants = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (Array.isArray(variants) && variants.length > 0) return exampleOf(variants.find((v) => v?.type !== 'null') ?? variants[0], text, depth + 1);
  const type = Array.isArray(schema.type) ? (schema.type as unknown[]).find((t) => t !== 'null') : schema.type;
  if (type === 'number' || type === 'integer') return typeof schema.minimum === 'number' ? schema.minimum : 1;
  if (type === 'boolean') return true;
  if (type === 'null') return null;
  if (type === 'array') return [];
  if (type !== 'object' && !schema.properties) return text;
  const props = (schema.properties ?? {}) as Record<string, Json>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : Object.keys(props);
  return Object.fromEntries(required.map((name) => [name, exampleOf(props[name], text, depth + 1)]));
}

/**
 * The answer text in JSON mode (`response_format` json_object or json_schema, which the other formats' JSON
 * modes convert to): `{"echo": text}`, or a value of the schema whose strings are the text.
 */
function jsonAnswer(format: unknown, text: string): string | undefined {
  const type = (format as Json | undefined)?.type;
  if (type === 'json_object') return JSON.stringify({ echo: text });
  if (type !== 'json_schema') return undefined;
  const schema = ((format as Json).json_schema as Json | undefined)?.schema as Json | undefined;
  return JSON.stringify(typeof schema === 'object' && schema !== null ? exampleOf(schema, text) : { echo: text });
}

function wantsThinking(body: Json): boolean {
  const thinking = body.thinking as Json | undefined;
  return Boolean(
    (thinking && thinking.type === 'enabled') ||
      (typeof body.reasoning_effort === 'string' && body.reasoning_effort !== 'none') ||
      (body.reasoning && typeof body.reasoning === 'object'),
  );
}

/**
 * Context a coding agent puts in the user's message beside the user's words: Claude Code's and
 * Qwen Code's `<system-reminder>` (which lists the agent's tools by name), Codex's
 * `<environment_context>` and `<user_instructions>`. Tools named only there were not asked for.
 */
const AGENT_CONTEXT = /<(system-reminder|environment_context|user_instructions)>[\s\S]*?<\/\1>/g;

/** The user's own words of a prompt, lower-cased: without the agent's context blocks. */
function userWords(prompt: string): string {
  return prompt.replace(AGENT_CONTEXT, ' ').toLowerCase();
}

/** Whether the user's words name this tool as a whole word (`get_weather`, not `get_weathers`). */
function namesTool(words: string, name: string): boolean {
  if (!name) return false;
  const wanted = name.toLowerCase();
  for (let at = words.indexOf(wanted); at !== -1; at = words.indexOf(wanted, at + 1)) {
    if (!isNameChar(words.charCodeAt(at - 1)) && !isNameChar(words.charCodeAt(at + wanted.length))) return true;
  }
  return false;
}

/** A character a tool name may hold (letters, digits, `_`, `-`); NaN (past either end) is none. */
function isNameChar(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95 || code === 45;
}

/** The text up to the earliest of the request's stop sequences (Chat's `stop`: a string or a list), as OpenAI ends it. */
function beforeStop(text: string, stop: unknown): string {
  const sequences = (typeof stop === 'string' ? [stop] : Array.isArray(stop) ? stop : []).filter((s): s is string => typeof s === 'string' && s.length > 0);
  let end = text.length;
  for (const sequence of sequences) {
    const at = text.indexOf(sequence);
    if (at !== -1 && at < end) end = at;
  }
  return text.slice(0, end);
}

/**
 * The mock's behaviour: echo the last user message; call the tools the user's words name (whole words, outside an agent's context blocks)
 * (all of them unless parallel_tool_calls is false); after a tool result, report it;
 * reason aloud when thinking is requested.
 */
export function planReply(body: Json): MockReply {
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  const promptText = messages.map((m) => textOf(m.content)).join('\n');
  const promptTokens = countTokens(promptText) + messages.length * 3;
  const last = messages[messages.length - 1];
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const prompt = textOf(lastUser?.content);
  const reply: MockReply = { toolCalls: [], finishReason: 'stop', promptTokens, completionTokens: 0, reasoningTokens: 0 };

  if (wantsThinking(body)) {
    const text = `The user said: "${prompt.slice(0, 200)}". I will answer by echoing it.`;
    reply.reasoning = { text, signature: Buffer.from(stableId('sig', text)).toString('base64') };
    reply.reasoningTokens = countTokens(text);
  }

  const tools = Array.isArray(body.tools) ? (body.tools as Json[]) : [];
  const choice = body.tool_choice;
  if (last?.role === 'tool') {
    const results = messages.slice(messages.lastIndexOf(lastUser as Json) + 1).filter((m) => m.role === 'tool');
    reply.text = results.map((m) => `Tool result (${String(m.tool_call_id)}): ${textOf(m.content)}`).join('\n');
  } else if (tools.length > 0 && choice !== 'none') {
    const asked = userWords(prompt);
    const named = tools.filter((t) => namesTool(asked, String((t.function as Json)?.name ?? '')));
    const forced = typeof choice === 'object' && choice ? String(((choice as Json).function as Json)?.name ?? '') : '';
    let picked = forced ? tools.filter((t) => (t.function as Json)?.name === forced) : named;
    if (picked.length === 0 && choice === 'required') picked = tools.slice(0, 1);
    if (body.parallel_tool_calls === false) picked = picked.slice(0, 1);
    reply.toolCalls = picked.map((t, i) => {
      const fn = t.function as Json;
      return { id: stableId('call_', `${prompt}:${i}:${String(fn.name)}`), name: String(fn.name), arguments: argumentsFor(fn.parameters as Json, prompt) };
    });
    if (reply.toolCalls.length > 0) reply.finishReason = 'tool_calls';
    else reply.text = prompt;
  } else {
    reply.text = prompt;
  }

  if (reply.text !== undefined) reply.text = jsonAnswer(body.response_format, reply.text) ?? reply.text;
  if (reply.text !== undefined) reply.text = beforeStop(reply.text, body.stop);

  const maxTokens = Number(body.max_completion_tokens ?? body.max_tokens ?? Infinity);
  if (reply.text !== undefined && countTokens(reply.text) > maxTokens) {
    reply.text = reply.text.slice(0, Math.max(0, maxTokens) * 4);
    reply.finishReason = 'length';
  }
  reply.completionTokens =
    countTokens(reply.text ?? '') + reply.reasoningTokens + reply.toolCalls.reduce((n, c) => n + countTokens(c.name + c.arguments), 0);
  return reply;
}
