import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { formatCount, formatCredits, keyStatus, useLiveActivity, useResource, useTui, type Resource } from '../core/index.ts';
import { LIVE_SUMMARY_ROWS, LiveActivitySection } from './live-activity.tsx';
import type { ScreenProps } from './types.ts';

/** How often the auto-refresh reloads the usage totals. */
export const USAGE_AUTO_REFRESH_MS = 60_000;

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Box>
      <Box width={22} flexShrink={0}>
        <Text dimColor>{label}</Text>
      </Box>
      <Text wrap="truncate">{children}</Text>
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
  const { connection, api } = useTui();
  const live = useLiveActivity();
  if (connection.mode !== 'server' || !api.activity) {
    return (
      <Box flexDirection="column">
        <TotalsSection />
        <Text> </Text>
        <LiveActivitySection live={live} summaryOnly latestRows={0} />
      </Box>
    );
  }
  if (width >= 100) {
    return (
      <Box flexDirection="column">
        <Box>
          <Box flexDirection="column" width={Math.floor(width / 2)} flexShrink={0}>
            <TotalsSection />
          </Box>
          <Box flexDirection="column" flexGrow={1}>
            <LiveActivitySection live={live} summaryOnly latestRows={0} />
          </Box>
        </Box>
        <LiveActivitySection live={live} latestOnly latestRows={Math.max(2, height - TOTALS_ROWS - 3)} />
      </Box>
    );
  }
  return (
    <Box flexDirection="column">
      <LiveActivitySection live={live} latestRows={Math.max(2, Math.min(8, height - LIVE_SUMMARY_ROWS - TOTALS_ROWS - 4))} />
      <Text> </Text>
      <TotalsSection />
    </Box>
  );
}

/** Rows the totals take (connection, records, usage, with their headings and gaps). */
const TOTALS_ROWS = 15;

function TotalsSection() {
  const { connection, api, now, autoRefreshMs } = useTui();
  const accounts = useResource('accounts', (a) => a.listAccounts());
  const keys = useResource('keys', (a) => a.listKeys());
  const models = useResource('models', (a) => a.listModels());
  // The usage procedure scans the whole usage ledger on the server: not every 5 s.
  const usage = useResource('usage', (a) => (a.usage ? a.usage() : Promise.resolve(undefined)), { autoEveryMs: USAGE_AUTO_REFRESH_MS });

  const suspended = (list: { suspended: boolean }[]) => list.filter((a) => a.suspended).length;
  return (
    <Box flexDirection="column">
      <Text bold color="cyan">
        Connection
      </Text>
      <Row label="mode">
        {connection.mode === 'server' ? (
          <Text>
            <Text color="green">server</Text> {connection.url ?? ''} <Text dimColor>{autoRefreshMs > 0 ? `(auto-refresh every ${autoRefreshMs / 1000} s)` : '(press r to refresh)'}</Text>
          </Text>
        ) : (
          <Text>
            <Text color="yellow">local</Text> <Text dimColor>(no server running: this TUI holds the data dir lock until you quit)</Text>
          </Text>
        )}
      </Row>
      <Row label="data dir">{connection.dataDir}</Row>
      <Text> </Text>
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
            Usage <Text dimColor>(all accounts, from the usage ledger; 1 credit = 0.001 USD)</Text>
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
