import { Box, Text } from 'ink';
import { useKeys } from './use-keys.ts';

/** A new key's secret, shown this once, until Enter or Esc closes the box. */
export function SecretBox({ title, secret, width, onClose }: { title: string; secret: string; width?: number; onClose(): void }) {
  useKeys((_input, key) => {
    if (key.return || key.escape) onClose();
  });
  return (
    <Box flexDirection="column" borderStyle="double" borderColor="green" paddingX={1} width={width}>
      <Text bold color="green">
        {title}
      </Text>
      <Text> </Text>
      <Text bold color="yellowBright">
        {secret}
      </Text>
      <Text> </Text>
      <Text color="yellow">Store it now: this is the only time the key is shown. The gateway keeps only its hash.</Text>
      <Text dimColor>Enter or Esc to close</Text>
    </Box>
  );
}
