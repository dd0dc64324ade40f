import { Box, Text } from 'ink';
import { useState } from 'react';
import { editText } from '../core/edit-text.ts';
import { useKeys } from './use-keys.ts';

export interface TextPromptProps {
  label: string;
  /** A line under the field: what empty means, the accepted format. */
  hint?: string;
  /** A validation message from the last submit. */
  error?: string;
  initial?: string;
  width?: number;
  onSubmit(value: string): void;
  onCancel(): void;
}

/** A one-line text field in a box: Enter submits, Esc cancels, Ctrl-U clears. */
export function TextPrompt({ label, hint, error, initial = '', width, onSubmit, onCancel }: TextPromptProps) {
  const [value, setValue] = useState(initial);
  useKeys((input, key) => {
    const result = editText(value, input, key);
    if (result.kind === 'cancel') onCancel();
    else if (result.kind === 'submit') onSubmit(result.value);
    else setValue(result.value);
  }, { perKey: false });
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1} width={width}>
      <Text bold>{label}</Text>
      <Text>
        <Text color="cyan">{'> '}</Text>
        {value}
        <Text inverse> </Text>
      </Text>
      {error ? <Text color="red">{error}</Text> : null}
      <Text dimColor>{`${hint ? hint + ' · ' : ''}Enter to confirm · Esc to cancel`}</Text>
    </Box>
  );
}
