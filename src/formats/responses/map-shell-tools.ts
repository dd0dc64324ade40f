import type { ToolDefinition } from '../../ir/index.ts';

/**
 * OpenAI's `shell` and `apply_patch` tools (GPT-5.1: the client runs the commands, or applies the
 * patch, the model asks for: the AI SDK's `openai.tools.shell` / `applyPatch`) on other formats, as
 * `local_shell` is (map-local-shell.ts): each a function of its action's fields, its calls given
 * back to the client as `shell_call` / `apply_patch_call` items, and those items and their
 * `…_output` in the input read as that function's call and result. A `shell` tool whose
 * environment is OpenAI's container runs on OpenAI: a hosted tool.
 */

export type ShellToolKind = 'shell' | 'apply_patch';

/** The item types of each kind's call and result. */
export const SHELL_CALL_TYPES: Readonly<Record<string, ShellToolKind>> = { shell_call: 'shell', apply_patch_call: 'apply_patch' };

/** True when `tool` (a Responses tool or tool_choice) is a `shell` or `apply_patch` tool the client runs. */
export function isClientShellTool(tool: Record<string, unknown>): boolean {
  if (tool.type === 'apply_patch') return true;
  if (tool.type !== 'shell') return false;
  const environment = tool.environment as { type?: unknown } | null | undefined;
  return environment === undefined || environment === null || environment.type === 'local';
}

const integer = (description: string) => ({ type: 'integer', description });

/** The tool as a function other formats can offer. */
export function shellToolDefinition(kind: ShellToolKind): ToolDefinition {
  if (kind === 'shell') {
    return {
      name: 'shell',
      description: "Runs shell commands on the user's machine, one after the other, and returns their output.",
      parameters: {
        type: 'object',
        properties: {
          commands: { type: 'array', items: { type: 'string' }, description: 'The shell commands to run, in order, e.g. ["ls -la"].' },
          timeout_ms: integer('How long they may run, in milliseconds.'),
          max_output_length: integer('The most characters of output to return.'),
        },
        required: ['commands'],
      },
      shellTool: 'shell',
    };
  }
  return {
    name: 'apply_patch',
    description: "Creates, updates or deletes one file on the user's machine. For create_file and update_file, diff is the file's change in the V4A diff format (lines starting with +, - or a space, hunks introduced by @@).",
    parameters: {
      type: 'object',
      properties: {
        type: { type: 'string', enum: ['create_file', 'update_file', 'delete_file'], description: 'What to do with the file.' },
        path: { type: 'string', description: 'The file, relative to the workspace root.' },
        diff: { type: 'string', description: 'The change (create_file and update_file).' },
      },
      required: ['type', 'path'],
    },
    shellTool: 'apply_patch',
  };
}

/** The kind of the request's tool named `name`, when it is its `shell` or `apply_patch` tool. */
export function shellToolKind(name: string, tools: readonly ToolDefinition[] | undefined): ShellToolKind | undefined {
  return tools?.find((tool) => tool.shellTool !== undefined && tool.name === name)?.shellTool;
}

const fieldsOf = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});

/** A `shell_call`'s action or an `apply_patch_call`'s operation as the function's arguments (JSON text), nulls left out. */
export function shellCallArguments(item: Record<string, unknown>): string {
  const fields = fieldsOf(item.type === 'shell_call' ? item.action : item.operation);
  return JSON.stringify(Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null && value !== undefined)));
}

function parsedArguments(args: string): Record<string, unknown> {
  try {
    return fieldsOf(JSON.parse(args));
  } catch {
    return {};
  }
}

const numberOrNull = (value: unknown) => (typeof value === 'number' ? value : null);

/** The output item for a call of the function with `args` (its JSON arguments), as OpenAI gives it. */
export function shellCallItem(kind: ShellToolKind, id: string, callId: string, args: string, status: string): Record<string, unknown> {
  const fields = parsedArguments(args);
  if (kind === 'shell') {
    const commands = Array.isArray(fields.commands) ? fields.commands.map(String) : typeof fields.commands === 'string' ? [fields.commands] : [];
    const action = { commands, timeout_ms: numberOrNull(fields.timeout_ms), max_output_length: numberOrNull(fields.max_output_length) };
    return { id, type: 'shell_call', status, call_id: callId, action, environment: null };
  }
  const type = fields.type === 'create_file' || fields.type === 'delete_file' ? fields.type : 'update_file';
  const operation: Record<string, unknown> = { type, path: typeof fields.path === 'string' ? fields.path : '' };
  if (type !== 'delete_file') operation.diff = typeof fields.diff === 'string' ? fields.diff : '';
  return { id, type: 'apply_patch_call', status, call_id: callId, operation };
}

/**
 * A `shell_call_output` / `apply_patch_call_output` as the function's result text: each command's
 * stdout, stderr and how it ended; the patch's log, else whether it applied.
 */
export function shellOutputText(item: Record<string, unknown>): string {
  if (item.type === 'apply_patch_call_output') {
    if (typeof item.output === 'string' && item.output !== '') return item.output;
    return item.status === 'failed' ? 'The patch failed.' : 'The patch was applied.';
  }
  if (typeof item.output === 'string') return item.output;
  const outputs = Array.isArray(item.output) ? item.output.map(fieldsOf) : [];
  return outputs
    .map((output) => {
      const outcome = fieldsOf(output.outcome);
      const ended = outcome.type === 'timeout' ? 'timed out' : `exit code ${typeof outcome.exit_code === 'number' ? outcome.exit_code : 'unknown'}`;
      const parts = [typeof output.stdout === 'string' ? output.stdout : '', typeof output.stderr === 'string' && output.stderr !== '' ? `stderr:\n${output.stderr}` : '', `(${ended})`];
      return parts.filter((part) => part !== '').join('\n');
    })
    .join('\n\n');
}
