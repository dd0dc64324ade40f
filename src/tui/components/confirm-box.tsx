import { Box, Text } from 'ink';
import { useKeys } from './use-keys.ts';

/** A y/n question: only `y` says yes; `n`, Esc and Enter say no. */
export function ConfirmBox({ question, detail, width, onYes, onNo }: { question: string; detail?: string; width?: number; onYes(): void; onNo(): void }) {
  useKeys((input, key) => {
    if (input === 'y' || input === 'Y') onYes();
    else if (input === 'n' || input === 'N' || key.escape || key.return) onNo();
  });
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1} width={width}>
      <Text bold color="yellow">
        {question}
      </Text>
      {detail ? <Text>{detail}</Text> : null}
      <Text dimColor>y = yes · n / Esc = no</Text>
    </Box>
  );
}
