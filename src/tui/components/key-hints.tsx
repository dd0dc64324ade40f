import { Text } from 'ink';

/** A screen's own keys, e.g. `[['n', 'new key'], ['x', 'revoke']]`, as one dim line. */
export function KeyHints({ hints }: { hints: Array<[key: string, action: string]> }) {
  return (
    <Text wrap="truncate">
      {hints.map(([key, action], i) => (
        <Text key={key}>
          {i > 0 ? <Text dimColor> · </Text> : null}
          <Text bold color="cyan">
            {key}
          </Text>
          <Text dimColor>{` ${action}`}</Text>
        </Text>
      ))}
    </Text>
  );
}
