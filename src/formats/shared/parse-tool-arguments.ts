import { isRecord, tryParseJson } from './json.ts';

/**
 * OpenAI `arguments` text → Anthropic `input` object. Models may emit `""` for no-argument
 * tools or invalid JSON; Anthropic insists on an object, so those become `{}`.
 */
export function parseToolArguments(args: string): Record<string, unknown> {
  if (args.trim() === '') return {};
  const parsed = tryParseJson(args);
  return isRecord(parsed) ? parsed : {};
}

/** Anthropic `input` object → OpenAI `arguments` text (`{}` → `"{}"`). */
export function stringifyToolInput(input: unknown): string {
  return input === undefined || input === null ? '{}' : JSON.stringify(input);
}

/**
 * Arguments text for a client: empty or blank (OpenAI's no-argument calls, Anthropic's `{}`
 * input streamed without a single fragment) becomes `"{}"`, so clients can always JSON.parse it.
 */
export function argumentsForClient(args: string): string {
  return args.trim() === '' ? '{}' : args;
}
