import { initTRPC, TRPCError } from '@trpc/server';
import type { ActivitySnapshot } from '../observability/index.ts';
import type { GatewayConfig } from '../config/index.ts';
import type { CreditsUsage } from '../credits/index.ts';
import type { JobRecords } from '../jobs/index.ts';
import { GatewayError, isGatewayError } from '../errors/index.ts';
import type { ProviderRegistry } from '../providers/index.ts';
import { databaseUnavailable, type Store } from '../store/index.ts';
import type { UsageIndex } from '../usage/index.ts';
import type { Clock } from '../util/index.ts';
import { formatIssues, issuesOf } from '../util/index.ts';

/** What admin procedures run against: the same store the server (or the locked CLI) holds. */
export interface AdminContext {
  store: Store;
  clock: Clock;
  config: GatewayConfig;
  dataDir: string;
  registry: () => Promise<ProviderRegistry>;
  /** The credits' usage view (`billing.usage`): the running engine's, or its ledger read by a CLI that holds the data dir. */
  credits: CreditsUsage;
  /**
   * Usage aggregates (spend per key and account this period): the server's live ones, or
   * the ledger read once by a CLI that holds the data dir. Absent: views leave spend out.
   */
  usage?: () => Promise<UsageIndex>;
  /** The running server's live figures (absent in a CLI that holds the data dir: nothing runs). */
  activity?: () => ActivitySnapshot;
  /** The running server's job records, changed in its job runner's turns (absent in a CLI that holds the data dir: no job runs). */
  jobs?: JobRecords;
}

/** The house's error shape for every tRPC surface (admin procedures, dashboard sessions). */
const errorFormatter = ({ shape, error }: { shape: { message: string; data: object }; error: TRPCError }) => {
  const cause = error.cause;
  // An input that failed validation: `email: Invalid email address`, not the issues as JSON.
  const issues = issuesOf(cause);
  const message = issues ? formatIssues(issues) : shape.message;
  return { ...shape, message, data: { ...shape.data, gatewayCode: isGatewayError(cause) ? cause.code : undefined } };
};

/**
 * A GatewayError thrown by a service as a tRPC error carrying its message; a refused input in
 * words; the shared database away (a restart, a partition) as 503 SERVICE_UNAVAILABLE with
 * gatewayCode `service_unavailable`, as the HTTP routes answer it (not a 500).
 */
function mappedError(cause: unknown): TRPCError | undefined {
  const gateway = isGatewayError(cause) ? cause : databaseUnavailable(cause);
  if (gateway) {
    const status = gateway.status;
    const code = status === 404 ? 'NOT_FOUND' : status === 409 ? 'CONFLICT' : status === 503 ? 'SERVICE_UNAVAILABLE' : status < 500 ? 'BAD_REQUEST' : 'INTERNAL_SERVER_ERROR';
    return new TRPCError({ code, message: gateway.message, cause: gateway });
  }
  // An input the schema refused, in words for in-process callers too (the formatter does it over HTTP).
  const issues = issuesOf(cause);
  return issues ? new TRPCError({ code: 'BAD_REQUEST', message: formatIssues(issues), cause }) : undefined;
}

const t = initTRPC.context<AdminContext>().create({ errorFormatter });

const mapErrors = t.middleware(async ({ ctx, next }) => {
  const result = await next();
  if (!result.ok) ctx.store.database?.failed(result.error.cause);
  const mapped = result.ok ? undefined : mappedError(result.error.cause);
  if (mapped) throw mapped;
  return result;
});

export const router = t.router;
export const procedure = t.procedure.use(mapErrors);
/** Response headers for a tRPC answer (fetchRequestHandler's responseMeta): Retry-After when an error says when to come back (the database away: 1). */
function retryAfterMeta({ errors }: { errors: TRPCError[] }): { headers?: Headers } {
  const seconds = errors.map((e) => (isGatewayError(e.cause) ? e.cause.retryAfter : undefined)).find((s) => s !== undefined);
  return seconds === undefined ? {} : { headers: new Headers({ 'retry-after': String(seconds) }) };
}

export { errorFormatter, mappedError, retryAfterMeta };
