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
