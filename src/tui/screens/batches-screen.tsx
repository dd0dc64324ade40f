import { Box, Text } from 'ink';
import { useEffect, useReducer } from 'react';
import { ConfirmBox, KeyHints, Table, useKeys, type Column } from '../components/index.ts';
import {
  batchesFlowCaptures,
  batchFinished,
  filterStatuses,
  formatCount,
  formatProgress,
  formatTime,
  initialBatchesFlow,
  reduceBatchesFlow,
  useAdminAction,
  useCapture,
  useResource,
  useSelection,
  useTui,
  type AdminBatchView,
  type BatchQuery,
} from '../core/index.ts';
import type { ScreenProps } from './types.ts';

/** Batches per page. */
export const BATCHES_PAGE_SIZE = 50;

const STATUS_COLORS: Record<string, string> = { completed: 'green', failed: 'red', expired: 'red', cancelled: 'yellow', cancelling: 'yellow', in_progress: 'cyan', finalizing: 'cyan' };

const COLUMNS: Column<AdminBatchView>[] = [
  { header: 'ID', cell: (b) => b.id, max: 32, min: 12 },
  { header: 'STATUS', cell: (b) => b.status, min: 11 },
  { header: 'PROGRESS', cell: (b) => formatProgress(b.request_counts), min: 17 },
  { header: 'DONE', cell: (b) => formatCount(b.request_counts.completed), align: 'right' },
  { header: 'FAILED', cell: (b) => formatCount(b.request_counts.failed), align: 'right' },
  { header: 'TOTAL', cell: (b) => formatCount(b.request_counts.total), align: 'right' },
  { header: 'ACCOUNT', cell: (b) => b.account, max: 28, min: 8 },
  { header: 'ENDPOINT', cell: (b) => b.endpoint, max: 20, min: 8 },
  { header: 'CREATED', cell: (b) => formatTime(b.created_at), min: 16 },
];

/** One line of counts: `30 completed, 2 failed, 40 total`. */
function describeCounts(b: AdminBatchView): string {
  const c = b.request_counts;
  return `${formatCount(c.completed)} completed, ${formatCount(c.failed)} failed, ${formatCount(c.total)} total`;
}

/** Everything about one batch: counts, files, timestamps, metadata, the input's errors. */
function BatchView({ batch, height }: { batch: AdminBatchView; height: number }) {
  const times = (
    [
      ['created', batch.created_at],
      ['in progress', batch.in_progress_at],
      ['finalizing', batch.finalizing_at],
      ['completed', batch.completed_at],
      ['failed', batch.failed_at],
      ['expired', batch.expired_at],
      ['cancelling', batch.cancelling_at],
      ['cancelled', batch.cancelled_at],
    ] as Array<[string, number | null]>
  ).filter(([, t]) => t !== null);
  const errors = batch.errors?.data ?? [];
  const room = Math.max(1, height - 9 - (batch.metadata ? 1 : 0));
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1}>
      <Text bold>{`Batch ${batch.id}`}</Text>
      <Text>
        <Text color={STATUS_COLORS[batch.status]}>{batch.status}</Text>
        {` · ${batch.endpoint} · ${batch.account} · window ${batch.completion_window} (expires ${formatTime(batch.expires_at)})`}
      </Text>
      <Text>{`${formatProgress(batch.request_counts, 20)}  ${describeCounts(batch)}`}</Text>
      <Text wrap="truncate">{`input ${batch.input_file_id} · output ${batch.output_file_id ?? '-'} · errors ${batch.error_file_id ?? '-'}`}</Text>
      <Text dimColor wrap="truncate">
        {times.map(([what, t]) => `${what} ${formatTime(t)}`).join(' · ')}
      </Text>
      {batch.metadata ? <Text wrap="truncate">{`metadata ${Object.entries(batch.metadata).map(([k, v]) => `${k}=${v}`).join(', ')}`}</Text> : null}
      {errors.length === 0 ? null : <Text bold color="red">{`input errors (${errors.length})`}</Text>}
      {errors.slice(0, room).map((e, i) => (
        <Text key={i} color="red" wrap="truncate">
          {`${e.line === null ? '' : `line ${e.line}: `}${e.code}: ${e.message}`}
        </Text>
      ))}
      {errors.length > room ? <Text dimColor>{`… ${errors.length - room} more`}</Text> : null}
    </Box>
  );
}

/**
 * Batches of every account, newest first, with their progress: `s` filters by state, `[`/`]`
 * page, Enter opens one, `x` cancels one after a y/n (lines in flight may finish; what
 * finished stays in its output file).
 */
