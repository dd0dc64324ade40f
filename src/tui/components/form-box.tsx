import { Box, Text } from 'ink';
import { useEffect, useState } from 'react';
import { applyFormKey, initialForm, type FormField, type FormState } from '../core/form.ts';
import { textWidth, wrappedLines } from '../core/fit-columns.ts';
import { useKeys } from './use-keys.ts';

export interface FormBoxProps {
  title: string;
  fields: readonly FormField[];
  initial: Record<string, string>;
  /** A message shown from the start (a refusal of the values in `initial`); the cursor starts on the field it names. */
  error?: string;
  width?: number;
  /** Called with every field's text on Enter; a returned message is shown and the form stays open. */
  onSubmit(values: Record<string, string>): string | undefined | void;
  onCancel(): void;
  /** Told the refusal shown (undefined: none) whenever it changes, so the screen can give it the rows it wraps to (formRows). */
  onError?(error: string | undefined): void;
}

const FOOTER = 'Tab/↑/↓ next field · Enter to save · Esc to cancel';

/**
 * Rows a form of `fields` takes on screen (border, title, fields, hint or refusal, footer): the title,
 * the refusal and the footer wrap inside a form `width` wide (border and padding take 4 columns).
 */
export function formRows(fields: readonly FormField[], shown: { width?: number; title?: string; error?: string } = {}): number {
  const lines = (text: string) => wrappedLines(text, shown.width === undefined ? Infinity : shown.width - 4);
  return fields.length + 3 + lines(shown.title ?? '') + (shown.error ? lines(shown.error) : 1) + lines(FOOTER);
}

/** A dialog with several fields: Tab/↑/↓ move, ←/→ choose, Enter saves the whole form, Esc cancels. */
export function FormBox({ title, fields, initial, error: refusal, width, onSubmit, onCancel, onError }: FormBoxProps) {
  const [state, setState] = useState<FormState>(() => {
    const named = refusal === undefined ? -1 : fields.findIndex((f) => refusal.startsWith(`${f.label}: `));
    return { ...initialForm(fields, initial), error: refusal, focus: Math.max(0, named) };
  });
  useKeys((input, key) => {
    const step = applyFormKey(fields, state, input, key);
    if (step.kind === 'cancel') return onCancel();
    if (step.kind === 'edit') return setState(step.state);
    const error = onSubmit(step.state.values);
    setState(typeof error === 'string' ? { ...step.state, error } : step.state);
  });
  useEffect(() => onError?.(state.error), [state.error, onError]);
  const labelWidth = Math.max(...fields.map((f) => textWidth(f.label)));
  const focused = fields[state.focus];
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1} width={width}>
      <Text bold>{title}</Text>
      {fields.map((field, i) => {
        const value = state.values[field.name] ?? '';
        const active = i === state.focus;
        const shown = field.secret ? '•'.repeat([...value].length) : value;
        return (
          <Text key={field.name} wrap="truncate">
            <Text color={active ? 'cyan' : undefined}>{`${active ? '›' : ' '} ${field.label.padEnd(labelWidth)}  `}</Text>
            {field.choices ? (
              <Text inverse={active}>{`‹ ${value} ›`}</Text>
            ) : (
              <Text>
                {shown}
                {active ? <Text inverse> </Text> : null}
              </Text>
            )}
          </Text>
        );
      })}
      {state.error ? <Text color="red">{state.error}</Text> : <Text dimColor wrap="truncate">{focused.hint ?? ' '}</Text>}
      <Text dimColor>{FOOTER}</Text>
    </Box>
  );
}
