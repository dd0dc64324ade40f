import { initTRPC, TRPCError } from '@trpc/server';
import type { ActivitySnapshot } from '../observability/index.ts';
import type { GatewayConfig } from '../config/index.ts';
import { GatewayError } from '../errors/index.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import type { Store } from '../store/repositories.ts';
import type { UsageIndex } from '../usage/usage-index.ts';
import type { Clock } from '../util/clock.ts';
import { formatIssues, issuesOf } from '../util/format-issues.ts';

/** What admin procedures run against: the same store the server (or the locked CLI) holds. */
export interface AdminContext {
  store: Store;
  clock: Clock;
  config: GatewayConfig;
  dataDir: string;
  registry: () => Promise<ProviderRegistry>;
  /**
   * Usage aggregates (spend per key and account this period): the server's live ones, or
   * the ledger read once by a CLI that holds the data dir. Absent: views leave spend out.
   */
  usage?: () => Promise<UsageIndex>;
  /** The running server's live figures (absent in a CLI that holds the data dir: nothing runs). */
  activity?: () => ActivitySnapshot;
}

const t = initTRPC.context<AdminContext>().create({
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    // An input that failed validation: `email: Invalid email address`, not the issues as JSON.
    const issues = issuesOf(cause);
    const message = issues ? formatIssues(issues) : shape.message;
    return { ...shape, message, data: { ...shape.data, gatewayCode: cause instanceof GatewayError ? cause.code : undefined } };
  },
});

/** Turns a GatewayError thrown by a service into a tRPC error carrying its message. */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof GatewayError) {
    const cause = result.error.cause;
    const code = cause.status === 404 ? 'NOT_FOUND' : cause.status === 409 ? 'CONFLICT' : cause.status < 500 ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR';
    throw new TRPCError({ code, message: cause.message, cause });
  }
  // An input the schema refused, in words for in-process callers too (the formatter does it over HTTP).
  const issues = result.ok ? undefined : issuesOf(result.error.cause);
  if (!result.ok && issues) throw new TRPCError({ code: 'BAD_REQUEST', message: formatIssues(issues), cause: result.error.cause });
  return result;
});

export const router = t.router;
export const procedure = t.procedure.use(mapErrors);