export function BatchesScreen({ width, height }: ScreenProps) {
  const { api, report } = useTui();
  const [flow, dispatch] = useReducer(reduceBatchesFlow, initialBatchesFlow);
  const query: BatchQuery = { limit: BATCHES_PAGE_SIZE, after: flow.cursors.at(-1), status: filterStatuses(flow.filter) };
  const queryKey = `${flow.cursors.length}/${flow.cursors.at(-1) ?? ''}/${flow.filter ?? ''}`;
  const batches = useResource('batches', async (a) => ({ key: queryKey, page: flow.cursors.length + 1, filter: flow.filter, ...(a.listBatches ? await a.listBatches(query) : { data: [], has_more: false }) }), { key: queryKey });
  const rows = batches.data?.data ?? [];
  const selection = useSelection(rows, (b) => b.id, 10, batches.data?.key);
  const act = useAdminAction();
  useCapture(batchesFlowCaptures(flow));

  // The opened batch follows the reloads (its progress moves while it runs).
  const fresh = flow.open ? rows.find((b) => b.id === flow.open!.id) : undefined;
  useEffect(() => dispatch({ type: 'refreshed', batch: fresh }), [fresh]);

  const askCancel = (batch: AdminBatchView) => {
    if (batchFinished(batch)) report({ tone: 'info', text: `Batch ${batch.id} is ${batch.status}: nothing to cancel.` });
    else dispatch({ type: 'ask-cancel', batch });
  };
  const cancel = async (batch: AdminBatchView) => {
    dispatch({ type: 'cancelling' });
    const done = await act('Cancelling batch', (a) => a.cancelBatch!({ id: batch.id }), (b) => `Batch ${b.id} is ${b.status} (${describeCounts(b)}).`);
    dispatch({ type: 'cancelled', batch: done });
  };

  useKeys((input, key) => {
    if (selection.onKey(input, key)) return;
    const selected = selection.selected;
    if (input === 's') dispatch({ type: 'cycle-filter' });
    else if (input === ']' && batches.data?.has_more && rows.length > 0) dispatch({ type: 'next-page', after: rows.at(-1)!.id });
    else if (input === '[') dispatch({ type: 'prev-page' });
    else if (key.return && selected) dispatch({ type: 'open', batch: selected });
    else if (input === 'x' && selected && api.cancelBatch) askCancel(selected);
  }, { active: !batchesFlowCaptures(flow) });
  useKeys((input, key) => {
    if (key.escape || key.return) dispatch({ type: 'close' });
    else if (input === 'x' && flow.open && api.cancelBatch) askCancel(flow.open);
  }, { active: flow.open !== undefined && flow.confirm === undefined && !flow.cancelling });

  const page = batches.data?.page ?? flow.cursors.length + 1;
  const filter = `status ${batches.data?.filter ?? flow.filter ?? 'any'}`;
  const title = batches.loading
    ? 'Batches …'
    : rows.length === 0
      ? `Batches (none · ${filter})`
      : `Batches (page ${page}${batches.data?.has_more ? ', more after' : ''} · ${rows.length} shown · ${filter})`;
  const cancelHint: Array<[string, string]> = api.cancelBatch ? [['x', 'cancel']] : [];
  const hints: Array<[string, string]> = flow.open ? [['Esc', 'back'], ...cancelHint] : [['↑/↓', 'move'], ['Enter', 'open'], ['s', 'status'], ['[ ]', 'page'], ...cancelHint];
  const confirmRows = flow.confirm ? 6 : 0;
  const selected = selection.selected;
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate">
        {title}
      </Text>
      {flow.open ? (
        <BatchView batch={flow.open} height={height - 2 - confirmRows} />
      ) : (
        <>
          <Table columns={COLUMNS} rows={rows} selected={selection.index} width={width} height={height - 7 - confirmRows} empty={batches.loading ? 'loading…' : 'No batches here.'} />
          {selected && !flow.confirm ? (
            <Box flexDirection="column">
              <Text wrap="truncate">
                <Text bold>{selected.id}</Text>
                {'  '}
                <Text color={STATUS_COLORS[selected.status]}>{selected.status}</Text>
                <Text dimColor>{` · ${describeCounts(selected)} · ${selected.endpoint} · ${selected.account}`}</Text>
              </Text>
              <Text dimColor wrap="truncate">
                {`output ${selected.output_file_id ?? '-'} · errors ${selected.error_file_id ?? '-'}${selected.errors?.data.length ? ` · ${selected.errors.data.length} input error(s): ${selected.errors.data[0].code}` : ''}`}
              </Text>
            </Box>
          ) : null}
        </>
      )}
      {flow.confirm ? (
        <ConfirmBox
          width={Math.min(width, 100)}
          question={`Cancel batch ${flow.confirm.id}?`}
          detail={`${describeCounts(flow.confirm)} for ${flow.confirm.account}. Lines in flight may finish; what finished stays in its output and error files. This cannot be undone.`}
          onYes={() => void cancel(flow.confirm!)}
          onNo={() => dispatch({ type: 'keep' })}
        />
      ) : null}
      {!flow.confirm ? <KeyHints hints={hints} /> : null}
    </Box>
  );
}
