/**
 * Responses `custom` (freeform) tools on other formats (formats/shared/custom-tool.ts): their
 * calls given back to the client as `custom_tool_call` items holding the text.
 */
export { customToolInput, isCustomTool } from '../shared/index.ts';

/** A `custom_tool_call` output item. */
export function customToolCallItem(id: string, callId: string, name: string, input: string, status: string): Record<string, unknown> {
  return { id, type: 'custom_tool_call', status, call_id: callId, name, input };
}
