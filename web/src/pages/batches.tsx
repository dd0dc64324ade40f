import { useState } from 'react';
import { mutate, query, type OutputOf } from '../api/session.ts';
import { statusClass, when } from '../components/format.ts';
import { useLoad } from '../components/use-load.ts';

type Batch = OutputOf<'batches.get'>;
const RUNNING = new Set(['validating', 'in_progress', 'finalizing', 'cancelling']);

async function download(fileId: string): Promise<void> {
  const file = await query('batches.file', { id: fileId });
  const url = URL.createObjectURL(new Blob([file.content], { type: 'application/jsonl' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = file.filename || `${file.id}.jsonl`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function Progress({ batch }: { batch: Batch }) {
  const counts = batch.request_counts;
  const done = counts.completed + counts.failed;
  return (
    <div>
      <progress max={Math.max(counts.total, 1)} value={done} aria-label={`Batch ${batch.id}: ${done} of ${counts.total} lines done`} />
      <span className="muted" data-testid="batch-progress">{done} / {counts.total}{counts.failed > 0 ? ` (${counts.failed} failed)` : ''}</span>
    </div>
  );
}

/** Batches with progress bars (refreshed while any runs), a batch's detail, cancel, the output and error files. */
export function BatchesPage() {
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const after = cursors[cursors.length - 1];
  const [openId, setOpenId] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const list = useLoad(() => query('batches.list', { after, limit: 20 }), [after], { intervalMs: 2_000 });
  const open = list.data?.data.find((b) => b.id === openId);

  async function cancel(id: string) {
    try {
      await mutate('batches.cancel', { id });
      await list.reload();
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  }

  return (
    <>
      <h1>Batches</h1>
      <p className="muted">Create batches with the OpenAI client (<span className="mono">files.create</span> then <span className="mono">batches.create</span>); they show here as they run.</p>
      {(list.error || error) && <p className="error" role="alert">{list.error ?? error}</p>}
      <section className="panel">
        <div className="table-wrap">
          <table>
            <thead><tr><th>Batch</th><th>Status</th><th style={{ minWidth: '10rem' }}>Progress</th><th>Created</th><th><span className="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {list.data?.data.map((b) => (
                <tr key={b.id} data-batch-id={b.id}>
                  <td><button type="button" className="secondary mono" onClick={() => setOpenId(b.id === openId ? undefined : b.id)} aria-expanded={b.id === openId}>{b.id}</button></td>
                  <td><span className={statusClass(b.status)} data-testid="batch-status">{b.status}</span></td>
                  <td><Progress batch={b} /></td>
                  <td>{when(b.created_at)}</td>
                  <td>{RUNNING.has(b.status) && b.status !== 'cancelling' && <button type="button" className="danger" onClick={() => void cancel(b.id)} aria-label={`Cancel batch ${b.id}`}>Cancel</button>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {list.data?.data.length === 0 && <p className="muted">No batches yet.</p>}
        <nav className="pager" aria-label="Batch pages">
          <button type="button" className="secondary" disabled={cursors.length <= 1} onClick={() => setCursors(cursors.slice(0, -1))}>Newer</button>
          <span>Page {cursors.length}</span>
          <button type="button" className="secondary" disabled={!list.data?.has_more} onClick={() => setCursors([...cursors, list.data!.data[list.data!.data.length - 1]?.id])}>Older</button>
        </nav>
      </section>
      {open && (
        <section className="panel" aria-labelledby="batch-detail">
          <h2 id="batch-detail">Batch <span className="mono">{open.id}</span></h2>
          <dl>
            <dt>Status</dt><dd>{open.status}</dd>
            <dt>Endpoint</dt><dd className="mono">{open.endpoint}</dd>
            <dt>Input file</dt><dd className="mono">{open.input_file_id}</dd>
            <dt>Lines</dt><dd>{open.request_counts.total} ({open.request_counts.completed} completed, {open.request_counts.failed} failed)</dd>
            <dt>Created</dt><dd>{when(open.created_at)}</dd>
            <dt>Completed</dt><dd>{when(open.completed_at)}</dd>
            {open.metadata && <><dt>Metadata</dt><dd><pre>{JSON.stringify(open.metadata, null, 2)}</pre></dd></>}
          </dl>
          <div className="row">
            {open.output_file_id && <button type="button" onClick={() => void download(open.output_file_id!).catch((e: Error) => setError(e.message))}>Download output</button>}
            {open.error_file_id && <button type="button" className="secondary" onClick={() => void download(open.error_file_id!).catch((e: Error) => setError(e.message))}>Download errors</button>}
          </div>
        </section>
      )}
    </>
  );
}
