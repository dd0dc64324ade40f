import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { formatCount, formatCredits, keyStatus, useLiveActivity, useResource, useTui, type ConnectionInfo, type Resource } from '../core/index.ts';
import { LIVE_SUMMARY_ROWS, LiveActivitySection } from './live-activity.tsx';
import type { ScreenProps } from './types.ts';

/** How often the auto-refresh reloads the usage totals. */
export const USAGE_AUTO_REFRESH_MS = 60_000;

/** The width of a row's label. */
const LABEL_COLUMNS = 22;

/** A label and its value, cut at the edge; `wrap`: carried on to the next lines instead (what must be read whole). */
function Row({ label, children, wrap = false }: { label: string; children: ReactNode; wrap?: boolean }) {
  return (
    <Box>
      <Box width={LABEL_COLUMNS} flexShrink={0}>
        <Text dimColor>{label}</Text>
      </Box>
      <Text wrap={wrap ? 'wrap' : 'truncate'}>{children}</Text>
    </Box>
  );
}

/** `…` while loading, `?` after a failure (the status line says why), else `show(data)`. */
function value<T>(resource: Resource<T>, show: (data: T) => string): string {
  if (resource.data !== undefined) return show(resource.data);
  return resource.error ? '?' : '…';
}

/**
 * Where the data comes from, how many records there are and usage totals from the ledger;
 * beside them (below on a narrow terminal) what the server is doing now, with the latest
 * requests underneath in the rows left.
 */
export function OverviewScreen({ width, height }: ScreenProps) {
  const { connection, api, autoRefreshMs } = useTui();
  const live = useLiveActivity();
  // The connection spans the screen's width (its mode line is read whole, wrapped if need be); the rows it takes are kept from the latest requests.
  const connectionRows = CONNECTION_ROWS + wrappedRows([modeText(connection, autoRefreshMs), dataDirText(connection)], width);
  if (connection.mode !== 'server' || !api.activity) {
    return (
      <Box flexDirection="column">
        <ConnectionSection />
        <TotalsSection />
        <Text> </Text>
        <LiveActivitySection live={live} summaryOnly latestRows={0} />
      </Box>
    );
  }
  if (width >= 100) {
    return (
      <Box flexDirection="column">
        <ConnectionSection />
        <Box>
          <Box flexDirection="column" width={Math.floor(width / 2)} flexShrink={0}>
            <TotalsSection />
          </Box>
          <Box flexDirection="column" flexGrow={1}>
            <LiveActivitySection live={live} summaryOnly latestRows={0} />
          </Box>
        </Box>
        <LiveActivitySection live={live} latestOnly latestRows={Math.max(1, height - connectionRows - totalsRows(Math.floor(width / 2)) - 2)} />
      </Box>
    );
  }
  // Below the totals, the live figures take the rows left (a short terminal cuts them at the bottom), the latest requests what the figures leave.
  const latestRows = Math.min(8, height - connectionRows - totalsRows(width) - 1 - LIVE_SUMMARY_ROWS - 2);
  return (
    <Box flexDirection="column">
      <ConnectionSection />
      <TotalsSection />
      <Text> </Text>
      <LiveActivitySection live={live} summaryOnly={latestRows < 1} latestRows={Math.max(1, latestRows)} />
    </Box>
  );
}

/** Rows the connection takes unwrapped (its heading, mode, data dir and the gap after them). */
const CONNECTION_ROWS = 4;

/** Rows the totals take (records and usage, with their headings and gaps). */
const TOTALS_ROWS = 11;

const USAGE_NOTE = '(all accounts, from the usage ledger; 1 credit = 0.001 USD)';

/** Rows the totals take in `width` columns: their heading of the usage wraps in a narrow column (half the screen beside the live figures). */
function totalsRows(width: number): number {
  return TOTALS_ROWS + Math.max(0, Math.ceil(`Usage ${USAGE_NOTE}`.length / Math.max(1, width)) - 1);
}

/** Rows past one that `values` take wrapped beside their labels in `width` columns. */
function wrappedRows(values: readonly string[], width: number): number {
  const room = Math.max(1, width - LABEL_COLUMNS);
  return values.reduce((rows, text) => rows + Math.max(0, Math.ceil(text.length / room) - 1), 0);
}

