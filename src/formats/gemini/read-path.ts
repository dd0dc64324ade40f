import type { RouteTarget } from '../types.ts';

const PREFIX = '/v1beta/models/';
const ACTIONS = new Set(['generateContent', 'streamGenerateContent']);

/**
 * `/v1beta/models/{model}:{action}` → the model and the stream flag. The model may hold
 * slashes (a gateway id with its provider, `google/gemini-2.5-flash`) and come with Google's
 * `models/` prefix; `streamGenerateContent` streams as SSE with `alt=sse`, else as one JSON array.
 */
export function readGeminiPath(pathname: string, query: URLSearchParams, actions: ReadonlySet<string> = ACTIONS): (RouteTarget & { action: string }) | undefined {
  if (!pathname.startsWith(PREFIX)) return undefined;
  let rest: string;
  try {
    rest = decodeURIComponent(pathname.slice(PREFIX.length));
  } catch {
    return undefined;
  }
  const colon = rest.lastIndexOf(':');
  if (colon <= 0) return undefined;
  const action = rest.slice(colon + 1);
  if (!actions.has(action)) return undefined;
  let model = rest.slice(0, colon);
  if (model.startsWith('models/')) model = model.slice('models/'.length);
  if (model === '') return undefined;
  const stream = action === 'streamGenerateContent';
  const target: RouteTarget & { action: string } = { model, stream, action };
  if (stream) target.framing = query.get('alt') === 'sse' ? 'sse' : 'json-array';
  return target;
}
