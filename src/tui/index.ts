/** The admin TUI: what the CLI starts (it talks to the server only through the admin procedures). */
export { runTui } from './run-tui.tsx';
export { createAdminApi, withReconnect } from './core/index.ts';
export type { ConnectionInfo, TuiAdminApi } from './core/types.ts';
