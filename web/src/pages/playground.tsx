import { Fragment, useState, type FormEvent } from 'react';
import { errorOf } from '../api/call-procedure.ts';
import { mutate, query } from '../api/session.ts';
import { streamAnswer, type ChatFormat, type StreamedAnswer, type Turn } from '../api/stream-answer.ts';
import { credits, usd } from '../components/format.ts';
import { useLoad } from '../components/use-load.ts';

const KEY_STORE = 'gateway.playgroundKey';

/** The cost the ledger recorded for a request (it is written before the answer ends). */
async function costOf(requestId: string | null): Promise<{ credits: number; usd: number } | undefined> {
  if (!requestId) return undefined;
  const page = await query('usage.requests', { limit: 20 });
  const row = page.data.find((r) => r.request_id === requestId);
  return row ? { credits: row.cost_credits, usd: row.cost_usd } : undefined;
}

function ApiKeyField({ apiKey, setApiKey }: { apiKey: string; setApiKey: (key: string) => void }) {
  const [error, setError] = useState<string | undefined>(undefined);
  return (
    <div className="row">
      <label style={{ flex: 1 }}>
        API key the playground calls with
        <input type="password" autoComplete="off" value={apiKey} onChange={(e) => setApiKey(e.target.value)} placeholder="sk-gw-…" />
      </label>
      <button
        type="button"
        className="secondary"
        onClick={() => {
          mutate('keys.create', { name: 'playground' })
            .then((k) => setApiKey(k.key))
            .catch((e: Error) => setError(e.message));
        }}
      >
        Create a playground key
      </button>
      {error && <p className="error" role="alert">{error}</p>}
    </div>
  );
}

/** Chat in any of the three formats, streamed, with routing, usage and cost; images and speech. */
export function PlaygroundPage() {
  const [apiKey, setApiKeyState] = useState(() => localStorage.getItem(KEY_STORE) ?? '');
  const setApiKey = (key: string) => {
    setApiKeyState(key);
    localStorage.setItem(KEY_STORE, key);
  };
  const models = useLoad(() => query('models.list', { pageSize: 100 }), []);
  const [mode, setMode] = useState<'chat' | 'image' | 'speech'>('chat');
  return (
    <>
      <h1>Playground</h1>
      <section className="panel">
        <ApiKeyField apiKey={apiKey} setApiKey={setApiKey} />
        <datalist id="model-ids">{models.data?.data.map((m) => <option key={String(m.id)} value={String(m.id)} />)}</datalist>
        <div className="row" role="radiogroup" aria-label="What to try" style={{ marginTop: '.75rem' }}>
          {(['chat', 'image', 'speech'] as const).map((m) => (
            <label key={m} style={{ flexDirection: 'row', alignItems: 'center' }}>
              <input type="radio" name="mode" checked={mode === m} onChange={() => setMode(m)} /> {m}
            </label>
          ))}
        </div>
      </section>
      {mode === 'chat' && <ChatPanel apiKey={apiKey} />}
      {mode === 'image' && <ImagePanel apiKey={apiKey} />}
      {mode === 'speech' && <SpeechPanel apiKey={apiKey} />}
    </>
  );
}

function ChatPanel({ apiKey }: { apiKey: string }) {
  const [format, setFormat] = useState<ChatFormat>('chat');
  const [model, setModel] = useState('mock/echo');
  const [turns, setTurns] = useState<Turn[]>([]);
  const [draft, setDraft] = useState('');
  const [answer, setAnswer] = useState('');
  const [meta, setMeta] = useState<(StreamedAnswer & { cost?: { credits: number; usd: number } }) | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);

  async function send(event: FormEvent) {
    event.preventDefault();
    if (!draft.trim() || busy) return;
    const history: Turn[] = [...turns, { role: 'user', content: draft }];
    setBusy(true);
    setError(undefined);
    setAnswer('');
    setMeta(undefined);
    let text = '';
    try {
      const result = await streamAnswer(apiKey, format, model, history, (piece) => {
        text += piece;
        setAnswer(text);
      });
      setTurns([...history, { role: 'assistant', content: text }]);
      setDraft('');
      setMeta(result);
      const cost = await costOf(result.requestId).catch(() => undefined);
      setMeta({ ...result, cost });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="panel" aria-labelledby="chat-heading">
      <h2 id="chat-heading">Chat</h2>
      <form onSubmit={send}>
        <div className="row">
          <label>
            Format
            <select value={format} onChange={(e) => setFormat(e.target.value as ChatFormat)}>
              <option value="chat">OpenAI Chat Completions</option>
              <option value="responses">OpenAI Responses</option>
              <option value="messages">Anthropic Messages</option>
            </select>
          </label>
          <label style={{ flex: 1 }}>Model<input list="model-ids" value={model} onChange={(e) => setModel(e.target.value)} required /></label>
          <button type="button" className="secondary" onClick={() => { setTurns([]); setAnswer(''); setMeta(undefined); }}>New conversation</button>
        </div>
        <ol aria-label="Conversation" style={{ paddingLeft: '1.2rem' }}>
          {turns.map((t, i) => <li key={i}><strong>{t.role}:</strong> <span style={{ whiteSpace: 'pre-wrap' }}>{t.content}</span></li>)}
        </ol>
        <label>Message<textarea value={draft} onChange={(e) => setDraft(e.target.value)} required /></label>
        <div className="row" style={{ marginTop: '.5rem' }}>
          <button type="submit" disabled={busy || !apiKey}>{busy ? 'Streaming…' : 'Send'}</button>
          {!apiKey && <span className="muted">Enter or create an API key first.</span>}
        </div>
      </form>
      {error && <p className="error" role="alert">{error}</p>}
      <h3>Answer</h3>
      <pre className="answer" aria-live="polite" data-testid="answer">{answer}</pre>
      {meta && (
        <dl data-testid="answer-meta">
          {meta.routing.map(([name, value]) => <Fragment key={name}><dt className="mono">{name}</dt><dd>{value}</dd></Fragment>)}
          <dt>Usage</dt><dd>{meta.usage ? `${meta.usage.input} in, ${meta.usage.output} out` : '—'}</dd>
          <dt>Cost</dt><dd>{meta.cost ? `${credits(meta.cost.credits)} (${usd(meta.cost.usd)})` : '—'}</dd>
          <dt>Request id</dt><dd className="mono">{meta.requestId ?? '—'}</dd>
        </dl>
      )}
    </section>
  );
}

