import { afterAll } from 'vitest';
import { connectTestDatabase, type TestDatabaseWithClient } from '../helpers/pg-database.ts';
import { describeCreditsContract } from './credits.case.ts';

/** The shared engine: holds, leased slices and the settlement outbox on PostgreSQL (a database of its own per run). */
let db: TestDatabaseWithClient | undefined;
afterAll(async () => {
  await db?.drop();
});
describeCreditsContract('PostgreSQL (shared across instances)', {
  config: async () => {
    db ??= await connectTestDatabase();
    return { store: { postgres: db.url } };
  },
});
