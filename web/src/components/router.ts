import { useEffect, useState } from 'react';

/** The page's path; the server answers every non-API path with this page, so links are plain paths. */
export function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const update = () => setPath(location.pathname);
    addEventListener('popstate', update);
    addEventListener('gateway:navigate', update);
    return () => {
      removeEventListener('popstate', update);
      removeEventListener('gateway:navigate', update);
    };
  }, []);
  return path;
}

export function navigate(path: string): void {
  if (path === location.pathname) return;
  history.pushState(null, '', path);
  dispatchEvent(new Event('gateway:navigate'));
}
