import type { z } from 'zod';
import { editText, type EditKeys } from './edit-text.ts';

/** One field of a dialog form: free text, or one of a few choices cycled with ←/→. */
export interface FormField {
  /** The procedure input's property this field fills (issues are matched back by it). */
  name: string;
  label: string;
  /** What empty means, the accepted format. */
  hint?: string;
  choices?: readonly string[];
  /** Shown as dots (passwords). */
  secret?: boolean;
}

export interface FormState {
  values: Record<string, string>;
  focus: number;
  /** The last submit's validation message. */
  error?: string;
}

export type FormKeys = EditKeys & { shift?: boolean };

export type FormStep = { kind: 'edit'; state: FormState } | { kind: 'submit'; state: FormState } | { kind: 'cancel' };

export function initialForm(fields: readonly FormField[], values: Record<string, string>): FormState {
  const out: Record<string, string> = {};
  for (const f of fields) out[f.name] = values[f.name] ?? (f.choices ? f.choices[0] : '');
  return { values: out, focus: 0 };
}

function cycle(choices: readonly string[], current: string, delta: number): string {
  const at = Math.max(0, choices.indexOf(current));
  return choices[(at + delta + choices.length) % choices.length];
}

/** The first choice after `current` that starts with `letter` (typing picks a choice). */
function pick(choices: readonly string[], current: string, letter: string): string {
  const at = choices.indexOf(current);
  for (let i = 1; i <= choices.length; i++) {
    const candidate = choices[(at + i) % choices.length];
    if (candidate.toLowerCase().startsWith(letter.toLowerCase())) return candidate;
  }
  return current;
}

/**
 * One keypress applied to a form: Tab/↓ and Shift-Tab/↑ move between fields, ←/→ (or a
 * letter) change a choice, other keys edit the focused text field; Enter submits the whole
 * form, Esc cancels.
 */
export function applyFormKey(fields: readonly FormField[], state: FormState, input: string, key: FormKeys): FormStep {
  if (key.escape) return { kind: 'cancel' };
  if (key.return) return { kind: 'submit', state };
  const tab = key.tab || input === '\t';
  if (tab || key.downArrow || key.upArrow) {
    const back = key.upArrow || (tab && key.shift);
    return { kind: 'edit', state: { ...state, focus: (state.focus + (back ? -1 : 1) + fields.length) % fields.length } };
  }
  const field = fields[state.focus];
  const value = state.values[field.name] ?? '';
  const set = (next: string): FormState => ({ ...state, values: { ...state.values, [field.name]: next }, error: undefined });
  if (field.choices) {
    if (key.leftArrow || key.rightArrow) return { kind: 'edit', state: set(cycle(field.choices, value, key.leftArrow ? -1 : 1)) };
    if (input === ' ') return { kind: 'edit', state: set(cycle(field.choices, value, 1)) };
    if (/^[a-z]$/i.test(input) && !key.ctrl && !key.meta) return { kind: 'edit', state: set(pick(field.choices, value, input)) };
    if (/[\r\n]/.test(input)) return { kind: 'submit', state };
    return { kind: 'edit', state };
  }
  if (key.leftArrow || key.rightArrow) return { kind: 'edit', state };
  const result = editText(value, input, key);
  if (result.kind === 'cancel') return { kind: 'cancel' };
  if (result.kind === 'submit') return { kind: 'submit', state: set(result.value) };
  return { kind: 'edit', state: set(result.value) };
}

/**
 * Validates what a form built with the procedure's own schema: the parsed input, or the
 * first problem worded with the field's label (`Limit (credits): must not be negative`).
 */
export function validateForm<S extends z.ZodType>(
  schema: S,
  input: unknown,
  fields: readonly FormField[],
): { ok: true; value: z.output<S> } | { ok: false; error: string } {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  const name = issue?.path.find((p) => typeof p === 'string');
  const field = fields.find((f) => f.name === name);
  return { ok: false, error: field ? `${field.label}: ${issue.message}` : (issue?.message ?? 'invalid input') };
}

/**
 * A service's refusal of a field, worded for the form: the CLI flag it names (`--expires must be in
 * the future…`, `--limit-reset: …`) becomes the field's label (`Expires: must be in the future…`).
 */
export function labelRefusal(message: string, fields: readonly FormField[]): string {
  for (const field of fields) {
    const flag = `--${field.name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    if (message.startsWith(`${flag} `) || message.startsWith(`${flag}:`)) return `${field.label}: ${message.slice(flag.length).replace(/^:?\s*/, '')}`;
  }
  return message;
}

/** `a, b ,c` → ['a', 'b', 'c']; empty → null (no restriction). */
export function listOrNull(text: string): string[] | null {
  const items = text.split(',').map((s) => s.trim()).filter(Boolean);
  return items.length ? items : null;
}

/** A number; empty → null; anything else passed on as text for the schema to refuse in its words. */
export function numberOrNull(text: string): number | null | string {
  const trimmed = text.trim().replace(/_/g, '');
  if (trimmed === '') return null;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : trimmed;
}
