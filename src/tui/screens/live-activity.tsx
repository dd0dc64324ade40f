import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { formatCount, truncate, useTui, type ActivitySnapshot, type LiveActivity } from '../core/index.ts';

/** Rows the summary takes: its heading and eleven figures. */
export const LIVE_SUMMARY_ROWS = 12;

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Box>
      <Box width={21} flexShrink={0}>
        <Text dimColor>{label}</Text>
      </Box>
      <Text wrap="truncate">{children}</Text>
    </Box>
  );
}

function percentiles(p: ActivitySnapshot['latency_ms']): string {
  return p ? `p50 ${p.p50.toFixed(1)} ms  p95 ${p.p95.toFixed(1)} ms` : '-';
}

const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);

const COLUMNS: Array<[string, number]> = [
  ['TIME', 9],
  // The route says what a request without a model was (a model list, a job's poll, the dashboard's calls).
  ['ROUTE', 22],
  ['MODEL', 24],
  ['PROVIDER', 12],
  ['STATUS', 8],
  ['DURATION', 11],
  ['TOKENS', 12],
  // The model that failed first when a fallback served (as gateway status's column and the Operator page say); cut on a narrow terminal.
  ['FALLBACK FROM', 24],
];

function line(cells: string[]): string {
  return cells.map((cell, i) => truncate(cell, COLUMNS[i][1] - 1).padEnd(COLUMNS[i][1])).join('');
}

function Latest({ rows, max }: { rows: ActivitySnapshot['latest']; max: number }) {
  if (rows.length === 0) return <Text dimColor>  no requests in the last minute</Text>;
  return (
    <Box flexDirection="column">
      <Text dimColor wrap="truncate">
        {line(COLUMNS.map(([h]) => h))}
      </Text>
      {rows.slice(0, max).map((r, i) => (
        <Text key={`${r.time}-${i}`} color={r.status >= 400 || r.error_code ? 'red' : undefined} wrap="truncate">
          {line([clock(r.time), r.route, r.model ?? '-', r.provider ?? '-', String(r.status), `${r.duration_ms.toFixed(1)} ms`, r.input_tokens === null ? '-' : `${r.input_tokens}/${r.output_tokens ?? 0}`, r.fallback_from ?? '-'])}
        </Text>
      ))}
    </Box>
  );
}

export interface LiveActivityProps {
  /** The polled figures (useLiveActivity, once per screen). */
  live: LiveActivity;
  /** The figures only (no latest requests). */
  summaryOnly?: boolean;
  /** The latest requests only. */
  latestOnly?: boolean;
  /** How many of the latest requests to list (newest first; older ones scroll away). */
  latestRows: number;
}

/** The Overview's live section: what the server is doing now, refreshed every second. */
export function LiveActivitySection({ live, summaryOnly = false, latestOnly = false, latestRows }: LiveActivityProps) {
  const { connection, api } = useTui();
  const heading = (
    <Text bold color="cyan">
      Live <Text dimColor>(last minute, refreshed every second)</Text>
    </Text>
  );
  if (connection.mode !== 'server' || !api.activity) {
    if (latestOnly) return null;
    return (
      <Box flexDirection="column">
        {heading}
        <Text dimColor>no server is running: start `gateway serve` to see live activity</Text>
      </Box>
    );
  }
  const a = live.data;
  if (!a) {
    if (latestOnly) return null;
    return (
      <Box flexDirection="column">
        {heading}
        <Text dimColor>{live.error ? `live figures unavailable: ${live.error}` : '…'}</Text>
      </Box>
    );
  }
  const latest = (
    <Box flexDirection="column">
      <Text dimColor>latest requests{live.error ? ` (last poll failed: ${live.error})` : ''}</Text>
      <Latest rows={a.latest} max={latestRows} />
    </Box>
  );
  if (latestOnly) return latest;
  return (
    <Box flexDirection="column">
      {heading}
      <Row label="requests/s">
        {a.requests_per_second.toFixed(1)} <Text dimColor>({formatCount(a.total_requests)} total)</Text>
      </Row>
      <Row label="in flight">{formatCount(a.active_requests)}</Row>
      <Row label="error rate">
        <Text color={a.error_rate > 0 ? 'red' : undefined}>{(a.error_rate * 100).toFixed(1)} %</Text> <Text dimColor>({formatCount(a.errors)} of {formatCount(a.requests)})</Text>
      </Row>
      <Row label="latency">{percentiles(a.latency_ms)}</Row>
      <Row label="time to first token">{percentiles(a.ttft_ms)}</Row>
      <Row label="tokens/min">{formatCount(a.tokens_per_minute)}</Row>
      <Row label="credits/min">{String(a.credits_per_minute)}</Row>
      <Row label="top models">{a.top_models.map((m) => `${m.model} (${m.requests})`).join(', ') || '-'}</Row>
      <Row label="top providers">{a.top_providers.map((p) => `${p.provider} (${p.requests})`).join(', ') || '-'}</Row>
      <Row label="fallbacks">
        <Text color={a.fallbacks > 0 ? 'yellow' : undefined}>{formatCount(a.fallbacks)}</Text> <Text dimColor>({formatCount(a.total_fallbacks)} total)</Text>
        {a.top_fallbacks.length > 0 ? ` ${a.top_fallbacks.map((f) => `${f.from} → ${f.to} (${f.requests})`).join(', ')}` : ''}
      </Row>
      <Row label="open circuits">
        {a.open_circuits.length === 0 ? 'none' : <Text color="red">{a.open_circuits.map((c) => c.model).join(', ')}</Text>}
      </Row>
      {summaryOnly ? null : latest}
    </Box>
  );
}
