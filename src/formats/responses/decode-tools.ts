import { z } from 'zod';
import type { ToolChoice, ToolDefinition, WebSearchTool } from '../../ir/index.ts';
import { decodeWebSearchTool, isWebSearchToolType } from './map-web-search.ts';
import { flatToolName } from './map-namespace.ts';
import { customToolDefinition } from '../shared/index.ts';
import { localShellTool } from './map-local-shell.ts';
import { isClientShellTool, shellToolDefinition } from './map-shell-tools.ts';
import { invalid, parseOrThrow } from './validate.ts';

const functionToolSchema = z.looseObject({
  type: z.literal('function'),
  name: z.string().min(1),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});
const customToolSchema = z.looseObject({
  type: z.literal('custom'),
  name: z.string().min(1),
  description: z.string().nullish(),
  format: z.looseObject({ type: z.string() }).nullish(),
});
const typedSchema = z.looseObject({ type: z.string() });
const namespaceSchema = z.looseObject({ type: z.literal('namespace'), name: z.string().min(1), tools: z.array(z.looseObject({ type: z.string() })) });
const namedChoiceSchema = z.looseObject({ type: z.enum(['function', 'custom']), name: z.string().min(1) });
const allowedToolsSchema = z.looseObject({ type: z.literal('allowed_tools'), mode: z.enum(['auto', 'required']) });

export interface DecodedTools {
  tools: ToolDefinition[];
  /** Hosted tools (web_search, file_search, mcp, …): only a Responses upstream can run them (local_shell is the client's: a tool). */
  hostedTools: Record<string, unknown>[];
  /** The hosted web search among them (also kept raw in `hostedTools` for a Responses upstream). */
  webSearch?: WebSearchTool;
}

/** `tools` → IR function tools plus the hosted tools, kept raw. */
export function decodeTools(value: unknown): DecodedTools {
  if (!Array.isArray(value)) return invalid(['tools'], 'Expected an array');
  const out: DecodedTools = { tools: [], hostedTools: [] };
  value.forEach((raw, index) => {
    const typed = parseOrThrow(typedSchema, raw, ['tools', index]);
    if (typed.type === 'function') out.tools.push(decodeFunctionTool(raw, ['tools', index]));
    else if (typed.type === 'custom') out.tools.push(decodeCustomTool(raw, ['tools', index]));
    else if (typed.type === 'local_shell') out.tools.push(localShellTool());
    else if (isClientShellTool(typed)) out.tools.push(shellToolDefinition(typed.type === 'shell' ? 'shell' : 'apply_patch'));
    else if (isFunctionNamespace(typed)) {
      const group = parseOrThrow(namespaceSchema, raw, ['tools', index]);
      group.tools.forEach((member, j) => {
        const tool = decodeFunctionTool(member, ['tools', index, 'tools', j]);
        out.tools.push({ ...tool, name: flatToolName(group.name, tool.name), namespace: group.name });
      });
    } else {
      if (isWebSearchToolType(typed.type)) out.webSearch = decodeWebSearchTool(typed);
      out.hostedTools.push(typed);
    }
  });
  return out;
}

/** A namespace of function tools only: the client's own tools, grouped (one with custom members stays hosted). */
export function isFunctionNamespace(tool: Record<string, unknown>): boolean {
  return tool.type === 'namespace' && Array.isArray(tool.tools) && tool.tools.every((member) => typeof member === 'object' && member !== null && (member as { type?: unknown }).type === 'function');
}

function decodeFunctionTool(raw: unknown, path: PropertyKey[]): ToolDefinition {
  const tool = parseOrThrow(functionToolSchema, raw, path);
  const definition: ToolDefinition = { name: tool.name };
  if (tool.description) definition.description = tool.description;
  if (tool.parameters) definition.parameters = tool.parameters;
  if (typeof tool.strict === 'boolean') definition.strict = tool.strict;
  return definition;
}

/**
 * A `custom` tool (freeform text, e.g. Codex's `apply_patch`) is the client's own tool like a
 * function: elsewhere it is a function whose one string argument `input` is that text, its
 * grammar (if any) told in the argument's description for the model to follow.
 */
function decodeCustomTool(raw: unknown, path: PropertyKey[]): ToolDefinition {
  const tool = parseOrThrow(customToolSchema, raw, path);
  const format = tool.format ?? undefined;
  return customToolDefinition(tool.name, tool.description ?? undefined, format, format?.type === 'grammar' ? format : undefined);
}

export interface DecodedToolChoice {
  toolChoice?: ToolChoice;
  /** The wire value when the IR cannot say it (allowed_tools, hosted, custom); same-format only. */
  raw?: Record<string, unknown>;
}

/** `tool_choice` → IR; hosted and allowed_tools forms are kept raw for a Responses upstream. */
export function decodeToolChoice(value: unknown): DecodedToolChoice {
  if (value === 'auto' || value === 'none' || value === 'required') return { toolChoice: value };
  if (typeof value === 'string') return invalid(['tool_choice'], `Unknown tool_choice '${value}'`);
  const typed = parseOrThrow(typedSchema, value, ['tool_choice']);
  if (typed.type === 'function' || typed.type === 'custom') {
    return { toolChoice: { type: 'tool', name: parseOrThrow(namedChoiceSchema, value, ['tool_choice']).name } };
  }
  // local_shell is the client's own tool, a function named so elsewhere (map-local-shell.ts).
  if (typed.type === 'local_shell') return { toolChoice: { type: 'tool', name: 'local_shell' } };
  // So are shell and apply_patch (map-shell-tools.ts).
  if (typed.type === 'shell' || typed.type === 'apply_patch') return { toolChoice: { type: 'tool', name: typed.type } };
  if (typed.type === 'allowed_tools') {
    // Other formats have no allow-list: they see only the mode and the full tool list.
    return { toolChoice: parseOrThrow(allowedToolsSchema, value, ['tool_choice']).mode, raw: typed };
  }
  return { raw: typed };
}
