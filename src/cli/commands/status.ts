import type { Command } from 'commander';
import { createTRPCClient, httpLink } from '@trpc/client';
import type { AdminRouter, ActivitySnapshot } from '../../admin/index.ts';
import { readServerInfo } from '../../store/index.ts';
import { noServerMessage, resolveContext } from '../context.ts';
import { formatTable, print, printJson } from '../format-table.ts';
import { CliError } from '../run-action.ts';

const count = new Intl.NumberFormat('en-US');

function duration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return h > 0 ? `${h}h ${String(m).padStart(2, '0')}m` : m > 0 ? `${m}m ${String(seconds % 60).padStart(2, '0')}s` : `${seconds}s`;
}

function percentiles(p: ActivitySnapshot['latency_ms']): string {
  return p ? `p50 ${p.p50.toFixed(1)} ms   p95 ${p.p95.toFixed(1)} ms` : '-';
}

function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

/** Requests a fallback served: in the window, since start, and which model fell back to which. */
function fallbacks(a: ActivitySnapshot): string {
  const pairs = a.top_fallbacks.map((f) => `${f.from} -> ${f.to} (${f.requests})`).join(', ');
  return `${count.format(a.fallbacks)} in the last ${Math.round(a.window_seconds)} s (${count.format(a.total_fallbacks)} since start)${pairs ? `: ${pairs}` : ''}`;
}

/** The live figures as text, the same ones the TUI Overview shows. */
export function formatActivity(url: string, a: ActivitySnapshot): string {
  const rows: Array<[string, string]> = [
    ['requests/s', `${a.requests_per_second.toFixed(1)}  (last 10 s; ${count.format(a.active_requests)} in flight, ${count.format(a.total_requests)} since start)`],
    ['error rate', `${(a.error_rate * 100).toFixed(1)} %  (${count.format(a.errors)} of ${count.format(a.requests)} in the last ${Math.round(a.window_seconds)} s)`],
    ['latency', percentiles(a.latency_ms)],
    ['time to first token', percentiles(a.ttft_ms)],
    ['tokens/min', count.format(a.tokens_per_minute)],
    ['credits/min', String(a.credits_per_minute)],
    ['top models', a.top_models.map((m) => `${m.model} (${m.requests})`).join(', ') || '-'],
    ['top providers', a.top_providers.map((p) => `${p.provider} (${p.requests})`).join(', ') || '-'],
    ['fallbacks', fallbacks(a)],
    ['open circuits', a.open_circuits.map((c) => `${c.model} (since ${clock(c.openedAt)})`).join(', ') || 'none'],
  ];
  // The dashboard's own calls are not traffic: said apart, only when there were some.
  if (a.dashboard_requests > 0) rows.push(['dashboard calls', `${count.format(a.dashboard_requests)} in the last ${Math.round(a.window_seconds)} s (not counted above)`]);
  const lines = [`gateway ${url}  up ${duration(a.uptime_seconds)}`, ...rows.map(([k, v]) => `${k.padEnd(21)}${v}`), '', 'latest requests'];
  lines.push(
    a.latest.length === 0
      ? '  (none in the last minute)'
      : formatTable(
          ['TIME', 'ROUTE', 'MODEL', 'PROVIDER', 'STATUS', 'DURATION', 'TOKENS IN/OUT', 'FALLBACK FROM'],
          a.latest.map((r) => [clock(r.time), r.route, r.model, r.provider, r.error_code ? `${r.status} ${r.error_code}` : r.status, `${r.duration_ms.toFixed(1)} ms`, r.input_tokens === null ? null : `${r.input_tokens}/${r.output_tokens ?? 0}`, r.fallback_from]),
        ),
  );
  return lines.join('\n');
}

/**
 * `gateway status [--json]`: the running server's live figures, once (the TUI Overview's).
 * Exit 1 with one line when no server runs on the data dir.
 */
export async function statusCommand(cmd: Command, opts: { json?: boolean }): Promise<void> {
  const ctx = await resolveContext(cmd);
  const server = readServerInfo(ctx.dataDir);
  if (!server) {
    if (opts.json) printJson({ running: false, data_dir: ctx.dataDir });
    throw new CliError(noServerMessage(ctx), 1);
  }
  const client = createTRPCClient<AdminRouter>({ links: [httpLink({ url: `${server.adminUrl ?? server.url}/admin/trpc`, headers: { authorization: `Bearer ${server.adminToken}` } })] });
  let activity: ActivitySnapshot | null;
  try {
    activity = await client.activity.query();
  } catch (error) {
    throw new CliError(`the server at ${server.url} did not answer: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`, 1);
  }
  if (!activity) throw new CliError(`the server at ${server.url} keeps no live figures`, 1);
  if (opts.json) return printJson({ running: true, url: server.url, data_dir: ctx.dataDir, ...activity });
  print(formatActivity(server.url, activity));
}
