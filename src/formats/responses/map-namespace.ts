import type { ToolDefinition } from '../../ir/index.ts';

/**
 * Responses `namespace` tool groups (Codex: `{type:"namespace", name, tools:[{type:"function",…}]}`)
 * are the client's own function tools, grouped. Other formats have no groups, so each member
 * becomes one function tool named `<namespace>__<member>`; calls come back under that name and
 * are split again for the client (`name` + `namespace`, as OpenAI answers them).
 */
const SEPARATOR = '__';

/** The flat tool name of a namespace member. */
export function flatToolName(namespace: string, member: string): string {
  return `${namespace}${SEPARATOR}${member}`;
}

/** A call's flat name → the member name and namespace the client declared (unchanged when not namespaced). */
export function splitToolName(name: string, tools: readonly ToolDefinition[] | undefined): { name: string; namespace?: string } {
  if (!tools || !name.includes(SEPARATOR)) return { name };
  for (const tool of tools) {
    if (tool.namespace !== undefined && tool.name === name) return { name: name.slice(tool.namespace.length + SEPARATOR.length), namespace: tool.namespace };
  }
  return { name };
}
