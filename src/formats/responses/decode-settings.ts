import { z } from 'zod';
import type { ReasoningConfig, ResponseFormat } from '../../ir/index.ts';
import { parseOrThrow } from './validate.ts';

const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;

const reasoningSchema = z.looseObject({
  effort: z.enum(EFFORTS).nullish(),
  summary: z.enum(['auto', 'concise', 'detailed']).nullish(),
  generate_summary: z.enum(['auto', 'concise', 'detailed']).nullish(),
  // OpenRouter's Responses API: a thinking budget, and reasoning switched on or off.
  max_tokens: z.number().int().min(1).nullish(),
  enabled: z.boolean().nullish(),
});

const formatSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    name: z.string().nullish(),
    schema: z.record(z.string(), z.unknown()),
    description: z.string().nullish(),
    strict: z.boolean().nullish(),
  }),
]);

const textSchema = z.looseObject({ format: z.unknown().optional() });

/**
 * `reasoning` → IR reasoning config: OpenAI's `effort` and `summary`, and OpenRouter's `max_tokens`
 * (a budget) and `enabled` (`false` turns reasoning off), as a Chat body's OpenRouter `reasoning` is read.
 */
export function decodeReasoning(value: unknown): ReasoningConfig {
  const reasoning = parseOrThrow(reasoningSchema, value, ['reasoning']);
  const config: ReasoningConfig = { enabled: reasoning.enabled !== false && reasoning.effort !== 'none' };
  if (reasoning.effort) config.effort = reasoning.effort;
  if (reasoning.max_tokens != null && config.enabled) config.budgetTokens = reasoning.max_tokens;
  const summary = reasoning.summary ?? reasoning.generate_summary;
  if (summary) config.summary = summary;
  return config;
}

export interface DecodedText {
  responseFormat?: ResponseFormat;
  /** The rest of `text` (e.g. verbosity), kept for a Responses upstream. */
  rest?: Record<string, unknown>;
}

/** `text` → IR response format; the json_schema is flat inside `format` on this wire. */
export function decodeText(value: unknown): DecodedText {
  const { format, ...rest } = parseOrThrow(textSchema, value, ['text']);
  const out: DecodedText = {};
  if (Object.keys(rest).length > 0) out.rest = rest;
  if (format === undefined || format === null) return out;
  const parsed = parseOrThrow(formatSchema, format, ['text', 'format']);
  if (parsed.type !== 'json_schema') {
    out.responseFormat = { type: parsed.type };
    return out;
  }
  const responseFormat: ResponseFormat = { type: 'json_schema', schema: parsed.schema };
  if (parsed.name) responseFormat.name = parsed.name;
  if (parsed.description) responseFormat.description = parsed.description;
  if (typeof parsed.strict === 'boolean') responseFormat.strict = parsed.strict;
  out.responseFormat = responseFormat;
  return out;
}
