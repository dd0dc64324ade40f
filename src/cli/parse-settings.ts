import type { z } from 'zod';
import { describeIssue } from '../admin/index.ts';
import { CliError } from './run-action.ts';

/**
 * Flag text to the values the admin procedures take. Only the spelling is handled here
 * (`none`, lists, numbers); what is allowed is the procedure's schema, checked by `validated`.
 */

const NONE = new Set(['none', 'never', 'unlimited']);

/** `a,b , c` → ['a', 'b', 'c']; `all` or `*` → null (no restriction). */
export function listOrAll(value: string | undefined): string[] | null | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === 'all' || trimmed === '*') return null;
  return trimmed.split(',').map((s) => s.trim()).filter(Boolean);
}

/** A number, `none` → null; anything else is passed on for the schema to refuse in its words. */
export function numberOrNone(value: string | undefined): number | null | string | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (NONE.has(trimmed)) return null;
  const n = Number(trimmed);
  return trimmed !== '' && Number.isFinite(n) ? n : trimmed;
}

/** Text, or `none`/`never` → null. */
export function textOrNone(value: string | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  return NONE.has(value.trim()) ? null : value;
}

/** Parses CLI input with a procedure's schema: a refusal is one line naming the flag, exit code 1 like every other CLI error. */
export function validated<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new CliError(describeIssue(result.error), 1);
  return result.data;
}
