import type { ToolDefinition } from '../../ir/index.ts';

/**
 * OpenAI's `local_shell` tool (the client runs a command the model asks for: the AI SDK's
 * `openai.tools.localShell`, Codex on codex-mini) on other formats: declared as a function named
 * `local_shell` whose arguments are the action's fields, its calls given back to the client as
 * `local_shell_call` items, and a `local_shell_call` / `local_shell_call_output` in the input
 * read as that function's call and result.
 */

/** The function name a `local_shell` tool has on other formats. */
export const LOCAL_SHELL = 'local_shell';

/** The `local_shell` tool as a function other formats can offer. */
export function localShellTool(): ToolDefinition {
  return {
    name: LOCAL_SHELL,
    description: "Runs a command on the user's machine and returns its output.",
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'array', items: { type: 'string' }, description: 'The program and its arguments, e.g. ["bash", "-lc", "ls -la"].' },
        working_directory: { type: 'string', description: 'The directory to run it in.' },
        timeout_ms: { type: 'integer', description: 'How long it may run, in milliseconds.' },
        env: { type: 'object', additionalProperties: { type: 'string' }, description: 'Environment variables to set.' },
      },
      required: ['command'],
    },
    localShell: true,
  };
}

/** True when `name` is the request's `local_shell` tool. */
export function isLocalShellTool(name: string, tools: readonly ToolDefinition[] | undefined): boolean {
  return tools?.some((tool) => tool.localShell === true && tool.name === name) === true;
}

/** A `local_shell_call` item's action as the function's arguments (JSON text): its fields but `type`. */
export function localShellArguments(action: unknown): string {
  if (typeof action !== 'object' || action === null || Array.isArray(action)) return '{}';
  const { type: _exec, ...fields } = action as Record<string, unknown>;
  return JSON.stringify(fields);
}

/** The `exec` action of the function's arguments (`command` an array of strings, `env` an object, as OpenAI's item has them). */
function actionOf(args: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    parsed = undefined;
  }
  const fields = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  const command = Array.isArray(fields.command) ? fields.command.map(String) : typeof fields.command === 'string' ? [fields.command] : [];
  const action: Record<string, unknown> = { type: 'exec', command, env: typeof fields.env === 'object' && fields.env !== null ? fields.env : {} };
  if (typeof fields.working_directory === 'string') action.working_directory = fields.working_directory;
  if (typeof fields.timeout_ms === 'number') action.timeout_ms = fields.timeout_ms;
  if (typeof fields.user === 'string') action.user = fields.user;
  return action;
}

/** A `local_shell_call` output item for a call of the function with `args` (its JSON arguments). */
export function localShellCallItem(id: string, callId: string, args: string, status: string): Record<string, unknown> {
  return { id, type: 'local_shell_call', status, call_id: callId, action: actionOf(args) };
}