function ImagePanel({ apiKey }: { apiKey: string }) {
  const [model, setModel] = useState('mock/image');
  const [prompt, setPrompt] = useState('');
  const [size, setSize] = useState('256x256');
  const [urls, setUrls] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  async function generate(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const response = await fetch('/v1/images/generations', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` }, body: JSON.stringify({ model, prompt, size, response_format: 'url' }) });
      if (!response.ok) throw await errorOf(response);
      const body = (await response.json()) as { data: Array<{ url?: string }> };
      setUrls(body.data.map((d) => d.url).filter((u): u is string => Boolean(u)));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  }
  return (
    <section className="panel" aria-labelledby="image-heading">
      <h2 id="image-heading">Image generation</h2>
      <form onSubmit={generate} className="row">
        <label>Model<input list="model-ids" value={model} onChange={(e) => setModel(e.target.value)} required /></label>
        <label style={{ flex: 1 }}>Prompt<input value={prompt} onChange={(e) => setPrompt(e.target.value)} required maxLength={4000} /></label>
        <label>Size<input value={size} onChange={(e) => setSize(e.target.value)} pattern="\d+x\d+" /></label>
        <button type="submit" disabled={busy || !apiKey}>{busy ? 'Generating…' : 'Generate'}</button>
      </form>
      {error && <p className="error" role="alert">{error}</p>}
      <div className="gallery" style={{ marginTop: '.75rem' }}>{urls.map((u) => <img key={u} src={u} alt={`Generated: ${prompt}`} style={{ width: '100%' }} />)}</div>
      {urls.length > 0 && <p className="muted">Also in the Media Library.</p>}
    </section>
  );
}

function SpeechPanel({ apiKey }: { apiKey: string }) {
  const [model, setModel] = useState('mock/tts');
  const [input, setInput] = useState('');
  const [voice, setVoice] = useState('alloy');
  const [audio, setAudio] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  async function speak(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const response = await fetch('/v1/audio/speech', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` }, body: JSON.stringify({ model, input, voice, response_format: 'mp3' }) });
      if (!response.ok) throw await errorOf(response);
      if (audio) URL.revokeObjectURL(audio);
      setAudio(URL.createObjectURL(await response.blob()));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  }
  return (
    <section className="panel" aria-labelledby="speech-heading">
      <h2 id="speech-heading">Speech</h2>
      <form onSubmit={speak} className="row">
        <label>Model<input list="model-ids" value={model} onChange={(e) => setModel(e.target.value)} required /></label>
        <label>
          Voice
          <select value={voice} onChange={(e) => setVoice(e.target.value)}>
            {['alloy', 'echo', 'fable', 'onyx', 'nova', 'shimmer'].map((v) => <option key={v}>{v}</option>)}
          </select>
        </label>
        <label style={{ flex: 1 }}>Text<input value={input} onChange={(e) => setInput(e.target.value)} required maxLength={4096} /></label>
        <button type="submit" disabled={busy || !apiKey}>{busy ? 'Speaking…' : 'Speak'}</button>
      </form>
      {error && <p className="error" role="alert">{error}</p>}
      {audio && <audio src={audio} controls style={{ marginTop: '.75rem', width: '100%' }} aria-label="Generated speech" />}
    </section>
  );
}
