/**
 * SQLite migrations under a race: several processes open one new database at the same moment,
 * and each migration file still applies once.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { tempFolder } from '../../testing/gateway-support';
import { readMigrations } from './migrate';
import { openSqliteStore } from './sqlite-store';
import { generationRow, keyRow } from './store-contract';

/** The migrations in this checkout bring a database to this user_version. */
const LATEST = readMigrations('sqlite').length - 1;

describe('the SQLite store, opened by several processes', () => {
  it('applies each file once when several processes open a new database at the same moment', async () => {
    const folder = tempFolder();
    const file = path.join(folder, 'gateway.db');
    const script = path.join(folder, 'open.mts');
    const storeModule = path.resolve(import.meta.dirname, 'sqlite-store.ts');
    // Each process loads, says so, and opens (so migrates) the new file when told to go: loading
    // takes seconds, opening milliseconds, so only a start signal makes them meet.
    fs.writeFileSync(
      script,
      `import { openSqliteStore } from ${JSON.stringify(storeModule)};
       process.stdout.write('ready\\n');
       process.stdin.once('data', async () => {
         const store = openSqliteStore(process.argv[2]);
         await store.close();
         process.exit(0);
       });`,
    );
    const children = Array.from({ length: 4 }, () =>
      spawn(process.execPath, ['--import', 'tsx', script, file], {
        cwd: path.resolve(import.meta.dirname, '../..'),
        stdio: ['pipe', 'pipe', 'pipe'],
      }),
    );
    const exits = children.map(
      (child) =>
        new Promise<{ code: number | null; stderr: string }>((resolve) => {
          let stderr = '';
          child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
          child.on('exit', (code) => resolve({ code, stderr }));
        }),
    );
    await Promise.all(
      children.map((child) => new Promise((resolve) => child.stdout.once('data', resolve))),
    );
    for (const child of children) child.stdin.write('go\n');
    expect(await Promise.all(exits)).toEqual(
      Array.from({ length: 4 }, () => ({ code: 0, stderr: '' })),
    );
    const database = new Database(file, { readonly: true });
    expect(database.pragma('user_version', { simple: true })).toBe(LATEST);
    database.close();
    const store = openSqliteStore(file);
    await store.insertKey(keyRow());
    await store.insertGenerations([generationRow()]);
    expect(await store.fundingFigures('key_account')).toMatchObject({
      pendingNanos: 3_000_000_001,
    });
    await store.close();
    fs.rmSync(folder, { recursive: true, force: true });
  }, 30_000);
});
