import type { StatusMessage, TuiAdminApi } from './types.ts';

export type TabId = 'overview' | 'accounts' | 'keys' | 'models' | 'media' | 'batches';

export interface Tab {
  id: TabId;
  title: string;
}

/** The tabs this gateway can fill: Media and Batches only when their procedures exist. */
export function availableTabs(api: TuiAdminApi): Tab[] {
  const tabs: Tab[] = [
    { id: 'overview', title: 'Overview' },
    { id: 'accounts', title: 'Accounts' },
    { id: 'keys', title: 'Keys' },
    { id: 'models', title: 'Models' },
  ];
  if (api.listMedia) tabs.push({ id: 'media', title: 'Media' });
  if (api.listBatches) tabs.push({ id: 'batches', title: 'Batches' });
  return tabs;
}

export interface AppState {
  tabs: TabId[];
  tab: TabId;
  /** Bumped by `r`, the auto-refresh timer and finished actions; data hooks reload on change. */
  tick: number;
  /** Bumped with `tick` except by the auto-refresh timer: costly loads skip the timer's ticks. */
  manualTick: number;
  status: StatusMessage | null;
  /** A prompt or confirmation owns the keyboard: global keys are off. */
  captured: boolean;
}

export type AppAction =
  | { type: 'select'; index: number }
  | { type: 'cycle'; delta: 1 | -1 }
  | { type: 'refresh'; auto?: boolean }
  | { type: 'status'; status: StatusMessage | null }
  | { type: 'clear-status'; source: string }
  | { type: 'capture'; captured: boolean };

export function initialAppState(tabs: TabId[]): AppState {
  return { tabs, tab: tabs[0], tick: 0, manualTick: 0, status: null, captured: false };
}

/** Tab switching (which clears the status line: the new tab reports its own), refresh ticks, status and keyboard capture. */
export function reduceAppState(state: AppState, action: AppAction): AppState {
  switch (action.type) {
    case 'select': {
      const tab = state.tabs[action.index];
      return tab && tab !== state.tab ? { ...state, tab, status: null } : state;
    }
    case 'cycle': {
      const n = state.tabs.length;
      const at = state.tabs.indexOf(state.tab);
      const tab = state.tabs[(at + action.delta + n) % n];
      return tab === state.tab ? state : { ...state, tab, status: null };
    }
    case 'refresh':
      return { ...state, tick: state.tick + 1, manualTick: action.auto ? state.manualTick : state.manualTick + 1 };
    case 'status':
      return { ...state, status: action.status };
    case 'clear-status':
      return state.status?.source === action.source ? { ...state, status: null } : state;
    case 'capture':
      return state.captured === action.captured ? state : { ...state, captured: action.captured };
  }
}
