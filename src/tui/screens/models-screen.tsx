import { Box, Text } from 'ink';
import { KeyHints, Table, useKeys, type Column } from '../components/index.ts';
import { useResource, useSelection, type ModelRow } from '../core/index.ts';
import type { ScreenProps } from './types.ts';

const COLUMNS: Column<ModelRow>[] = [
  { header: 'ID', cell: (m) => m.id, max: 48, min: 16 },
  { header: 'TYPE', cell: (m) => m.type },
  { header: 'PROVIDER', cell: (m) => m.provider, max: 16 },
  // The wire formats reach chat models only: an image, speech or video model has its own routes, whatever its provider speaks.
  { header: 'FORMATS', cell: (m) => (m.type === 'chat' ? m.formats.join(', ') : '-'), min: 7 },
  { header: 'MODALITY', cell: (m) => m.modality || '-', max: 24, min: 8 },
  { header: 'CAPABILITIES', cell: (m) => m.capabilities.join(', ') || '-', min: 12 },
];

/** The configured providers' models. */
export function ModelsScreen({ width, height }: ScreenProps) {
  const models = useResource('models', (api) => api.listModels());
  const rows = models.data ?? [];
  const selection = useSelection(rows, (m) => m.id);
  useKeys((input, key) => {
    selection.onKey(input, key);
  });
  return (
    <Box flexDirection="column">
      <Text bold>{models.loading ? 'Models …' : `Models (${rows.length})`}</Text>
      <Table columns={COLUMNS} rows={rows} selected={selection.index} width={width} height={height - 4} empty={models.loading ? 'loading…' : 'No models: add a provider to the config.'} />
      <KeyHints hints={[['↑/↓', 'move']]} />
    </Box>
  );
}
