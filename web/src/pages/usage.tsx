import { useState } from 'react';
import { query, type OutputOf } from '../api/session.ts';
import { BarChart } from '../components/charts.tsx';
import { count, credits, endpointPath, statusClass, usd, utcDay, when } from '../components/format.ts';
import { useLoad } from '../components/use-load.ts';

type RequestRow = OutputOf<'usage.requests'>['data'][number];

const CSV_COLUMNS = ['request_id', 'created_at', 'status', 'model', 'provider', 'endpoint', 'key_id', 'input_tokens', 'output_tokens', 'reasoning_tokens', 'cached_tokens', 'web_search_requests', 'cost_credits', 'cost_usd'] as const;
const CSV_MAX_ROWS = 100_000;

function csvCell(value: unknown): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Downloads the period's requests as CSV, fetched a server page at a time. */
async function exportCsv(from: string, to: string, onProgress: (rows: number) => void): Promise<void> {
  const lines = [CSV_COLUMNS.join(',')];
  const fromMs = Date.parse(from);
  const toMs = Date.parse(to) + 86_400_000;
  let cursor: string | undefined;
  let done = false;
  while (!done && lines.length <= CSV_MAX_ROWS) {
    const page = await query('usage.requests', { cursor, limit: 500 });
    for (const row of page.data) {
      if (row.created_at < fromMs) {
        done = true;
        break;
      }
      if (row.created_at < toMs) lines.push(CSV_COLUMNS.map((c) => csvCell(c === 'created_at' ? new Date(row.created_at).toISOString() : row[c])).join(','));
    }
    onProgress(lines.length - 1);
    if (!page.next) break;
    cursor = page.next;
  }
  const url = URL.createObjectURL(new Blob([lines.join('\n') + '\n'], { type: 'text/csv' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `gateway-usage-${from}-${to}.csv`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Spend and tokens per day and model for a period; the recent requests a server page at a time. */
export function UsagePage() {
  const today = utcDay(Date.now());
  const [from, setFrom] = useState(utcDay(Date.now() - 29 * 86_400_000));
  const [to, setTo] = useState(today);
  const daily = useLoad(() => query('usage.daily', { from, to }), [from, to]);
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const requests = useLoad(() => query('usage.requests', { cursor, limit: 50 }), [cursor]);
  const [exporting, setExporting] = useState<string | undefined>(undefined);

  const days: string[] = [];
  for (let at = Date.parse(daily.data?.from ?? from); at <= Date.parse(daily.data?.to ?? to); at += 86_400_000) days.push(utcDay(at));
  const perDay = new Map(days.map((d) => [d, { credits: 0, tokens: 0 }]));
  const perModel = new Map<string, { requests: number; credits: number; prompt: number; completion: number }>();
  for (const row of daily.data?.data ?? []) {
    const d = perDay.get(row.date);
    if (d) {
      d.credits += row.usage_credits;
      d.tokens += row.prompt_tokens + row.completion_tokens;
    }
    const m = perModel.get(row.model) ?? { requests: 0, credits: 0, prompt: 0, completion: 0 };
    m.requests += row.requests;
    m.credits += row.usage_credits;
    m.prompt += row.prompt_tokens;
    m.completion += row.completion_tokens;
    perModel.set(row.model, m);
  }

  return (
    <>
      <h1>Usage</h1>
      <section className="panel" aria-labelledby="period">
        <h2 id="period">Period</h2>
        <div className="row">
          <label>From<input type="date" value={from} max={to} onChange={(e) => e.target.value && setFrom(e.target.value)} /></label>
          <label>To<input type="date" value={to} min={from} max={today} onChange={(e) => e.target.value && setTo(e.target.value)} /></label>
          <button
            type="button"
            className="secondary"
            disabled={exporting !== undefined}
            onClick={() => {
              setExporting('starting…');
              exportCsv(from, to, (rows) => setExporting(`${rows.toLocaleString()} rows…`))
                .catch((e: unknown) => alert(e instanceof Error ? e.message : String(e)))
                .finally(() => setExporting(undefined));
            }}
          >
            {exporting ? `Exporting ${exporting}` : 'Export CSV'}
          </button>
        </div>
        <p className="muted">Daily totals cover the last 30 days (UTC).</p>
        {daily.error && <p className="error" role="alert">{daily.error}</p>}
      </section>
      <section className="panel" aria-labelledby="spend-chart">
        <h2 id="spend-chart">Spend per day</h2>
        <BarChart values={days.map((d) => perDay.get(d)!.credits)} labels={days} label="Credits per day" format={credits} />
        <h2 style={{ marginTop: '1rem' }}>Tokens per day</h2>
        <BarChart values={days.map((d) => perDay.get(d)!.tokens)} labels={days} label="Tokens per day" format={count} />
      </section>
      <section className="panel" aria-labelledby="per-model">
        <h2 id="per-model">Per model</h2>
        <div className="table-wrap">
          <table>
            <thead><tr><th>Model</th><th className="num">Requests</th><th className="num">Input tokens</th><th className="num">Output tokens</th><th className="num">Spend</th></tr></thead>
            <tbody>
              {[...perModel].sort((a, b) => b[1].credits - a[1].credits).map(([model, m]) => (
                <tr key={model}><td className="mono">{model}</td><td className="num">{count(m.requests)}</td><td className="num">{count(m.prompt)}</td><td className="num">{count(m.completion)}</td><td className="num">{credits(m.credits)}</td></tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section className="panel" aria-labelledby="recent">
        <h2 id="recent">Recent requests</h2>
        {requests.error && <p className="error" role="alert">{requests.error}</p>}
        <div className="table-wrap">
          <table data-testid="requests">
            <thead><tr><th>Time</th><th>Status</th><th>Model</th><th>Endpoint</th><th className="num">Tokens in / out</th><th className="num" title="Hosted web searches the upstream billed">Web searches</th><th className="num">Cost</th><th>Request id</th></tr></thead>
            <tbody>
              {requests.data?.data.map((r: RequestRow) => (
                <tr key={r.request_id}>
                  <td>{when(r.created_at, 'ms')}</td>
                  <td><span className={statusClass(r.status)}>{r.status}</span>{r.estimated && <span className="muted"> (estimated)</span>}</td>
                  <td className="mono">{r.model}</td>
                  <td className="mono" title={r.endpoint}>{endpointPath(r.endpoint)}</td>
                  <td className="num">{count(r.input_tokens)} / {count(r.output_tokens)}</td>
                  <td className="num">{r.web_search_requests > 0 ? count(r.web_search_requests) : ''}</td>
                  <td className="num">{credits(r.cost_credits)}<br /><span className="muted">{usd(r.cost_usd)}</span></td>
                  <td className="mono">{r.request_id}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {requests.data?.data.length === 0 && <p className="muted">No requests on this page.</p>}
        <nav className="pager" aria-label="Request pages">
          <button type="button" className="secondary" disabled={cursors.length <= 1} onClick={() => setCursors(cursors.slice(0, -1))}>Newer</button>
          <span>Page {cursors.length}</span>
          <button type="button" className="secondary" disabled={!requests.data?.next} onClick={() => setCursors([...cursors, requests.data!.next!])}>Older</button>
        </nav>
      </section>
    </>
  );
}
