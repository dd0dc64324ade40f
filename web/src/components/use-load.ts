import { useCallback, useEffect, useRef, useState } from 'react';

/** Loads data on mount and when `deps` change; `intervalMs` polls (paused while the tab is hidden). */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[], options: { intervalMs?: number | false } = {}) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const latest = useRef(load);
  latest.current = load;
  const generation = useRef(0);

  const reload = useCallback(async () => {
    const mine = ++generation.current;
    try {
      const value = await latest.current();
      if (mine !== generation.current) return;
      setData(value);
      setError(undefined);
    } catch (e) {
      if (mine !== generation.current) return;
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, []);

  useEffect(() => {
    setLoading(true);
    void reload();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);

  const interval = options.intervalMs;
  useEffect(() => {
    if (!interval) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void reload();
    }, interval);
    return () => clearInterval(timer);
  }, [interval, reload]);

  return { data, error, loading, reload };
}
