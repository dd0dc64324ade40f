import { useState } from 'react';
import { query } from '../api/session.ts';
import { Pager } from '../components/pager.tsx';
import { useLoad } from '../components/use-load.ts';

/** USD strings as `GET /v1/models` gives them (per token, per image, per second…). */
interface Pricing {
  prompt?: string;
  completion?: string;
  image?: string;
  audio_minute?: string;
  speech_character?: string;
  per_second?: string;
  per_job?: string;
}

function dollars(usd: number, digits: number): string {
  return Number.isFinite(usd) ? `$${usd.toLocaleString(undefined, { maximumFractionDigits: digits })}` : '—';
}

function perMillion(value: string | undefined): string {
  return value === undefined ? '—' : dollars(Number(value) * 1e6, 3);
}

/** Per-item prices, as `gateway models ls` shows them: `$0.04 / image`, `$15 / 1M chars`, `$0.1 / s`. */
function mediaPrice(pricing: Pricing): string {
  const parts: string[] = [];
  if (pricing.image !== undefined) parts.push(`${dollars(Number(pricing.image), 6)} / image`);
  if (pricing.audio_minute !== undefined) parts.push(`${dollars(Number(pricing.audio_minute), 6)} / min`);
  if (pricing.speech_character !== undefined) parts.push(`${dollars(Number(pricing.speech_character) * 1e6, 3)} / 1M chars`);
  if (pricing.per_second !== undefined) parts.push(`${dollars(Number(pricing.per_second), 6)} / s`);
  if (pricing.per_job !== undefined) parts.push(`${dollars(Number(pricing.per_job), 6)} / job`);
  return parts.join(', ') || '—';
}

/** The catalog GET /v1/models knows: searched and filtered on the server, a page at a time. */
export function ModelsPage() {
  const [q, setQ] = useState('');
  const [type, setType] = useState('');
  const [capability, setCapability] = useState('');
  const [page, setPage] = useState(1);
  const list = useLoad(() => query('models.list', { q: q || undefined, type: type || undefined, capability: capability || undefined, page, pageSize: 25 }), [q, type, capability, page]);
  return (
    <>
      <h1>Models</h1>
      <div className="panel row">
        <label>Search<input type="search" value={q} onChange={(e) => { setQ(e.target.value); setPage(1); }} placeholder="gpt, claude, mock…" /></label>
        <label>
          Type
          <select value={type} onChange={(e) => { setType(e.target.value); setPage(1); }}>
            <option value="">all</option>
            {list.data?.types.map((t) => <option key={t} value={t}>{t}</option>)}
          </select>
        </label>
        <label>
          Capability
          <select value={capability} onChange={(e) => { setCapability(e.target.value); setPage(1); }}>
            <option value="">any</option>
            {list.data?.capabilities.map((c) => <option key={c} value={c}>{c}</option>)}
          </select>
        </label>
      </div>
      {list.error && <p className="error" role="alert">{list.error}</p>}
      <section className="panel">
        <div className="table-wrap">
          <table>
            <thead><tr><th>Model</th><th>Type</th><th className="num">Context</th><th className="num">Input / 1M</th><th className="num">Output / 1M</th><th className="num">Media</th><th>Capabilities</th></tr></thead>
            <tbody>
              {list.data?.data.map((m) => {
                const pricing = (m.pricing ?? {}) as Pricing;
                const media = mediaPrice(pricing);
                // A model priced per item only: its zero token prices say nothing. One priced by nobody
                // says UNPRICED, as `gateway models ls` does (billing.unpriced decides what it costs).
                const perItemOnly = media !== '—' && Number(pricing.prompt ?? 0) === 0 && Number(pricing.completion ?? 0) === 0;
                return (
                  <tr key={String(m.id)}>
                    <td><span className="mono">{String(m.id)}</span><br /><span className="muted">{String(m.display_name ?? '')}</span></td>
                    <td>{String(m.type)}</td>
                    <td className="num">{m.context_length ? Number(m.context_length).toLocaleString() : '—'}</td>
                    <td className="num">{!m.pricing ? 'UNPRICED' : perItemOnly ? '—' : perMillion(pricing.prompt)}</td>
                    <td className="num">{perItemOnly ? '—' : perMillion(pricing.completion)}</td>
                    <td className="num">{media}</td>
                    <td>{(m.capabilities as string[]).join(', ') || '—'}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        {list.data && <Pager label="Models" page={page} hasMore={list.data.has_more} total={list.data.total} onPage={setPage} />}
      </section>
    </>
  );
}
