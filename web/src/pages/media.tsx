import { useEffect, useRef, useState } from 'react';
import { errorOf } from '../api/call-procedure.ts';
import { sessionFetch } from '../api/session.ts';
import { statusClass, when } from '../components/format.ts';
import { Pager } from '../components/pager.tsx';
import { useSessionBlob } from '../components/use-session-blob.ts';
import { useLoad } from '../components/use-load.ts';

/** A Media Library record (spec §2.1). */
interface MediaRecord {
  id: string;
  media_type: 'image' | 'video' | 'music' | 'threed';
  status: 'pending' | 'processing' | 'completed' | 'failed';
  model: string;
  prompt: string | null;
  parameters: Record<string, unknown>;
  result_urls: string[];
  primary_url: string | null;
  preview_url: string | null;
  file_size_bytes: number | null;
  duration_seconds: number | null;
  width: number | null;
  height: number | null;
  error: string | null;
  created_at: number;
  completed_at: number | null;
}

interface MediaList {
  data: MediaRecord[];
  total: number;
  page: number;
  page_size: number;
  has_more: boolean;
}

const TYPES = ['image', 'video', 'music', 'threed'] as const;
const STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
const PAGE_SIZE = 24;

/** What a URL plays as, by its extension (a record's result may be any of them). */
function kindOf(url: string | null, type: MediaRecord['media_type']): 'image' | 'video' | 'audio' | 'other' {
  if (!url) return 'other';
  // A gateway job's preview (`…/content?variant=thumbnail`) is a picture whatever the record's type.
  if (/[?&]variant=(thumbnail|spritesheet)(&|#|$)/.test(url)) return 'image';
  const path = url.split(/[?#]/)[0].toLowerCase();
  if (/\.(mp4|webm|mov|m4v|ogv)$/.test(path)) return 'video';
  if (/\.(mp3|wav|ogg|oga|m4a|aac|flac|opus)$/.test(path)) return 'audio';
  if (/\.(png|jpe?g|gif|webp|avif|svg)$/.test(path) || path.includes('/v1/temp-images/')) return 'image';
  return type === 'image' ? 'image' : type === 'video' ? 'video' : type === 'music' ? 'audio' : 'other';
}

/** The path of a gateway job's own content URL for this record (any instance serves it), else undefined. */
function ownContentPath(url: string, record: MediaRecord): string | undefined {
  try {
    const parsed = new URL(url, location.href);
    return parsed.pathname === `/v1/media/generations/${encodeURIComponent(record.id)}/content` ? `${parsed.pathname}${parsed.search}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What an element can load: a gateway job's content needs the session, which `<img>` and
 * `<video>` cannot send, so it is fetched with the session and shown from a blob.
 */
function useMediaSource(url: string | null, record: MediaRecord): string | null {
  const own = url === null ? undefined : ownContentPath(url, record);
  const { blob } = useSessionBlob(own);
  return own ? (blob?.url ?? null) : url;
}

function MediaView({ record, url: shown, thumb }: { record: MediaRecord; url: string | null; thumb?: boolean }) {
  const loaded = useMediaSource(shown, record);
  // Until a session-fetched source is ready the element waits without one.
  const url = loaded ?? undefined;
  const label = `${record.media_type} by ${record.model}${record.prompt ? `: ${record.prompt.slice(0, 120)}` : ''}`;
  switch (kindOf(shown, record.media_type)) {
    case 'image':
      return <img src={url} alt={label} loading="lazy" />;
    case 'video':
      return <video src={url} controls={!thumb} muted={thumb} preload="metadata" aria-label={label} />;
    case 'audio':
      return thumb ? <span aria-label={label}>♪ audio</span> : <audio src={url} controls preload="metadata" aria-label={label} />;
    default:
      return <span className="muted">{record.status === 'completed' ? 'no preview' : record.status}</span>;
  }
}

/** A file name for a saved result: the record's id, its place among several, an extension from the type. */
function fileNameOf(record: MediaRecord, index: number, contentType: string): string {
  const subtype = contentType.split(';')[0].split('/')[1]?.trim().toLowerCase() ?? '';
  const extension = ({ jpeg: 'jpg', mpeg: 'mp3', 'svg+xml': 'svg', 'gltf-binary': 'glb', 'octet-stream': 'bin' } as Record<string, string>)[subtype] ?? (/^[a-z0-9]{1,8}$/.test(subtype) ? subtype : 'bin');
  return `${record.id}${record.result_urls.length > 1 ? `-${index + 1}` : ''}.${extension}`;
}

/**
 * A result URL. A gateway job's own content answers 401 without the session, which a link
 * opened in a tab cannot send: it is fetched with the session, and the link saves that blob
 * however it is clicked (a middle- or ctrl-click too), so no tab opens on the 401.
 * Anything else (a provider's URL) opens as it is.
 */
function ResultLink({ record, url, index }: { record: MediaRecord; url: string; index: number }) {
  const text = url.length > 80 ? `${url.slice(0, 80)}…` : url;
  const own = ownContentPath(url, record);
  const { blob, error } = useSessionBlob(own);
  if (!own) return <a href={url} target="_blank" rel="noreferrer">{text}</a>;
  if (error) return <><span className="mono">{text}</span><span className="error" role="alert"> {error}</span></>;
  if (!blob) return <span className="mono muted" aria-busy="true">{text}</span>;
  return <a href={blob.url} download={fileNameOf(record, index, blob.type)}>{text}</a>;
}

/** The Media Library as a gallery: filters, server pages, records still running refresh by themselves. */
export function MediaPage() {
  const [type, setType] = useState('');
  const [status, setStatus] = useState('');
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<MediaRecord | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const list = useLoad(async () => {
    const params = new URLSearchParams({ page: String(page), page_size: String(PAGE_SIZE) });
    if (type) params.set('media_type', type);
    if (status) params.set('status', status);
    const response = await sessionFetch(`/v1/media/generations?${params}`);
    if (!response.ok) throw await errorOf(response);
    return (await response.json()) as MediaList;
  }, [type, status, page]);
  const running = list.data?.data.some((r) => r.status === 'pending' || r.status === 'processing') ?? false;

  // Records still pending or processing: ask again every 2 s until they finish.
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => void list.reload(), 2_000);
    return () => clearInterval(timer);
  }, [running, list.reload]);

  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    if (open && dialog.current && !dialog.current.open) dialog.current.showModal();
  }, [open]);
  const current = open ? (list.data?.data.find((r) => r.id === open.id) ?? open) : undefined;

  async function remove(record: MediaRecord) {
    if (!confirm('Delete this record from the library? (The media file stays with the provider.)')) return;
    const response = await sessionFetch(`/v1/media/generations/${encodeURIComponent(record.id)}`, { method: 'DELETE' });
    if (!response.ok) {
      setError((await errorOf(response)).message);
      return;
    }
    dialog.current?.close();
    setOpen(undefined);
    await list.reload();
  }

  return (
    <>
      <h1>Media Library</h1>
      <div className="panel row">
        <label>
          Type
          <select value={type} onChange={(e) => { setType(e.target.value); setPage(1); }}>
            <option value="">all</option>
            {TYPES.map((t) => <option key={t} value={t}>{t}</option>)}
          </select>
        </label>
        <label>
          Status
          <select value={status} onChange={(e) => { setStatus(e.target.value); setPage(1); }}>
            <option value="">all</option>
            {STATUSES.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
        {running && <span className="muted" role="status">Updating while jobs run…</span>}
      </div>
      {(list.error || error) && <p className="error" role="alert">{list.error ?? error}</p>}
      <ul className="gallery" style={{ listStyle: 'none', padding: 0, margin: 0 }} aria-label="Generations">
        {list.data?.data.map((r) => (
          <li key={r.id}>
            <button type="button" className="tile" style={{ width: '100%' }} onClick={() => setOpen(r)} data-media-id={r.id}>
              <span className="thumb"><MediaView record={r} url={r.preview_url ?? r.primary_url ?? r.result_urls[0] ?? null} thumb /></span>
              <span className="meta">
                <span><span className={statusClass(r.status)} data-testid="media-status">{r.status}</span> <span className="muted">{r.media_type}</span></span>
                <span className="mono" style={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>{r.model}</span>
                <span className="muted">{when(r.created_at)}</span>
              </span>
            </button>
          </li>
        ))}
      </ul>
      {list.data?.data.length === 0 && <p className="muted">No generations here yet. Images made through /v1/images/generations appear by themselves.</p>}
      {list.data && <Pager label="Media" page={page} hasMore={list.data.has_more} total={list.data.total} onPage={setPage} />}
      <dialog ref={dialog} aria-labelledby="media-title" onClose={() => setOpen(undefined)}>
        {current && (
          <>
            <div className="row" style={{ justifyContent: 'space-between' }}>
              <h2 id="media-title">{current.media_type} · <span className={statusClass(current.status)}>{current.status}</span></h2>
              <button type="button" className="secondary" onClick={() => dialog.current?.close()}>Close</button>
            </div>
            <div className="detail-media"><MediaView record={current} url={current.primary_url ?? current.result_urls[0] ?? current.preview_url} /></div>
            <dl>
              <dt>Model</dt><dd className="mono">{current.model}</dd>
              <dt>Prompt</dt><dd>{current.prompt ?? '—'}</dd>
              <dt>Parameters</dt><dd><pre>{JSON.stringify(current.parameters, null, 2)}</pre></dd>
              <dt>Created</dt><dd>{when(current.created_at)}</dd>
              <dt>Completed</dt><dd>{when(current.completed_at)}</dd>
              {current.width !== null && <><dt>Size</dt><dd>{current.width} × {current.height}</dd></>}
              {current.duration_seconds !== null && <><dt>Duration</dt><dd>{current.duration_seconds} s</dd></>}
              {current.error && <><dt>Error</dt><dd>{current.error}</dd></>}
              {current.result_urls.length > 0 && <><dt>Results</dt><dd>{current.result_urls.map((u, i) => <div key={u}><ResultLink record={current} url={u} index={i} /></div>)}</dd></>}
              <dt>Id</dt><dd className="mono">{current.id}</dd>
            </dl>
            <button type="button" className="danger" onClick={() => void remove(current)}>Delete record</button>
          </>
        )}
      </dialog>
    </>
  );
}
