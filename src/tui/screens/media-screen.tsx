import { Box, Text } from 'ink';
import { useEffect, useReducer } from 'react';
import { ConfirmBox, KeyHints, Table, useKeys, type Column } from '../components/index.ts';
import {
  formatCount,
  formatTime,
  initialMediaFlow,
  mediaFlowCaptures,
  reduceMediaFlow,
  useAdminAction,
  useCapture,
  useResource,
  useSelection,
  useTui,
  type AdminMediaView,
  type MediaQuery,
} from '../core/index.ts';
import type { ScreenProps } from './types.ts';
import { terminalText } from '../../util/index.ts';

/** Records per page. */
export const MEDIA_PAGE_SIZE = 50;

const STATUS_COLORS: Record<string, string> = { completed: 'green', failed: 'red' };

const COLUMNS: Column<AdminMediaView>[] = [
  { header: 'ID', cell: (m) => m.id, max: 28, min: 10 },
  { header: 'TYPE', cell: (m) => m.media_type },
  { header: 'STATUS', cell: statusCell, min: 10 },
  { header: 'MODEL', cell: (m) => m.model, max: 28, min: 8 },
  { header: 'ACCOUNT', cell: (m) => m.account, max: 28, min: 8 },
  { header: 'CREATED', cell: (m) => formatTime(m.created_at), min: 16 },
  { header: 'PROMPT', cell: (m) => (m.prompt ?? '-').replace(/\s+/g, ' '), max: 60, min: 6 },
];

/** The status, with the progress of a job the gateway is running (`processing 45%`). */
export function statusCell(m: AdminMediaView): string {
  return m.progress !== undefined && (m.status === 'pending' || m.status === 'processing') ? `${m.status} ${m.progress}%` : m.status;
}

/** Everything about one record: full id, URLs, parameters, prompt or error. */
function MediaRecordView({ record, height }: { record: AdminMediaView; height: number }) {
  const size = [record.width && record.height ? `${record.width}×${record.height}` : null, record.file_size_bytes !== null ? `${formatCount(record.file_size_bytes)} bytes` : null, record.duration_seconds !== null ? `${record.duration_seconds} s` : null]
    .filter(Boolean)
    .join(' · ');
  const urls = [...new Set([record.primary_url, ...record.result_urls, record.preview_url].filter((u): u is string => Boolean(u)))];
  const parameters = JSON.stringify(record.parameters, null, 2).split('\n');
  // What is left for the parameters after the fixed lines.
  const room = Math.max(3, height - 10 - urls.length);
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1}>
      <Text bold>{`Media record ${record.id}`}</Text>
      <Text>
        {`${record.media_type} · `}
        <Text color={STATUS_COLORS[record.status]}>{record.status}</Text>
        {terminalText(` · ${record.model} · ${record.account}`)}
      </Text>
      <Text dimColor>{`created ${formatTime(record.created_at)} · completed ${formatTime(record.completed_at)}${size ? ` · ${size}` : ''}`}</Text>
      {urls.length === 0 ? <Text dimColor>no file</Text> : urls.map((url) => <Text key={url}>{terminalText(url)}</Text>)}
      <Text bold>parameters</Text>
      {parameters.slice(0, room).map((line, i) => (
        <Text key={i} wrap="truncate">
          {terminalText(line)}
        </Text>
      ))}
      {parameters.length > room ? <Text dimColor>{`… ${parameters.length - room} more lines`}</Text> : null}
      {record.error ? <Text color="red" wrap="truncate">{terminalText(`error: ${record.error}`)}</Text> : <Text wrap="truncate">{terminalText(`prompt: ${record.prompt ?? '-'}`)}</Text>}
    </Box>
  );
}

/**
 * The Media Library of every account, newest first: `t` and `s` filter by type and status,
 * `[`/`]` page through everything, Enter opens a record, `x` deletes one after a y/n.
 */
