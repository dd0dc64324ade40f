import { isRecord } from './json.ts';

/**
 * OpenAI's explicit prompt-cache breakpoint on a content part (`prompt_cache_breakpoint:
 * {mode:"explicit"}`, Chat and Responses, GPT-5.6 and later) as the IR's cache marker: it asks
 * for the same thing as Anthropic's `cache_control` (cache the prefix ending here), so a Messages
 * upstream gets `{"type":"ephemeral"}` there. Undefined when the part has none.
 */
export function markerOfBreakpoint(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) && value.mode === 'explicit' ? { type: 'ephemeral' } : undefined;
}
