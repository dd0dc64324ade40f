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
     * Wait for PostgreSQL's WAL flush when a settlement commits (default false: a gateway crash
     * loses no answered charge either way; with false a crash of the PostgreSQL server may lose
     * its last ~0.6 s of settlements, like a power loss and the file store's ledger).
     */
    synchronousCommit: z.boolean().optional(),
  })
  .optional();

export type StoreConfig = z.output<typeof storeConfigSchema>;
