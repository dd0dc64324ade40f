import { useState, type FormEvent } from 'react';
import { mutate, query, type InputOf } from '../api/session.ts';
import { credits, utcWhen, when } from '../components/format.ts';
import { Pager } from '../components/pager.tsx';
import { useLoad } from '../components/use-load.ts';

type Endpoint = NonNullable<InputOf<'keys.create'>['endpoints']>[number];

function split(text: string): string[] | null {
  const items = text.split(/[\s,]+/).filter(Boolean);
  return items.length > 0 ? items : null;
}

/** The first expiry date the gateway takes (YYYY-MM-DD): it reads a date as midnight UTC, so today's has passed. */
function tomorrowUtc(): string {
  return new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
}

/** Create (secret shown once, with a copy button), revoke, scopes, spend limit, expiry, last use. */
export function KeysPage() {
  const [page, setPage] = useState(1);
  const list = useLoad(() => query('keys.list', { page, pageSize: 20 }), [page]);
  const me = useLoad(() => query('me'), []);
  const ENDPOINTS = (me.data?.key_endpoints ?? []) as Endpoint[];
  const [name, setName] = useState('');
  const [models, setModels] = useState('');
  const [endpoints, setEndpoints] = useState<Endpoint[]>([]);
  const [limit, setLimit] = useState('');
  const [limitReset, setLimitReset] = useState('');
  const [expires, setExpires] = useState('');
  const [created, setCreated] = useState<{ key: string; name: string } | undefined>(undefined);
  const [copied, setCopied] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);

  async function create(event: FormEvent) {
    event.preventDefault();
    setError(undefined);
    try {
      const key = await mutate('keys.create', {
        name: name.trim() || undefined,
        models: split(models) ?? undefined,
        endpoints: endpoints.length > 0 ? endpoints : undefined,
        limit: limit === '' ? undefined : Number(limit),
        limitReset: limitReset === '' ? undefined : (limitReset as 'daily' | 'weekly' | 'monthly'),
        expires: expires === '' ? undefined : expires,
      });
      setCreated({ key: key.key, name: key.name });
      setCopied(false);
      setName('');
      setModels('');
      setEndpoints([]);
      setLimit('');
      setLimitReset('');
      setExpires('');
      await list.reload();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }

  async function revoke(id: string, label: string) {
    if (!confirm(`Revoke the key "${label}"? Requests with it will be refused.`)) return;
    try {
      await mutate('keys.revoke', { id });
      await list.reload();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }

  return (
    <>
      <h1>API keys</h1>
      <section className="panel" aria-labelledby="new-key">
        <h2 id="new-key">Create a key</h2>
        <form onSubmit={create} className="row">
          <label>Name<input value={name} onChange={(e) => setName(e.target.value)} placeholder="default" maxLength={100} /></label>
          <label>Models (ids or globs, blank = all)<input value={models} onChange={(e) => setModels(e.target.value)} placeholder="openai/*, mock/echo" /></label>
          <fieldset style={{ border: 0, padding: 0, margin: 0 }}>
            <legend style={{ fontSize: '.9rem' }}>Endpoints (none ticked = all)</legend>
            <div className="row">
              {ENDPOINTS.map((e) => (
                <label key={e} style={{ flexDirection: 'row', alignItems: 'center' }}>
                  <input type="checkbox" checked={endpoints.includes(e)} onChange={(ev) => setEndpoints(ev.target.checked ? [...endpoints, e] : endpoints.filter((x) => x !== e))} />
                  {e}
                </label>
              ))}
            </div>
          </fieldset>
          <label>Spend limit (credits)<input type="number" min={0} step="any" value={limit} onChange={(e) => setLimit(e.target.value)} /></label>
          <label>
            Limit resets
            <select value={limitReset} onChange={(e) => setLimitReset(e.target.value)}>
              <option value="">never</option>
              <option value="daily">daily</option>
              <option value="weekly">weekly</option>
              <option value="monthly">monthly</option>
            </select>
          </label>
          {/* The gateway reads the date as midnight UTC and refuses one already past: tomorrow (UTC) is the first it takes. */}
          <label>Expires<input type="date" min={tomorrowUtc()} value={expires} onChange={(e) => setExpires(e.target.value)} /></label>
          <button type="submit">Create key</button>
        </form>
        {error && <p className="error" role="alert">{error}</p>}
        {created && (
          <div role="status" style={{ marginTop: '.75rem' }}>
            <p className="notice">The key "{created.name}" is shown only this once. Store it now.</p>
            <div className="row" style={{ alignItems: 'center' }}>
              <code className="secret" data-testid="new-key">{created.key}</code>
              <button
                type="button"
                onClick={() => {
                  void navigator.clipboard?.writeText(created.key).then(() => setCopied(true), () => setCopied(false));
                }}
              >
                {copied ? 'Copied' : 'Copy'}
              </button>
              <button type="button" className="secondary" onClick={() => setCreated(undefined)}>Done</button>
            </div>
          </div>
        )}
      </section>
      <section className="panel" aria-labelledby="key-list">
        <h2 id="key-list">Keys</h2>
        {list.error && <p className="error" role="alert">{list.error}</p>}
        <div className="table-wrap">
          <table>
            <thead>
              <tr><th>Name</th><th>Key</th><th>Scope</th><th>Spend limit</th><th>Expires</th><th>Last used</th><th>Status</th><th><span className="sr-only">Actions</span></th></tr>
            </thead>
            <tbody>
              {list.data?.data.map((k) => (
                <tr key={k.id} data-key-id={k.id}>
                  <td>{k.name}</td>
                  <td className="mono">{k.preview}</td>
                  <td>{k.models ? k.models.join(', ') : 'all models'}<br /><span className="muted">{k.endpoints ? k.endpoints.join(', ') : 'all endpoints'}</span></td>
                  <td>{k.limit === null ? '—' : `${credits(k.limit_used ?? 0)} of ${credits(k.limit)}${k.limit_reset ? `, ${k.limit_reset}` : ''}`}</td>
                  <td>{utcWhen(k.expires_at)}</td>
                  <td>{when(k.last_used_at)}</td>
                  <td><span className={k.revoked_at ? 'badge bad' : 'badge ok'}>{k.revoked_at ? 'revoked' : 'active'}</span></td>
                  <td>{!k.revoked_at && <button type="button" className="danger" onClick={() => void revoke(k.id, k.name)} aria-label={`Revoke ${k.name} (${k.preview})`}>Revoke</button>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {list.data && <Pager label="Keys" page={page} hasMore={list.data.has_more} total={list.data.total} onPage={setPage} />}
      </section>
    </>
  );
}
