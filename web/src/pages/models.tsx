import { useState } from 'react';
import { query } from '../api/session.ts';
import { Pager } from '../components/pager.tsx';
import { useLoad } from '../components/use-load.ts';

interface Pricing {
  prompt?: string;
  completion?: string;
}

function perMillion(value: string | undefined): string {
  if (value === undefined) return '—';
  const usd = Number(value) * 1e6;
  return Number.isFinite(usd) ? `$${usd.toLocaleString(undefined, { maximumFractionDigits: 3 })}` : '—';
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
            <thead><tr><th>Model</th><th>Type</th><th className="num">Context</th><th className="num">Input / 1M</th><th className="num">Output / 1M</th><th>Capabilities</th></tr></thead>
            <tbody>
              {list.data?.data.map((m) => {
                const pricing = (m.pricing ?? {}) as Pricing;
                return (
                  <tr key={String(m.id)}>
                    <td><span className="mono">{String(m.id)}</span><br /><span className="muted">{String(m.display_name ?? '')}</span></td>
                    <td>{String(m.type)}</td>
                    <td className="num">{m.context_length ? Number(m.context_length).toLocaleString() : '—'}</td>
                    <td className="num">{perMillion(pricing.prompt)}</td>
                    <td className="num">{perMillion(pricing.completion)}</td>
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
