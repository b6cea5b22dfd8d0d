/**
 * A pooled PostgreSQL connection held for several statements (a transaction, a migration). While
 * it is out of the pool, a connection the server ends (a restart, a session timeout) emits
 * 'error', which with no listener would end the process. The statement in flight fails with it
 * anyway; the listener only keeps the process up, and the connection is dropped, not reused.
 */
import type pg from 'pg';

export async function withPooledConnection<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient, drop: () => void) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let unusable = false;
  const lost = () => {
    unusable = true;
  };
  client.on('error', lost);
  try {
    return await work(client, lost);
  } finally {
    client.off('error', lost);
    client.release(unusable);
  }
}
