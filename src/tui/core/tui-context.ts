import { createContext, useContext } from 'react';
import type { ConnectionInfo, StatusMessage, TuiAdminApi } from './types.ts';

/** What every screen and hook reaches through context: the API and the app's shared controls. */
export interface TuiServices {
  api: TuiAdminApi;
  connection: ConnectionInfo;
  /** Changes whenever data should be reloaded. */
  tick: number;
  /** Changes on reloads asked for by the operator (`r`) or an action, not by the auto-refresh timer. */
  manualTick: number;
  /** The auto-refresh period now in force, 0 when off (local mode, `--refresh 0`, a dialog open). */
  autoRefreshMs: number;
  refresh(): void;
  report(status: StatusMessage): void;
  /** Clears the status line if `source` posted what it shows. */
  clearStatus(source: string): void;
  /** A dialog takes (true) or gives back (false) the keyboard. */
  capture(captured: boolean): void;
  now(): number;
}

export const TuiContext = createContext<TuiServices | null>(null);

export function useTui(): TuiServices {
  const services = useContext(TuiContext);
  if (!services) throw new Error('useTui() outside <TuiContext.Provider>');
  return services;
}
