import { z } from 'zod';

/**
 * `store`: where records live. Absent = the file store in the data dir (one process);
 * `{ postgres: '<connection url>' }` = every record in PostgreSQL, shared by any number of
 * gateway instances (docs/scale-out.md).
 */
export const storeConfigSchema = z
  .strictObject({
    postgres: z.string().regex(/^postgres(?:ql)?:\/\//, 'a postgres:// or postgresql:// connection URL'),
    /** Connections each instance keeps open (default 10). */
    poolSize: z.number().int().min(2).max(200).optional(),
    /**
     * Wait for PostgreSQL's WAL flush when settlements commit (default true). The request path
     * never waits for it: answers wait for the instance's outbox, which a flusher sends in
     * groups; with false a crash of the PostgreSQL server may lose the last ~0.6 s of flushed
     * groups, whose lines the outbox has already let go.
     */
    synchronousCommit: z.boolean().optional(),
    /**
     * Settlements wait in the instance's outbox (`<data dir>/settlements.jsonl`) at most this
     * long before a group is sent to PostgreSQL (ms, default 20; 256 waiting lines go at once).
     */
    flushMs: z.number().int().min(1).max(1000).optional(),
    /**
     * Longest wait for PostgreSQL's answer to one query (ms, default 30,000): a server that keeps
     * its connections open but answers nothing (frozen, a partition without resets) fails
     * requests with 503 after this instead of holding them. Migrations at start-up are not bounded.
     */
    queryTimeoutMs: z.number().int().min(100).max(600_000).optional(),
    /** A leased slice of an account's balance unused this long goes back to the account (ms, default 1,000). */
    leaseIdleMs: z.number().int().min(50).max(60_000).optional(),
    /**
     * The holds of an instance not seen in the database this long are given back by the others
     * (ms, default 30,000): each instance says it is alive every sixth of it (5 s by default) and
     * its slices admit only while its last beat is younger than half of it. Every instance on one
     * database should have the same value.
     */
    instanceStaleMs: z.number().int().min(3_000).max(600_000).optional(),
  })
  .optional();

export type StoreConfig = z.output<typeof storeConfigSchema>;
