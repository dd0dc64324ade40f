import type { H3Event } from 'h3';
import { GatewayError } from '../../errors/index.ts';
import { isFormatClientPath } from '../../formats/index.ts';
import { requestHeader } from '../context.ts';
import { loadDashboardAssets, type DashboardAssets } from '../load-dashboard-assets.ts';
import { sendBody } from '../send.ts';
import type { ServerDeps } from '../types.ts';
import type { RouteDef } from './types.ts';

/**
 * Everything the page may load comes from this origin; no inline script or style anywhere.
 * Images and media may come from anywhere: a Media Library record's result URLs are the
 * provider's (the library tracks generations, the files stay with the providers).
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob: https: http:",
  "media-src 'self' data: blob: https: http:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  // The page names the hashed assets of this build: always ask again, so an upgrade is seen at once.
  'cache-control': 'no-cache',
  'content-security-policy': DASHBOARD_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/** What `GET /` answers when the dashboard is off (Claude Code and load balancers probe `/`). */
const OFF_TEXT = 'gateway: the web dashboard is turned off (dashboard.enabled: false). The API is at /v1.\n';

/** Paths that belong to the API: unknown ones there stay JSON 404s, never the dashboard. */
export function isApiPath(path: string, metricsPath: string): boolean {
  return /^\/(v1|api|admin)(\/|$)/.test(path) || path === '/health' || path === '/metrics' || path === metricsPath || isFormatClientPath(path);
}

/**
 * Paths that name a file (`/favicon.ico`, `/robots.txt`): never a page of the dashboard (its
 * routes have no dots), so a browser or crawler asking for one gets a 404, not HTML taken for it.
 */
export function isFilePath(path: string): boolean {
  return /\.[A-Za-z0-9]+$/.test(path);
}

/**
 * Whether a request's Accept takes the page: a browser's navigation, a client that accepts
 * anything or names nothing. An API client asks for JSON only (the OpenAI SDK with a base URL
 * lacking /v1 sends GET /models so); it gets the JSON 404 that says what to fix, not HTML.
 */
export function acceptsPage(accept: string | null): boolean {
  if (!accept?.trim()) return true;
  return accept.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((param) => /^q\s*=/.test(param));
    if (q !== undefined && !(Number(q.split('=')[1]) > 0)) return false;
    return type === 'text/html' || type === 'application/xhtml+xml' || type === 'text/*' || type === '*/*';
  });
}

/** Which listener serves the page: the admin one opens on the operator views. */
export type DashboardListener = 'public' | 'admin';

/** The dashboard's page and asset handlers, or the short text of `/` when it is off. */
export function createDashboard(deps: Pick<ServerDeps, 'config'>, listener: DashboardListener, assets?: DashboardAssets) {
  const enabled = deps.config.dashboard.enabled;
  if (enabled && !assets) assets = loadDashboardAssets();
  const page = assets?.index.replace('<head>', `<head>\n    <meta name="gateway-listener" content="${listener}">`);
  const sendPage = (event: H3Event): unknown => {
    if (!enabled) return sendBody(event, 200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-cache' }, OFF_TEXT);
    if (!page) return sendBody(event, 200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-cache' }, 'gateway: the dashboard was not built (run `npm run build`). The API is at /v1.\n');
    return sendBody(event, 200, PAGE_HEADERS, page);
  };
  const sendAsset = (event: H3Event): unknown => {
    const asset = enabled ? assets?.files.get(event.url.pathname) : undefined;
    // A JSON 404, not the page: a tab of an older build asking for its script must not get HTML.
    if (!asset) throw new GatewayError('not_found', `No route for ${event.req.method} ${event.url.pathname}.`);
    const gzip = asset.gzip && /\bgzip\b/.test(requestHeader(event, 'accept-encoding') ?? '');
    const headers: Record<string, string> = {
      'content-type': asset.type,
      // Names carry the content's hash: a new build has new names, so these never go stale.
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      vary: 'accept-encoding',
    };
    if (gzip) headers['content-encoding'] = 'gzip';
    return sendBody(event, 200, headers, gzip ? asset.gzip! : asset.body);
  };
  return { enabled, sendPage, sendAsset };
}

export type Dashboard = ReturnType<typeof createDashboard>;

/** `GET /` and `GET /assets/*` (HEAD too, as for every GET route). */
export function dashboardRoutes(dashboard: Dashboard): RouteDef[] {
  return [
    { method: 'GET', path: '/', handler: dashboard.sendPage },
    { method: 'GET', path: '/assets/**', handler: dashboard.sendAsset },
  ];
}
