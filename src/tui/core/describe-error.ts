/** One status-line sentence for a failed procedure call: tRPC, zod and network errors alike. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const message = error.message.trim();
  const zod = readZodIssues(message);
  if (zod) return zod;
  if (httpStatusOf(error) === 401) return 'the server refused the admin token: was it restarted? (press r to reconnect)';
  const code = errorCode(error);
  if (message === 'fetch failed' || code === 'ECONNREFUSED' || code === 'ECONNRESET') {
    return `cannot reach the gateway server${code ? ` (${code})` : ''}: is it still running?`;
  }
  const text = message.split('\n')[0] || error.name;
  const gateway = gatewayCodeOf(error);
  return gateway ? `${text} (${gateway})` : text;
}

/** A gateway error code (`not_found`, `insufficient_balance`): lower snake case, never tRPC's or a socket's (upper case). */
const GATEWAY_CODE = /^[a-z]+(_[a-z]+)*$/;

/**
 * The gateway's error code of an admin call's failure: tRPC's `data.gatewayCode` over HTTP, else
 * the GatewayError along the cause chain of an in-process call (a `code` with a `status`).
 */
export function gatewayCodeOf(error: unknown): string | undefined {
  const sent = (error as { data?: { gatewayCode?: unknown } }).data?.gatewayCode;
  if (typeof sent === 'string' && GATEWAY_CODE.test(sent)) return sent;
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, status } = e as { code?: unknown; status?: unknown };
    if (typeof code === 'string' && typeof status === 'number' && GATEWAY_CODE.test(code)) return code;
  }
  return undefined;
}

/** The first `code` (ECONNREFUSED, …) along an error's cause chain. */
export function errorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** The HTTP status a tRPC client error came back with, if it got an answer at all. */
export function httpStatusOf(error: unknown): number | undefined {
  const meta = (error as { meta?: { response?: { status?: unknown } } } | null)?.meta;
  const status = meta?.response?.status;
  return typeof status === 'number' ? status : undefined;
}

/** tRPC sends input validation failures as the zod issue list in JSON: keep field and message. */
function readZodIssues(message: string): string | undefined {
  if (!message.startsWith('[')) return undefined;
  try {
    const issues = JSON.parse(message) as Array<{ path?: unknown[]; message?: string }>;
    if (!Array.isArray(issues) || issues.length === 0) return undefined;
    return issues.map((i) => (i.path && i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : String(i.message))).join('; ');
  } catch {
    return undefined;
  }
}
