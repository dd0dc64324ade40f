import { getFormat, shortToolName } from '../formats/index.ts';
import type { ChatRequest, ChatResponse, ContentPart, Message, StreamPart, WireFormat } from '../ir/index.ts';

/** The names a converted request gave the upstream in place of the client's: upstream name → client name. */
export type ToolNames = ReadonlyMap<string, string>;

/**
 * A converted request's tool names fitted to the target format's rule (its face's
 * `fit.toolName`): a name the upstream would refuse (over its length, or with characters it
 * lacks: Claude Code's MCP tools are `mcp__<server>__<tool>`, up to Anthropic's 128 characters,
 * where OpenAI and Gemini take 64) becomes `shortToolName`'s, on the tools, the tool_choice and
 * every call in the history alike. Stateless: the same name maps the same way on every turn, so
 * the names of an answer are mapped back with the request alone. `names` is undefined when
 * every name fits.
 */
export function fitToolNames(request: ChatRequest, target: WireFormat): { request: ChatRequest; names?: ToolNames } {
  const rule = getFormat(target).fit?.toolName;
  // Every converted request comes here: one that needs no name changed is looked at, not copied.
  if (!rule || !refusesAName(request, rule.pattern)) return { request };
  const upstream = new Map<string, string>();
  const fit = (name: string): string => {
    if (rule.pattern.test(name)) return name;
    let short = upstream.get(name);
    if (short === undefined) upstream.set(name, (short = shortToolName(name, rule.maxLength)));
    return short;
  };
  const tools = request.tools?.map((tool) => (rule.pattern.test(tool.name) ? tool : { ...tool, name: fit(tool.name) }));
  const messages = request.messages.map((message) => fitMessage(message, fit));
  const choice = request.toolChoice;
  const chosen = typeof choice === 'object' ? fit(choice.name) : undefined;
  const fitted: ChatRequest = { ...request, messages };
  if (tools) fitted.tools = tools;
  if (typeof choice === 'object') fitted.toolChoice = { ...choice, name: chosen! };
  const names = new Map<string, string>();
  for (const [client, short] of upstream) names.set(short, client);
  return { request: fitted, names };
}

/** A tool name in the request (tools, tool_choice, history calls) that `pattern` refuses. */
function refusesAName(request: ChatRequest, pattern: RegExp): boolean {
  if (request.tools?.some((tool) => !pattern.test(tool.name))) return true;
  const choice = request.toolChoice;
  if (typeof choice === 'object' && !pattern.test(choice.name)) return true;
  return request.messages.some((message) => message.content.some((part) => part.type === 'tool_call' && !pattern.test(part.name)));
}

function fitMessage(message: Message, fit: (name: string) => string): Message {
  let content: ContentPart[] | undefined;
  message.content.forEach((part, i) => {
    if (part.type !== 'tool_call') return;
    const name = fit(part.name);
    if (name === part.name) return;
    content ??= message.content.slice();
    content[i] = { ...part, name };
  });
  return content ? { ...message, content } : message;
}

/** A converted answer with the client's tool names back (see fitToolNames). */
export function restoreToolNames(response: ChatResponse, names: ToolNames): ChatResponse {
  let content: ContentPart[] | undefined;
  response.content.forEach((part, i) => {
    const client = part.type === 'tool_call' ? names.get(part.name) : undefined;
    if (client === undefined) return;
    content ??= response.content.slice();
    content[i] = { ...part, name: client } as ContentPart;
  });
  return content ? { ...response, content } : response;
}

/** A converted stream's part with the client's tool name back (see fitToolNames). */
export function restoreToolName(part: StreamPart, names: ToolNames): StreamPart {
  if (part.type !== 'tool-call-start') return part;
  const client = names.get(part.name);
  return client === undefined ? part : { ...part, name: client };
}
