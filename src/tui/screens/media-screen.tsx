import { Box, Text } from 'ink';
import { KeyHints, Table, useKeys, type Column } from '../components/index.ts';
import { formatTime, useResource, useSelection, type AdminMediaView } from '../core/index.ts';
import type { ScreenProps } from './types.ts';

/** How many of the newest records the tab loads. */
export const MEDIA_PAGE_SIZE = 50;

const STATUS_COLORS: Record<string, string> = { completed: 'green', failed: 'red' };

const COLUMNS: Column<AdminMediaView>[] = [
  { header: 'ID', cell: (m) => m.id, max: 28, min: 10 },
  { header: 'TYPE', cell: (m) => m.media_type },
  { header: 'STATUS', cell: (m) => m.status },
  { header: 'MODEL', cell: (m) => m.model, max: 28, min: 8 },
  { header: 'ACCOUNT', cell: (m) => m.account, max: 28, min: 8 },
  { header: 'CREATED', cell: (m) => formatTime(m.created_at) },
  { header: 'PROMPT', cell: (m) => (m.prompt ?? '-').replace(/\s+/g, ' '), max: 60, min: 6 },
];

/** The newest Media Library records of every account; details of the selected one below. */
export function MediaScreen({ width, height }: ScreenProps) {
  const media = useResource('media', (api) => (api.listMedia ? api.listMedia({ pageSize: MEDIA_PAGE_SIZE }) : Promise.resolve({ data: [], total: 0 })));
  const rows = media.data?.data ?? [];
  const selection = useSelection(rows, (m) => m.id);
  useKeys((input, key) => {
    selection.onKey(input, key);
  });
  const selected = selection.selected;
  const total = media.data?.total ?? 0;
  return (
    <Box flexDirection="column">
      <Text bold>{media.loading ? 'Media Library …' : `Media Library (newest ${rows.length} of ${total})`}</Text>
      <Table columns={COLUMNS} rows={rows} selected={selection.index} width={width} height={height - 7} empty={media.loading ? 'loading…' : 'No media generations yet.'} />
      {selected ? (
        <Box flexDirection="column">
          <Text wrap="truncate">
            <Text bold>{selected.id}</Text>
            {'  '}
            <Text color={STATUS_COLORS[selected.status]}>{selected.status}</Text>
            <Text dimColor>{` · ${selected.width && selected.height ? `${selected.width}×${selected.height} · ` : ''}${selected.primary_url ?? 'no file'}`}</Text>
          </Text>
          {selected.error ? (
            <Text color="red" wrap="truncate">
              {selected.error}
            </Text>
          ) : (
            <Text dimColor wrap="truncate">
              {selected.prompt ?? ''}
            </Text>
          )}
        </Box>
      ) : null}
      <KeyHints hints={[['↑/↓', 'move']]} />
    </Box>
  );
}
