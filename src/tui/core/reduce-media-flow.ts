import type { AdminMediaView, MediaStatusFilter, MediaTypeFilter } from './types.ts';

export const MEDIA_TYPE_FILTERS: readonly MediaTypeFilter[] = ['image', 'video', 'music', 'threed'];
export const MEDIA_STATUS_FILTERS: readonly MediaStatusFilter[] = ['pending', 'processing', 'completed', 'failed'];

/** The Media tab: filters, the page shown, and the record opened or about to be deleted. */
export interface MediaFlow {
  type?: MediaTypeFilter;
  status?: MediaStatusFilter;
  /** From 1. */
  page: number;
  /** The record shown in full. */
  open?: AdminMediaView;
  /** The record a y/n confirmation asks to delete. */
  confirm?: AdminMediaView;
  deleting?: boolean;
}

export type MediaFlowAction =
  | { type: 'cycle-type' }
  | { type: 'cycle-status' }
  | { type: 'page'; delta: 1 | -1; pages: number }
  | { type: 'open'; record: AdminMediaView }
  | { type: 'close' }
  | { type: 'ask-delete'; record: AdminMediaView }
  | { type: 'cancel-delete' }
  | { type: 'deleting' }
  | { type: 'deleted'; id: string | undefined };

export const initialMediaFlow: MediaFlow = { page: 1 };

/** undefined → the first value → … → the last → undefined (no filter). */
function next<T>(values: readonly T[], current: T | undefined): T | undefined {
  if (current === undefined) return values[0];
  const at = values.indexOf(current);
  return at + 1 < values.length ? values[at + 1] : undefined;
}

/** A dialog or the record view owns the keyboard. */
export function mediaFlowCaptures(flow: MediaFlow): boolean {
  return flow.open !== undefined || flow.confirm !== undefined || flow.deleting === true;
}

/** Filters start again from page 1; a deleted record's view closes. */
export function reduceMediaFlow(flow: MediaFlow, action: MediaFlowAction): MediaFlow {
  switch (action.type) {
    case 'cycle-type':
      return { ...flow, type: next(MEDIA_TYPE_FILTERS, flow.type), page: 1 };
    case 'cycle-status':
      return { ...flow, status: next(MEDIA_STATUS_FILTERS, flow.status), page: 1 };
    case 'page': {
      const page = Math.min(Math.max(1, action.pages), Math.max(1, flow.page + action.delta));
      return page === flow.page ? flow : { ...flow, page };
    }
    case 'open':
      return { ...flow, open: action.record };
    case 'close':
      return { ...flow, open: undefined };
    case 'ask-delete':
      return { ...flow, confirm: action.record };
    case 'cancel-delete':
      return { ...flow, confirm: undefined };
    case 'deleting':
      return { ...flow, deleting: true };
    case 'deleted':
      return { ...flow, confirm: undefined, deleting: false, open: action.id !== undefined && flow.open?.id === action.id ? undefined : flow.open };
  }
}
