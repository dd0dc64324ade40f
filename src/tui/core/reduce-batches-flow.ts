import type { AdminBatchView, BatchStatus } from './types.ts';

/** What the `s` key cycles through: `active` is every state a batch can still leave. */
export const BATCH_FILTERS = ['active', 'completed', 'failed', 'expired', 'cancelled'] as const;
export type BatchFilter = (typeof BATCH_FILTERS)[number];

const FILTER_STATUSES: Record<BatchFilter, BatchStatus[]> = {
  active: ['validating', 'in_progress', 'finalizing', 'cancelling'],
  completed: ['completed'],
  failed: ['failed'],
  expired: ['expired'],
  cancelled: ['cancelled'],
};

/** The statuses a filter asks the server for (undefined: all). */
export function filterStatuses(filter: BatchFilter | undefined): BatchStatus[] | undefined {
  return filter ? FILTER_STATUSES[filter] : undefined;
}

/** A batch nothing more happens to. */
export function batchFinished(batch: { status: BatchStatus }): boolean {
  return batch.status === 'completed' || batch.status === 'failed' || batch.status === 'expired' || batch.status === 'cancelled';
}

/** The Batches tab: the filter, the page (by cursor), and the batch opened or about to be cancelled. */
export interface BatchesFlow {
  filter?: BatchFilter;
  /** `after` cursors of the pages before this one; the last is this page's (empty: the first page). */
  cursors: string[];
  open?: AdminBatchView;
  confirm?: AdminBatchView;
  cancelling?: boolean;
}

export type BatchesFlowAction =
  | { type: 'cycle-filter' }
  | { type: 'next-page'; after: string }
  | { type: 'prev-page' }
  | { type: 'open'; batch: AdminBatchView }
  | { type: 'refreshed'; batch: AdminBatchView | undefined }
  | { type: 'close' }
  | { type: 'ask-cancel'; batch: AdminBatchView }
  | { type: 'keep' }
  | { type: 'cancelling' }
  | { type: 'cancelled'; batch: AdminBatchView | undefined };

export const initialBatchesFlow: BatchesFlow = { cursors: [] };

/** A dialog or the batch view owns the keyboard. */
export function batchesFlowCaptures(flow: BatchesFlow): boolean {
  return flow.open !== undefined || flow.confirm !== undefined || flow.cancelling === true;
}

/** A new filter starts from the first page; the opened batch follows reloads and a cancel. */
export function reduceBatchesFlow(flow: BatchesFlow, action: BatchesFlowAction): BatchesFlow {
  switch (action.type) {
    case 'cycle-filter': {
      const at = flow.filter === undefined ? -1 : BATCH_FILTERS.indexOf(flow.filter);
      return { ...flow, filter: BATCH_FILTERS[at + 1], cursors: [] };
    }
    case 'next-page':
      return { ...flow, cursors: [...flow.cursors, action.after] };
    case 'prev-page':
      return flow.cursors.length === 0 ? flow : { ...flow, cursors: flow.cursors.slice(0, -1) };
    case 'open':
      return { ...flow, open: action.batch };
    case 'refreshed':
      return flow.open && action.batch && action.batch.id === flow.open.id && action.batch !== flow.open ? { ...flow, open: action.batch } : flow;
    case 'close':
      return { ...flow, open: undefined };
    case 'ask-cancel':
      return { ...flow, confirm: action.batch };
    case 'keep':
      return { ...flow, confirm: undefined };
    case 'cancelling':
      return { ...flow, cancelling: true };
    case 'cancelled':
      return { ...flow, confirm: undefined, cancelling: false, open: flow.open && action.batch?.id === flow.open.id ? action.batch : flow.open };
  }
}
