import pg from 'pg';

/** The server tests use (trust auth on this machine); each run works in its own database. */
export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** The URL of `database` on the same server. */
export function databaseUrl(database: string): string {
  const url = new URL(DATABASE_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Creates a fresh, empty database (gw_test_<random>) and returns its URL and a dropper. */
export async function createTestDatabase(): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `gw_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  return {
    name,
    url: databaseUrl(name),
    async drop() {
      const c = new pg.Client({ connectionString: DATABASE_URL });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

export type TestDatabaseWithClient = Awaited<ReturnType<typeof createTestDatabase>> & { sql: pg.Client };

/** A fresh database (as `createTestDatabase`) and a client connected to it; `drop()` ends the client first. */
export async function connectTestDatabase(): Promise<TestDatabaseWithClient> {
  const db = await createTestDatabase();
  const sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
  return {
    ...db,
    sql,
    async drop() {
      await sql.end().catch(() => undefined);
      await db.drop();
    },
  };
}
