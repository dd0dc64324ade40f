import { Box, Text } from 'ink';
import type { Tab, TabId } from '../core/reduce-app-state.ts';

/** The numbered tabs; the current one in inverse. */
export function TabBar({ tabs, current }: { tabs: Tab[]; current: TabId }) {
  return (
    <Box>
      {tabs.map((tab, i) => (
        <Box key={tab.id} marginRight={1}>
          <Text inverse={tab.id === current} bold={tab.id === current} color={tab.id === current ? 'cyan' : undefined}>
            {` ${i + 1} ${tab.title} `}
          </Text>
        </Box>
      ))}
    </Box>
  );
}
