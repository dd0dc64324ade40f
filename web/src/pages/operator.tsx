import { useState, type FormEvent } from 'react';
import { adminCall, adminToken, setAdminToken, type AdminOutputs } from '../api/admin.ts';
import { count, credits, endpointPath, statusClass, when } from '../components/format.ts';
import { useLoad } from '../components/use-load.ts';

type Activity = NonNullable<AdminOutputs['activity']>;
type Account = AdminOutputs['accounts']['list'][number];

/** Asks for the admin token (printed by `gateway dashboard`); it stays in this tab only. */
function TokenForm({ onToken }: { onToken: () => void }) {
  const [token, setToken] = useState('');
  return (
    <form
      className="panel"
      onSubmit={(e) => {
        e.preventDefault();
        setAdminToken(token.trim());
        onToken();
      }}
    >
      <h2>Admin token</h2>
      <p className="muted">
        Operator views use the admin procedures, which answer only on this machine (or on the admin listener). Run <span className="mono">gateway dashboard</span> for a link that signs you in, or paste the <span className="mono">adminToken</span> of the data dir's <span className="mono">server.json</span>.
      </p>
      <div className="row">
        <label style={{ flex: 1 }}>Admin token<input type="password" autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} required /></label>
        <button type="submit">Open operator views</button>
      </div>
    </form>
  );
}