/** What the mode line says: the mode, the server's URL (none when local) and how the data is kept fresh. */
function modeLine(connection: ConnectionInfo, autoRefreshMs: number): { mode: 'server' | 'local'; url: string; note: string } {
  if (connection.mode !== 'server') return { mode: 'local', url: '', note: '(no server running: this TUI holds the data dir lock until you quit)' };
  return { mode: 'server', url: connection.url ?? '', note: autoRefreshMs > 0 ? `(auto-refresh every ${autoRefreshMs / 1000} s)` : '(press r to refresh)' };
}

function modeText(connection: ConnectionInfo, autoRefreshMs: number): string {
  const { mode, url, note } = modeLine(connection, autoRefreshMs);
  return [mode, url, note].filter(Boolean).join(' ');
}

/** Where the data comes from: the mode line and the data dir, whole (wrapped on a narrow terminal, never cut). */
/** The data dir, and when the TUI made it, that a gateway serving another data dir does not see its records. */
function dataDirText(connection: ConnectionInfo): string {
  return connection.newDataDir ? `${connection.dataDir} (new: there was none here, so this made it; a gateway serving another data dir does not see it)` : connection.dataDir;
}

function ConnectionSection() {
  const { connection, autoRefreshMs } = useTui();
  const { mode, url, note } = modeLine(connection, autoRefreshMs);
  return (
    <Box flexDirection="column">
      <Text bold color="cyan">
        Connection
      </Text>
      <Row label="mode" wrap>
        <Text>
          <Text color={mode === 'server' ? 'green' : 'yellow'}>{mode}</Text>
          {url ? ` ${url}` : ''} <Text dimColor>{note}</Text>
        </Text>
      </Row>
      <Row label="data dir" wrap>
        {dataDirText(connection)}
      </Row>
      <Text> </Text>
    </Box>
  );
}

function TotalsSection() {
  const { api, now } = useTui();
  const accounts = useResource('accounts', (a) => a.listAccounts());
  const keys = useResource('keys', (a) => a.listKeys());
  const models = useResource('models', (a) => a.listModels());
  // The usage procedure scans the whole usage ledger on the server: not every 5 s.
  const usage = useResource('usage', (a) => (a.usage ? a.usage() : Promise.resolve(undefined)), { autoEveryMs: USAGE_AUTO_REFRESH_MS });

  const suspended = (list: { suspended: boolean }[]) => list.filter((a) => a.suspended).length;
  return (
    <Box flexDirection="column">
      <Text bold color="cyan">
        Records
      </Text>
      <Row label="accounts">{value(accounts, (a) => `${formatCount(a.length)}${suspended(a) ? ` (${suspended(a)} suspended)` : ''}`)}</Row>
      <Row label="API keys">
        {value(keys, (k) => {
          const active = k.filter((key) => keyStatus(key, now()) === 'active').length;
          return `${formatCount(k.length)} (${formatCount(active)} active)`;
        })}
      </Row>
      <Row label="models">{value(models, (m) => formatCount(m.length))}</Row>
      {api.usage ? (
        <>
          <Text> </Text>
          <Text bold color="cyan">
            Usage <Text dimColor>{USAGE_NOTE}</Text>
          </Text>
          <Row label="requests">{value(usage, (u) => formatCount(sum(u?.accounts, (a) => a.requests)))}</Row>
          <Row label="credits spent">{value(usage, (u) => formatCredits(sum(u?.accounts, (a) => a.spent_credits)))}</Row>
          <Row label="tokens this month">{value(usage, (u) => formatCount(sum(u?.accounts, (a) => a.month_tokens)))}</Row>
          <Row label="searches this month">{value(usage, (u) => formatCount(sum(u?.accounts, (a) => a.month_web_search_requests ?? 0)))}</Row>
          <Row label="credit balance">{value(usage, (u) => formatCredits(sum(u?.accounts, (a) => a.balance)))}</Row>
        </>
      ) : null}
    </Box>
  );
}

function sum<T>(rows: T[] | undefined, pick: (row: T) => number): number {
  return (rows ?? []).reduce((total, row) => total + pick(row), 0);
}
