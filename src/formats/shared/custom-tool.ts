import type { ToolDefinition } from '../../ir/index.ts';

/**
 * OpenAI's `custom` (freeform) tools, which Responses and Chat both have: on a format without
 * them, a function whose one string argument `input` is the text the model writes (its grammar,
 * if any, told in that argument's description), the call given back to the client as its
 * format's custom call holding that text.
 */

/** The IR definition of a custom tool; `format` is the tool's own (text or a grammar), kept for a same-format upstream. */
export function customToolDefinition(name: string, description: string | undefined, format: Record<string, unknown> | undefined, grammar?: Record<string, unknown>): ToolDefinition {
  const definition = typeof grammar?.definition === 'string' ? grammar.definition : undefined;
  const syntax = typeof grammar?.syntax === 'string' ? ` (${grammar.syntax})` : '';
  const input: Record<string, unknown> = { type: 'string', description: definition === undefined ? 'The raw text input of the tool.' : `The raw text input of the tool, in this grammar${syntax}:\n${definition}` };
  const tool: ToolDefinition = { name, parameters: { type: 'object', properties: { input }, required: ['input'], additionalProperties: false }, custom: {} };
  if (description) tool.description = description;
  if (format) tool.custom = { format };
  return tool;
}

/** True when `name` is a custom tool of the request. */
export function isCustomTool(name: string, tools: readonly ToolDefinition[] | undefined): boolean {
  return tools?.some((tool) => tool.custom !== undefined && tool.name === name) === true;
}

/** The `input` text of a custom tool's call, from the arguments other formats carried it in (the raw text when they are not that object). */
export function customToolInput(args: string): string {
  try {
    const parsed = JSON.parse(args) as { input?: unknown };
    if (typeof parsed?.input === 'string') return parsed.input;
  } catch {
    // not JSON: the text itself
  }
  return args;
}

/** A custom call's text as the arguments other formats carry it in. */
export function customToolArguments(input: string): string {
  return JSON.stringify({ input });
}
