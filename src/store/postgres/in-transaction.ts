import type pg from 'pg';

/** Runs `work` in one transaction on a pooled client: committed when it returns, rolled back when it throws. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A connection whose rollback failed (lost, or still busy with a query that timed out) is dropped, not reused.
  let broken: Error | undefined;
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch((failed: unknown) => {
      broken = failed instanceof Error ? failed : new Error(String(failed));
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
