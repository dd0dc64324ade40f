import { Box, Text, useApp } from 'ink';
import { useCallback, useEffect, useMemo, useReducer, type ComponentType } from 'react';
import { KeyboardProvider, ScreenBoundary, StatusLine, TabBar, useKeys, useTerminalSize } from './components/index.ts';
import { availableTabs, initialAppState, reduceAppState, TuiContext, type ConnectionInfo, type StatusMessage, type TabId, type TuiAdminApi, type TuiServices } from './core/index.ts';
import { AccountsScreen, BatchesScreen, KeysScreen, MediaScreen, ModelsScreen, OverviewScreen, type ScreenProps } from './screens/index.ts';

/** How often a TUI connected to a running server reloads the current tab. */
export const DEFAULT_REFRESH_MS = 5_000;

const SCREENS: Record<TabId, ComponentType<ScreenProps>> = {
  overview: OverviewScreen,
  accounts: AccountsScreen,
  keys: KeysScreen,
  models: ModelsScreen,
  media: MediaScreen,
  batches: BatchesScreen,
};

export interface AppProps {
  api: TuiAdminApi;
  connection: ConnectionInfo;
  /** Auto-refresh period in server mode; 0 turns it off. A local TUI owns the data, so nothing changes behind it. */
  refreshMs?: number;
  now?: () => number;
}

/** The admin TUI: tab bar, the current screen, and a status line. */
export function App(props: AppProps) {
  return (
    <KeyboardProvider>
      <AppBody {...props} />
    </KeyboardProvider>
  );
}

function AppBody({ api, connection, refreshMs = DEFAULT_REFRESH_MS, now = Date.now }: AppProps) {
  const tabs = useMemo(() => availableTabs(api), [api]);
  const [state, dispatch] = useReducer(reduceAppState, tabs, (t) => initialAppState(t.map((tab) => tab.id)));
  const { exit } = useApp();
  const size = useTerminalSize();

  const refresh = useCallback(() => dispatch({ type: 'refresh' }), []);
  const autoRefreshTick = useCallback(() => dispatch({ type: 'refresh', auto: true }), []);
  const report = useCallback((status: StatusMessage) => dispatch({ type: 'status', status }), []);
  const clearStatus = useCallback((source: string) => dispatch({ type: 'clear-status', source }), []);
  const capture = useCallback((captured: boolean) => dispatch({ type: 'capture', captured }), []);
  const autoRefresh = connection.mode === 'server' && refreshMs > 0 && !state.captured;
  const autoRefreshMs = autoRefresh ? refreshMs : 0;
  const services = useMemo<TuiServices>(
    () => ({ api, connection, tick: state.tick, manualTick: state.manualTick, autoRefreshMs, refresh, report, clearStatus, capture, now }),
    [api, connection, state.tick, state.manualTick, autoRefreshMs, refresh, report, clearStatus, capture, now],
  );

  useEffect(() => {
    if (!autoRefresh) return;
    const timer = setInterval(autoRefreshTick, refreshMs);
    return () => clearInterval(timer);
  }, [autoRefresh, autoRefreshTick, refreshMs]);

  // Ctrl-C quits from anywhere, even from a dialog, and even inside a chunk of typed-ahead text.
  useKeys((input, key) => {
    if ((key.ctrl && input === 'c') || input.includes('\u0003')) exit();
  }, { perKey: false });
  useKeys((input, key) => {
    if (input === 'q') exit();
    else if (input === 'r') refresh();
    else if (/^[1-9]$/.test(input)) dispatch({ type: 'select', index: Number(input) - 1 });
    else if (key.rightArrow || key.tab) dispatch({ type: 'cycle', delta: 1 });
    else if (key.leftArrow) dispatch({ type: 'cycle', delta: -1 });
  }, { active: !state.captured });

  const Screen = SCREENS[state.tab];
  // One row short of the terminal: a frame as tall as the screen makes Ink clear it on every render.
  const height = Math.max(10, size.rows - 1);
  const where = connection.mode === 'server' ? connection.url ?? '' : connection.dataDir;
  return (
    <TuiContext.Provider value={services}>
      <Box flexDirection="column" width={size.columns} height={height}>
        {/* The title and the mode stay whole on a narrow terminal; the URL or the data dir gives way from its start. */}
        <Box justifyContent="space-between">
          <Box flexShrink={0} marginRight={2}>
            <Text bold color="cyan">
              gateway admin
            </Text>
          </Box>
          <Box flexShrink={1}>
            <Box flexShrink={0}>
              <Text dimColor>{`${connection.mode === 'server' ? 'server' : 'local'} `}</Text>
            </Box>
            <Text dimColor wrap="truncate-start">
              {where}
            </Text>
          </Box>
        </Box>
        <TabBar tabs={tabs} current={state.tab} />
        {/* The rows between the tabs and the status line, whatever the screen's height (basis 0: a taller screen squeezes no line around it). */}
        <Box flexDirection="column" flexGrow={1} flexBasis={0} marginTop={1} overflow="hidden">
          {/* A screen taller than the room is cut at the bottom, whole rows: never squeezed, which dropped rows and drew one over another. */}
          <Box flexDirection="column" flexShrink={0}>
            <ScreenBoundary key={state.tab}>
              <Screen width={size.columns} height={height - 4} />
            </ScreenBoundary>
          </Box>
        </Box>
        <StatusLine status={state.status} hints={`1-${tabs.length} or ←/→ tabs · r refresh · q quit${autoRefresh ? ` · auto-refresh ${refreshMs / 1000}s` : ''}`} />
      </Box>
    </TuiContext.Provider>
  );
}
