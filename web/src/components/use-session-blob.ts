import { useEffect, useState } from 'react';
import { errorOf } from '../api/call-procedure.ts';
import { sessionFetch } from '../api/session.ts';

/** A URL fetched with the session, as a blob URL the page can hand to an element or a link. */
export interface SessionBlob {
  url: string;
  type: string;
}

interface Entry {
  users: number;
  ready: Promise<SessionBlob>;
  url?: string;
}

// One fetch and one blob URL per path while anything shows it: a dialog's player and its
// Results link are the same (possibly large) file.
const entries = new Map<string, Entry>();

function acquire(path: string): Entry {
  let entry = entries.get(path);
  if (!entry) {
    const created: Entry = {
      users: 0,
      ready: sessionFetch(path).then(async (response) => {
        if (!response.ok) throw await errorOf(response);
        const body = await response.blob();
        // Released while it arrived: no blob URL to leak.
        if (created.users === 0) throw new Error('released');
        created.url = URL.createObjectURL(body);
        return { url: created.url, type: body.type || response.headers.get('content-type') || '' };
      }),
    };
    entry = created;
    entries.set(path, entry);
  }
  entry.users += 1;
  return entry;
}

function release(path: string, entry: Entry): void {
  entry.users -= 1;
  if (entry.users > 0) return;
  if (entries.get(path) === entry) entries.delete(path);
  if (entry.url) URL.revokeObjectURL(entry.url);
}

/**
 * A path that needs the session (which `<img>`, `<video>` and a link opened in a tab cannot
 * send), fetched with it; undefined path: nothing is fetched. The blob URL lives while a
 * component shows it.
 */
export function useSessionBlob(path: string | undefined): { blob?: SessionBlob; error?: string } {
  const [state, setState] = useState<{ path?: string; blob?: SessionBlob; error?: string }>({});
  useEffect(() => {
    if (!path) return;
    let gone = false;
    const entry = acquire(path);
    entry.ready.then(
      (blob) => { if (!gone) setState({ path, blob }); },
      (e: Error) => { if (!gone) setState({ path, error: e.message }); },
    );
    return () => {
      gone = true;
      release(path, entry);
      setState({});
    };
  }, [path]);
  // A state of an earlier path says nothing about this one.
  return state.path === path ? { blob: state.blob, error: state.error } : {};
}
