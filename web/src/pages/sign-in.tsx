import { useState, type FormEvent } from 'react';
import { ApiError } from '../api/call-procedure.ts';
import { signIn } from '../api/session.ts';

/** Email and password through POST /api/auth/login; the 5-a-minute limit is a message, not an error page. */
export function SignInForm({ heading, note }: { heading: string; note?: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [message, setMessage] = useState<{ kind: 'error' | 'notice'; text: string } | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setMessage(undefined);
    try {
      await signIn(email.trim(), password);
    } catch (e) {
      if (e instanceof ApiError && e.status === 429) {
        setMessage({ kind: 'notice', text: `Too many sign-in attempts (5 a minute). Try again in ${e.retryAfter ?? 60} seconds.` });
      } else if (e instanceof ApiError && e.status === 401) {
        setMessage({ kind: 'error', text: 'Wrong email or password.' });
      } else {
        setMessage({ kind: 'error', text: e instanceof Error ? e.message : String(e) });
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} aria-labelledby="signin-heading">
      <h1 id="signin-heading">{heading}</h1>
      {note && <p className="notice" role="status">{note}</p>}
      <label>
        Email
        <input type="email" name="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
      </label>
      <label>
        Password
        <input type="password" name="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
      </label>
      {message && <p className={message.kind} role="alert">{message.text}</p>}
      <button type="submit" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
      <p className="muted" style={{ fontSize: '.85rem' }}>
        Accounts and passwords: <span className="mono">gateway accounts create --email … --password …</span>.
        The first run's account has none until you set one: <span className="mono">gateway accounts set local@localhost --password …</span>
      </p>
    </form>
  );
}
