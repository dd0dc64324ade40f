import { Text } from 'ink';
import type { StatusMessage } from '../core/types.ts';

const COLORS = { info: 'yellow', success: 'green', error: 'red' } as const;
const MARKS = { info: '…', success: '✓', error: '✗' } as const;

/** The last message (errors in red), or the global key hints when there is none. */
export function StatusLine({ status, hints }: { status: StatusMessage | null; hints: string }) {
  if (!status) return <Text dimColor wrap="truncate">{hints}</Text>;
  return (
    <Text color={COLORS[status.tone]} wrap="truncate">
      {`${MARKS[status.tone]} ${status.text}`}
    </Text>
  );
}
