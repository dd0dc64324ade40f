import type { ToolDefinition } from '../../ir/index.ts';

/**
 * Responses `custom` (freeform) tools on other formats: declared as a function whose one string
 * argument `input` is the text (decode-tools.ts), their calls given back to the client as
 * `custom_tool_call` items holding that text.
 */

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

/** A `custom_tool_call` output item. */
export function customToolCallItem(id: string, callId: string, name: string, input: string, status: string): Record<string, unknown> {
  return { id, type: 'custom_tool_call', status, call_id: callId, name, input };
}