function Live({ a }: { a: Activity }) {
  return (
    <>
      <section className="cards" aria-label="Live figures (last minute)">
        <div className="panel card"><div className="label">Requests / s</div><div className="value" data-testid="rps">{a.requests_per_second.toFixed(2)}</div></div>
        <div className="panel card"><div className="label">In flight</div><div className="value">{a.active_requests}</div></div>
        <div className="panel card"><div className="label">Error rate</div><div className="value">{(a.error_rate * 100).toFixed(1)}%</div></div>
        <div className="panel card"><div className="label">Latency p50 / p95</div><div className="value">{a.latency_ms ? `${a.latency_ms.p50} / ${a.latency_ms.p95}` : '—'}</div><div className="muted">ms</div></div>
        <div className="panel card"><div className="label">First token p50 / p95</div><div className="value">{a.ttft_ms ? `${a.ttft_ms.p50} / ${a.ttft_ms.p95}` : '—'}</div><div className="muted">ms</div></div>
        <div className="panel card"><div className="label">Tokens / min</div><div className="value">{count(Math.round(a.tokens_per_minute))}</div></div>
        <div className="panel card"><div className="label">Credits / min</div><div className="value">{credits(a.credits_per_minute)}</div></div>
        <div className="panel card"><div className="label">Requests since start</div><div className="value">{count(a.total_requests)}</div></div>
        <div className="panel card"><div className="label">Fallbacks</div><div className="value" data-testid="fallbacks">{count(a.fallbacks)}</div><div className="muted">{count(a.total_fallbacks)} since start</div></div>
      </section>
      <section className="panel">
        <h2>Top models and providers</h2>
        {a.top_models.length === 0 && a.top_providers.length === 0 ? (
          <p className="muted">None.</p>
        ) : (
          <div className="row" style={{ alignItems: 'start', gap: '2rem' }}>
            <ul aria-label="Top models">{a.top_models.map((m) => <li key={m.model}><span className="mono">{m.model}</span>: {m.requests}</li>)}</ul>
            <ul aria-label="Top providers">{a.top_providers.map((p) => <li key={p.provider}><span className="mono">{p.provider}</span>: {p.requests}</li>)}</ul>
          </div>
        )}
        <h2>Fallbacks</h2>
        {a.top_fallbacks.length === 0 ? (
          <p className="muted">None in the last minute.</p>
        ) : (
          <table aria-label="Fallbacks">
            <thead><tr><th>Failed first</th><th>Served by</th><th className="num">Requests</th></tr></thead>
            <tbody>{a.top_fallbacks.map((f) => <tr key={`${f.from} ${f.to}`}><td className="mono">{f.from}</td><td className="mono">{f.to}</td><td className="num">{f.requests}</td></tr>)}</tbody>
          </table>
        )}
        {a.dashboard_requests > 0 && <p className="muted">Dashboard calls in the last minute (not counted as requests): {count(a.dashboard_requests)}</p>}
        <h2>Open circuits</h2>
        {a.open_circuits.length === 0 ? <p className="muted">None.</p> : <ul aria-label="Open circuits">{a.open_circuits.map((c) => <li key={c.model}><span className="mono">{c.model}</span> <span className="muted">since {when(c.openedAt, 'ms')}</span></li>)}</ul>}
      </section>
      <section className="panel">
        <h2>Latest requests</h2>
        <div className="table-wrap">
          <table>
            <thead><tr><th>Time</th><th>Route</th><th>Model</th><th>Status</th><th className="num">ms</th></tr></thead>
            <tbody>
              {a.latest.map((r, i) => (
                <tr key={`${r.time}-${i}`}>
                  <td>{when(r.time, 'ms')}</td>
                  <td className="mono" title={r.route}>{endpointPath(r.route)}</td>
                  <td className="mono">{r.model ?? '—'}{r.fallback_from && <span className="muted" title={`fallback: ${r.fallback_from} failed first`}> (fallback from {r.fallback_from})</span>}</td>
                  <td><span className={r.status >= 400 ? 'badge bad' : 'badge ok'}>{r.status}{r.error_code ? ` ${r.error_code}` : ''}</span></td>
                  <td className="num">{r.duration_ms}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </>
  );
}

/** What `GET /health` says (docs/routing.md "Health and failure logs"): the parts this page shows. */
interface HealthBody {
  status?: string;
  provider_health?: Array<{ id: string; state: string; models: number; circuits: Array<{ model: string; state: string; failures: number }> }>;
  storage?: { writable: boolean };
  limits?: { store: string; reachable: boolean; on_error: string };
  database?: { store: string; reachable: boolean };
}

function Health() {
  const health = useLoad(async () => {
    const response = await fetch('/health');
    return (await response.json()) as HealthBody;
  }, [], { intervalMs: 5_000 });
  if (!health.data) return null;
  const { status, provider_health: providers = [], storage, limits, database } = health.data;
  const services = [
    storage && `data dir ${storage.writable ? 'writable' : 'NOT writable'}`,
    limits && `limits: ${limits.store} ${limits.reachable ? 'reachable' : `unreachable (fails ${limits.on_error})`}`,
    database && `database: ${database.store} ${database.reachable ? 'reachable' : 'unreachable'}`,
  ].filter(Boolean);
  return (
    <section className="panel">
      <h2>Provider health <span className={statusClass(status === 'unavailable' ? 'failed' : (status ?? ''))}>{status}</span></h2>
      <table aria-label="Provider health">
        <thead><tr><th>Provider</th><th>State</th><th className="num">Models</th><th>Circuits with failures</th></tr></thead>
        <tbody>
          {providers.map((p) => (
            <tr key={p.id}>
              <td className="mono">{p.id}</td>
              <td><span className={statusClass(p.state === 'down' ? 'failed' : p.state)}>{p.state}</span></td>
              <td className="num">{count(p.models)}</td>
              <td>{p.circuits.length === 0 ? '—' : p.circuits.map((c) => `${c.model} ${c.state} (${c.failures})`).join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {services.length > 0 && <p className="muted">{services.join(' · ')}</p>}
    </section>
  );
}

function Accounts() {
  const accounts = useLoad(() => adminCall<Account[]>('accounts.list', 'query'), []);
  const [page, setPage] = useState(1);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [grant, setGrant] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const pageSize = 20;
  const rows = accounts.data?.slice((page - 1) * pageSize, page * pageSize) ?? [];

  const act = (run: () => Promise<unknown>) => {
    setError(undefined);
    run().then(() => accounts.reload(), (e: Error) => setError(e.message));
  };
  function create(event: FormEvent) {
    event.preventDefault();
    act(async () => {
      await adminCall('accounts.create', 'mutation', { email, password: password || undefined, credits: grant === '' ? undefined : Number(grant) });
      setEmail('');
      setPassword('');
      setGrant('');
    });
  }
  return (
    <section className="panel">
      <h2>Accounts</h2>
      <form className="row" onSubmit={create}>
        <label>Email<input type="email" value={email} onChange={(e) => setEmail(e.target.value)} required /></label>
        <label>Password<input type="password" value={password} onChange={(e) => setPassword(e.target.value)} minLength={8} autoComplete="new-password" /></label>
        <label>Credits<input type="number" min={0} value={grant} onChange={(e) => setGrant(e.target.value)} /></label>
        <button type="submit">Create account</button>
      </form>
      {(error || accounts.error) && <p className="error" role="alert">{error ?? accounts.error}</p>}
      <div className="table-wrap">
        <table>
          <thead><tr><th>Email</th><th>Tier</th><th className="num">Credits</th><th className="num">Spent this month</th><th>Status</th><th><span className="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {rows.map((a) => (
              <tr key={a.id}>
                <td>{a.email}</td>
                <td>
                  <select aria-label={`Tier of ${a.email}`} value={a.tier} onChange={(e) => act(() => adminCall('accounts.set', 'mutation', { email: a.email, tier: e.target.value }))}>
                    {['free', 'basic', 'fellow', 'pro', 'enterprise'].map((t) => <option key={t}>{t}</option>)}
                  </select>
                </td>
                <td className="num">{credits(a.credits)}</td>
                <td className="num">{a.month_spent === null ? '—' : credits(a.month_spent)}</td>
                <td><span className={a.suspended ? 'badge bad' : 'badge ok'}>{a.suspended ? 'suspended' : 'active'}</span></td>
                <td className="row">
                  <button type="button" className="secondary" aria-label={`Add 1000 credits to ${a.email}`} onClick={() => act(() => adminCall('billing.addCredits', 'mutation', { email: a.email, add: 1000 }))}>+1000 cr</button>
                  <button type="button" className={a.suspended ? 'secondary' : 'danger'} onClick={() => act(() => adminCall('accounts.set', 'mutation', { email: a.email, suspended: !a.suspended }))}>{a.suspended ? 'Unsuspend' : 'Suspend'}</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <nav className="pager" aria-label="Account pages">
        <button type="button" className="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>Previous</button>
        <span>Page {page}</span>
        <button type="button" className="secondary" disabled={page * pageSize >= (accounts.data?.length ?? 0)} onClick={() => setPage(page + 1)}>Next</button>
      </nav>
    </section>
  );
}

/** The TUI's live overview, provider health, accounts and the latest requests, through the admin procedures. */
export function OperatorPage() {
  const [token, setToken] = useState(adminToken);
  const activity = useLoad(() => (token ? adminCall<Activity | null>('activity', 'query') : Promise.resolve(null)), [token], { intervalMs: token ? 1_000 : false });
  const refused = activity.error !== undefined;
  return (
    <>
      <h1>Operator</h1>
      {(!token || refused) && (
        <>
          {refused && <p className="error" role="alert">The admin procedures refused: {activity.error}. They answer only on this machine or the admin listener, with this server's current admin token.</p>}
          <TokenForm onToken={() => setToken(adminToken())} />
        </>
      )}
      {token && !refused && activity.data && <Live a={activity.data} />}
      {token && !refused && <Health />}
      {token && !refused && <Accounts />}
    </>
  );
}
