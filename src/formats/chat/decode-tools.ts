import type { ToolChoice, ToolDefinition } from '../../ir/index.ts';
import { customToolDefinition, FieldChecker, isRecord } from '../shared/index.ts';

/** Chat `tools` (or the deprecated `functions`) → IR: functions, and custom (freeform) tools as a function of one string `input`. */
export function decodeChatTools(body: Record<string, unknown>, check: FieldChecker): ToolDefinition[] | undefined {
  const tools = check.array(body.tools, 'tools');
  if (tools) {
    const out: ToolDefinition[] = [];
    tools.forEach((tool, i) => {
      if (!isRecord(tool)) return check.fail(`tools[${i}]`, 'must be an object');
      if (tool.type === 'custom') {
        const custom = check.requiredRecord(tool.custom, `tools[${i}].custom`);
        if (custom) out.push(decodeCustom(custom, `tools[${i}].custom`, check));
        return;
      }
      if (tool.type !== 'function') return;
      const fn = check.requiredRecord(tool.function, `tools[${i}].function`);
      if (fn) out.push(decodeFunction(fn, `tools[${i}].function`, check));
    });
    return out;
  }
  const functions = check.array(body.functions, 'functions');
  return functions?.flatMap((fn, i) => (isRecord(fn) ? [decodeFunction(fn, `functions[${i}]`, check)] : []));
}

/** `{name, description, format}`, the format `{type: 'text'}` or `{type: 'grammar', grammar: {definition, syntax}}`. */
function decodeCustom(custom: Record<string, unknown>, at: string, check: FieldChecker): ToolDefinition {
  const name = check.requiredString(custom.name, `${at}.name`);
  const format = check.record(custom.format, `${at}.format`);
  const grammar = format?.type === 'grammar' && isRecord(format.grammar) ? format.grammar : undefined;
  return customToolDefinition(name, check.string(custom.description, `${at}.description`), format, grammar);
}

function decodeFunction(fn: Record<string, unknown>, at: string, check: FieldChecker): ToolDefinition {
  const tool: ToolDefinition = { name: check.requiredString(fn.name, `${at}.name`) };
  const description = check.string(fn.description, `${at}.description`);
  const parameters = check.record(fn.parameters, `${at}.parameters`);
  const strict = check.boolean(fn.strict, `${at}.strict`);
  if (description !== undefined) tool.description = description;
  if (parameters) tool.parameters = parameters;
  if (strict !== undefined) tool.strict = strict;
  return tool;
}

/**
 * Chat `tool_choice` (or deprecated `function_call`) → IR. `allowed_tools` becomes its mode
 * and narrows `tools` to the allowed names, which is how the other formats can express it.
 */
export function decodeChatToolChoice(
  body: Record<string, unknown>,
  tools: ToolDefinition[] | undefined,
  check: FieldChecker,
): { toolChoice?: ToolChoice; tools?: ToolDefinition[] } {
  const choice = body.tool_choice ?? body.function_call;
  const path = body.tool_choice === undefined ? 'function_call' : 'tool_choice';
  if (choice === undefined || choice === null) return { tools };
  if (typeof choice === 'string') {
    const mode = check.oneOf(choice, path, ['none', 'auto', 'required'] as const);
    return { toolChoice: mode, tools };
  }
  if (!isRecord(choice)) {
    check.fail(path, 'must be a string or an object');
    return { tools };
  }
  if (choice.type === 'allowed_tools') {
    const allowed = check.requiredRecord(choice.allowed_tools, `${path}.allowed_tools`);
    const mode = check.oneOf(allowed?.mode, `${path}.allowed_tools.mode`, ['auto', 'required'] as const) ?? 'auto';
    const names = new Set((Array.isArray(allowed?.tools) ? allowed.tools : []).map(toolName).filter((name) => name !== undefined));
    return { toolChoice: mode, tools: tools?.filter((tool) => names.has(tool.name)) };
  }
  const name = toolName(choice);
  if (name === undefined) {
    check.fail(`${path}`, 'must name a function');
    return { tools };
  }
  return { toolChoice: { type: 'tool', name }, tools };
}

/** The name in `{type:"function", function:{name}}`, `{type:"custom", custom:{name}}` or `{name}`. */
function toolName(value: unknown): string | undefined {
  if (!isRecord(value)) return undefined;
  for (const key of ['function', 'custom']) {
    const inner = value[key];
    if (isRecord(inner) && typeof inner.name === 'string') return inner.name;
  }
  return typeof value.name === 'string' ? value.name : undefined;
}
