/** One status-line sentence for a failed procedure call: tRPC, zod and network errors alike. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const message = error.message.trim();
  const zod = readZodIssues(message);
  if (zod) return zod;
  const cause = (error as { cause?: unknown }).cause;
  const code = cause && typeof cause === 'object' && 'code' in cause ? String((cause as { code: unknown }).code) : undefined;
  if (message === 'fetch failed' || code === 'ECONNREFUSED' || code === 'ECONNRESET') {
    return `cannot reach the gateway server${code ? ` (${code})` : ''}: is it still running?`;
  }
  return message.split('\n')[0] || error.name;
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
