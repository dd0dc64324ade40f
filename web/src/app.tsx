import { useEffect, useState, useSyncExternalStore } from 'react';
import { isExpired, onSessionChange, sessionToken, signOut } from './api/session.ts';
import { navigate, usePath } from './components/router.ts';
import { BatchesPage } from './pages/batches.tsx';
import { KeysPage } from './pages/keys.tsx';
import { MediaPage } from './pages/media.tsx';
import { ModelsPage } from './pages/models.tsx';
import { OperatorPage } from './pages/operator.tsx';
import { OverviewPage } from './pages/overview.tsx';
import { PlaygroundPage } from './pages/playground.tsx';
import { SignInForm } from './pages/sign-in.tsx';
import { UsagePage } from './pages/usage.tsx';

const PAGES = [
  { path: '/', title: 'Overview', render: () => <OverviewPage /> },
  { path: '/keys', title: 'API keys', render: () => <KeysPage /> },
  { path: '/usage', title: 'Usage', render: () => <UsagePage /> },
  { path: '/media', title: 'Media Library', render: () => <MediaPage /> },
  { path: '/batches', title: 'Batches', render: () => <BatchesPage /> },
  { path: '/models', title: 'Models', render: () => <ModelsPage /> },
  { path: '/playground', title: 'Playground', render: () => <PlaygroundPage /> },
  { path: '/operator', title: 'Operator', render: () => <OperatorPage /> },
] as const;

/** Which listener served the page: the admin listener has the operator views only. */
const listener = document.querySelector<HTMLMetaElement>('meta[name="gateway-listener"]')?.content ?? 'public';

function useSession() {
  return useSyncExternalStore(onSessionChange, () => `${sessionToken() ?? ''}|${isExpired()}`);
}

export function App() {
  useSession();
  const path = usePath();
  const [menuOpen, setMenuOpen] = useState(false);
  const adminOnly = listener === 'admin';
  const signedIn = Boolean(sessionToken());
  const expired = isExpired();
  const pages = adminOnly ? PAGES.filter((p) => p.path === '/operator') : PAGES;
  const current = pages.find((p) => p.path === path) ?? (adminOnly ? pages[0] : PAGES[0]);

  useEffect(() => {
    document.title = `${current.title} · gateway`;
  }, [current]);

  // The operator page needs no account session (it has the admin token instead).
  if (!adminOnly && !signedIn && current.path !== '/operator') {
    return (
      <main className="signin panel" id="main">
        <SignInForm heading="Sign in to gateway" />
        <p><a href="/operator" onClick={(e) => { e.preventDefault(); navigate('/operator'); }}>Operator view</a> (admin token)</p>
      </main>
    );
  }

  return (
    <div className="layout">
      <a className="skip" href="#main">Skip to content</a>
      <header className="sidebar">
        <div className="row" style={{ justifyContent: 'space-between', alignItems: 'center' }}>
          <span className="brand">gateway</span>
          <button type="button" className="secondary menu-toggle" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>Menu</button>
        </div>
        <nav id="nav" aria-label="Dashboard" className={`nav ${menuOpen ? '' : 'closed'}`}>
          {pages.map((p) => (
            <a
              key={p.path}
              href={p.path}
              aria-current={p.path === current.path ? 'page' : undefined}
              onClick={(e) => {
                e.preventDefault();
                setMenuOpen(false);
                navigate(p.path);
              }}
            >
              {p.title}
            </a>
          ))}
        </nav>
        {signedIn && !adminOnly && (
          <div className="who">
            <button type="button" className="secondary" onClick={() => { navigate('/'); void signOut(); }}>Sign out</button>
          </div>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        {current.render()}
      </main>
      {expired && (
        // Over the page, not instead of it: whatever was typed stays where it was.
        <div className="overlay" role="dialog" aria-modal="true" aria-labelledby="signin-heading">
          <div className="panel">
            <SignInForm heading="Sign in again" note="Your session has ended. Sign in to go on where you were." />
          </div>
        </div>
      )}
    </div>
  );
}