export function MediaScreen({ width, height }: ScreenProps) {
  const { api } = useTui();
  const [flow, dispatch] = useReducer(reduceMediaFlow, initialMediaFlow);
  const query: MediaQuery = { page: flow.page, pageSize: MEDIA_PAGE_SIZE, type: flow.type, status: flow.status };
  const queryKey = `${flow.page}/${flow.type ?? ''}/${flow.status ?? ''}`;
  // Each answer carries the query it answers, so the title never describes a page still loading.
  const media = useResource('media', async (a) => ({ query, key: queryKey, ...(a.listMedia ? await a.listMedia(query) : { data: [], total: 0 }) }), { key: queryKey });
  const shown = media.data?.query ?? query;
  const rows = media.data?.data ?? [];
  const total = media.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / MEDIA_PAGE_SIZE));
  // Another page or filter: the cursor starts at its top.
  const selection = useSelection(rows, (m) => m.id, 10, media.data?.key);
  const act = useAdminAction();
  useCapture(mediaFlowCaptures(flow));

  // A page emptied by deletions (or filters narrowed elsewhere): go back to the last page there is.
  useEffect(() => {
    if (!media.loading && rows.length === 0 && flow.page > pages) dispatch({ type: 'page', delta: -1, pages });
  }, [media.loading, rows.length, flow.page, pages]);

  const remove = async (record: AdminMediaView) => {
    dispatch({ type: 'deleting' });
    const done = await act('Deleting media record', (a) => a.deleteMedia!({ id: record.id }), (r) => `Deleted media record ${r.id}.`);
    dispatch({ type: 'deleted', id: done ? record.id : undefined });
  };

  useKeys((input, key) => {
    if (selection.onKey(input, key)) return;
    const selected = selection.selected;
    if (input === 't') dispatch({ type: 'cycle-type' });
    else if (input === 's') dispatch({ type: 'cycle-status' });
    else if (input === ']') dispatch({ type: 'page', delta: 1, pages });
    else if (input === '[') dispatch({ type: 'page', delta: -1, pages });
    else if (key.return && selected) dispatch({ type: 'open', record: selected });
    else if (input === 'x' && selected && api.deleteMedia) dispatch({ type: 'ask-delete', record: selected });
  }, { active: !mediaFlowCaptures(flow) });
  useKeys((input, key) => {
    if (key.escape || key.return) dispatch({ type: 'close' });
    else if (input === 'x' && flow.open && api.deleteMedia) dispatch({ type: 'ask-delete', record: flow.open });
  }, { active: flow.open !== undefined && flow.confirm === undefined && !flow.deleting });

  const selected = selection.selected;
  const first = (shown.page - 1) * MEDIA_PAGE_SIZE + 1;
  const filters = `type ${shown.type ?? 'any'} · status ${shown.status ?? 'any'}`;
  const title = media.loading
    ? 'Media Library …'
    : total === 0
      ? `Media Library (none · ${filters})`
      : `Media Library (page ${shown.page} of ${pages} · ${first}–${first + rows.length - 1} of ${total} · ${filters})`;
  const hints: Array<[string, string]> = flow.open
    ? [['Esc', 'back'], ...(api.deleteMedia ? ([['x', 'delete']] as Array<[string, string]>) : [])]
    : [['↑/↓', 'move'], ['Enter', 'open'], ['t', 'type'], ['s', 'status'], ['[ ]', 'page'], ...(api.deleteMedia ? ([['x', 'delete']] as Array<[string, string]>) : [])];
  const confirmRows = flow.confirm ? 6 : 0;
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate">
        {title}
      </Text>
      {flow.open ? (
        <MediaRecordView record={flow.open} height={height - 2 - confirmRows} />
      ) : (
        <>
          <Table columns={COLUMNS} rows={rows} selected={selection.index} width={width} height={height - 7 - confirmRows} empty={media.loading ? 'loading…' : 'No media generations here.'} />
          {selected && !flow.confirm ? (
            <Box flexDirection="column">
              <Text wrap="truncate">
                <Text bold>{selected.id}</Text>
                {'  '}
                <Text color={STATUS_COLORS[selected.status]}>{statusCell(selected)}</Text>
                <Text dimColor>{terminalText(` · ${selected.width && selected.height ? `${selected.width}×${selected.height} · ` : ''}${selected.primary_url ?? 'no file'}`)}</Text>
              </Text>
              {selected.error ? (
                <Text color="red" wrap="truncate">
                  {terminalText(selected.error)}
                </Text>
              ) : (
                <Text dimColor wrap="truncate">
                  {terminalText(selected.prompt ?? '')}
                </Text>
              )}
            </Box>
          ) : null}
        </>
      )}
      {flow.confirm ? (
        <ConfirmBox
          width={Math.min(width, 100)}
          question={`Delete media record ${flow.confirm.id}?`}
          detail={`${flow.confirm.media_type} by ${flow.confirm.model} for ${flow.confirm.account}: the record leaves the library. This cannot be undone.`}
          onYes={() => void remove(flow.confirm!)}
          onNo={() => dispatch({ type: 'cancel-delete' })}
        />
      ) : null}
      {!flow.confirm ? <KeyHints hints={hints} /> : null}
    </Box>
  );
}
