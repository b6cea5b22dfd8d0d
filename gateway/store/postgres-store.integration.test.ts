/**
 * The PostgreSQL store against a real server: GATEWAY_TEST_DATABASE_URL, or the local one. The
 * run keeps to schemas of its own (gateway_test_<pid>_<random>, and that name with a suffix),
 * dropped at the end, so runs side by side never meet. Without a server the suite fails in CI
 * (CI=true) and is skipped, loudly, elsewhere.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { readMigrations, migratePostgres } from './migrate';
import { columnTypes, generationFieldList } from '../../contract/generation-record';
import { keyChannel, openPostgresStore } from './postgres-store';
import type { GatewayStore } from './store';
import { describeStoreContract, generationRow, inflightRow, keyRow } from './store-contract';
import { describeWebhookStoreContract } from './webhook-store-contract';
import { describeKeyPeriodStoreContract } from './key-period-store-contract';
import { describePresetStoreContract } from './preset-store-contract';
import { describeBatchStoreContract } from './batch-store-contract';
import { postgresAvailable, testDatabaseUrl } from '../../testing/upstreams/shared-services';
import { startPausableProxy } from '../../testing/pausable-proxy';

const url = testDatabaseUrl;
const runSchema = `gateway_test_${process.pid}_${randomBytes(4).toString('hex')}`;

// Without a server this fails in CI and is skipped, loudly, elsewhere (testing/upstreams/shared-services).
const available = await postgresAvailable('the PostgreSQL store tests');

describe.skipIf(!available)('the PostgreSQL store', () => {
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  const schemas = [runSchema];

  afterAll(async () => {
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });

  // DELETE, not TRUNCATE: on tables this small it takes a tenth of the time.
  const emptyTables = async () => {
    const tables = [
      'key_events',
      'key_ledger',
      'generations',
      'generation_days',
      'inflight',
      'stored_responses',
      'webhooks',
      'webhook_deliveries',
      'webhook_fired',
      'key_periods',
      'presets',
      'batch_files',
      'batches',
      'batch_lines',
    ];
    for (const table of [...tables, 'keys']) await admin.query(`DELETE FROM ${runSchema}.${table}`);
  };

  const openInRun = (options: { instanceId?: string } = {}) =>
    openPostgresStore(url, { schema: runSchema, poolSize: 30, ...options });

  const factory = {
    // Every test starts from empty tables (the schema is migrated once, by the first store).
    open: async () => {
      const store = await openInRun();
      await emptyTables();
      return store;
    },
    openAnother: () => openInRun(),
  };
  describeStoreContract(factory);
  describeWebhookStoreContract(factory);
  describeKeyPeriodStoreContract(factory);
  describePresetStoreContract(factory);
  describeBatchStoreContract(factory);

  describe('specific to PostgreSQL', () => {
    let stores: GatewayStore[] = [];
    const open = async (options: { instanceId?: string } = {}) => {
      const store = await openInRun(options);
      stores.push(store);
      return store;
    };
    afterEach(async () => {
      const closing = stores;
      stores = [];
      await Promise.all(closing.map((store) => store.close()));
    });

    it('has a column of its definition’s type for every field of the generation record', async () => {
      await (await open()).ping();
      const { rows } = await admin.query<{ column_name: string; data_type: string }>(
        `SELECT column_name, data_type FROM information_schema.columns
         WHERE table_schema = $1 AND table_name = 'generations'`,
        [runSchema],
      );
      const types = new Map(rows.map((row) => [row.column_name, row.data_type]));
      for (const [, spec] of generationFieldList) {
        expect({ column: spec.column, type: types.get(spec.column) }).toEqual({
          column: spec.column,
          type: columnTypes[spec.kind].postgres,
        });
      }
    });

    it('migrates a new schema once when two instances start at the same moment', async () => {
      const schema = `${runSchema}_race`;
      schemas.push(schema);
      const pools = [0, 1].map(
        () => new pg.Pool({ connectionString: url, max: 2, options: `-c search_path=${schema}` }),
      );
      try {
        const applied = await Promise.all(pools.map((pool) => migratePostgres(pool, schema)));
        const files = readMigrations('postgres');
        // One of them applied every file; the other waited for the lock and found none left.
        expect(applied.map((list) => list.length).sort()).toEqual([0, files.length]);
        const { rows } = await admin.query<{ version: number; name: string }>(
          `SELECT version, name FROM ${schema}.schema_migrations ORDER BY version`,
        );
        expect(rows).toEqual(files.map(({ version, name }) => ({ version, name })));
        expect(await migratePostgres(pools[0]!, schema)).toEqual([]);
      } finally {
        await Promise.all(pools.map((pool) => pool.end()));
      }
    });

    it('settles nothing while another instance holds the settlement lock', async () => {
      const store = await open();
      await emptyTables();
      await store.insertKey(keyRow());
      await store.insertGenerations([generationRow()]);
      const holder = await admin.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
          0x6777_0002,
          runSchema,
        ]);
        expect(await store.settlePending(1)).toEqual(new Map());
        expect(await store.pendingFor('key_account')).toBe(3_000_000_001);
      } finally {
        await holder.query('ROLLBACK');
        holder.release();
      }
      expect(await store.settlePending(1)).toEqual(new Map([['key_account', 3_000_000_001]]));
    });

    it('holds a funding key row read forUpdate until commit: no record adds to its pending meanwhile', async () => {
      const seeder = await open();
      const writerId = `writer-${randomBytes(4).toString('hex')}`;
      const writer = await open({ instanceId: writerId });
      await emptyTables();
      await seeder.insertKey(keyRow());
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let read!: () => void;
      const wasRead = new Promise<void>((resolve) => (read = resolve));
      const seeding = seeder.transaction(async () => {
        await seeder.fundingFigures('key_account', { forUpdate: true });
        read();
        await released;
      });
      await wasRead;
      try {
        // The record's write either finishes (the row was not locked) or waits on the lock.
        const writing = writer.insertGenerations([generationRow()]).then(() => 'written' as const);
        let raced = false;
        const waitsOnLock = (async () => {
          while (!raced) {
            const { rows } = await admin.query<{ waiting: number }>(
              `SELECT count(*)::int AS waiting FROM pg_stat_activity
             WHERE wait_event_type = 'Lock' AND application_name LIKE $1`,
              [`gateway ${writerId}%`],
            );
            if (rows[0]!.waiting > 0) return 'waiting' as const;
            await new Promise((resolve) => setImmediate(resolve));
          }
          return 'stopped' as const;
        })();
        const first = await Promise.race([writing, waitsOnLock]);
        raced = true;
        expect(first).toBe('waiting');
        release();
        await seeding;
        expect(await writing).toBe('written');
        expect(await writer.pendingFor('key_account')).toBe(3_000_000_001);
      } finally {
        release();
      }
    });

    it('closes the rows of an instance cut off mid-transaction once its lease has passed', async () => {
      const direct = await open();
      await emptyTables();
      const server = new URL(url);
      const proxy = await startPausableProxy({
        host: server.hostname,
        port: Number(server.port || 5432),
      });
      const proxied = new URL(url);
      proxied.port = String(proxy.port);
      const leaseMs = 1_000;
      const cut = await openPostgresStore(proxied.toString(), {
        schema: runSchema,
        instanceId: 'cut',
        leaseMs,
      });
      let finish!: () => void;
      const finished = new Promise<void>((resolve) => (finish = resolve));
      try {
        await direct.insertKey(keyRow());
        await direct.reserve(
          inflightRow({
            instanceId: 'cut',
            reservedNanos: 5,
            completionTokens: 7,
            costNanos: 3,
            leaseExpiresAt: Date.now() + leaseMs,
          }),
        );
        // The cut instance is renewing the row and reading its key for an update when the network
        // goes: it holds both rows' locks, and its COMMIT never arrives.
        let locked!: () => void;
        const holding = new Promise<void>((resolve) => (locked = resolve));
        const stranded = cut.transaction(async () => {
          await cut.checkpointInflight('cut', Date.now() + leaseMs, [
            { ...inflightRow(), completionTokens: 9, costNanos: 4 },
          ]);
          await cut.fundingFigures('key_account', { forUpdate: true });
          proxy.pause();
          locked();
          await finished;
        });
        const outcome = stranded.then(
          () => 'committed',
          () => 'failed',
        );
        await holding;
        // Another instance closes the row once the server has ended the silent session.
        let closed: string[] = [];
        const deadline = Date.now() + 15_000;
        while (closed.length === 0 && Date.now() < deadline) {
          const { records } = await direct.reclaimInflight(Date.now());
          closed = records.map((record) => record.id);
          if (closed.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(closed).toEqual([inflightRow().id]);
        expect((await direct.fundingFigures('key_account'))?.reservedNanos).toBe(0);
        // Back on the network, the cut instance learns its transaction is gone, and works again.
        finish();
        proxy.resume();
        expect(await outcome).toBe('failed');
        await cut.ping();
      } finally {
        finish();
        proxy.resume();
        await cut.close();
        await proxy.close();
      }
    });

    it('does not report a commit when a statement inside the transaction had failed', async () => {
      const store = await open();
      await emptyTables();
      const attempt = store.transaction(async () => {
        await store.insertKey(keyRow());
        // Refused (same digest); the caller catches it, but PostgreSQL has aborted the work.
        await store.insertKey(keyRow({ id: 'key_twin', digest: 'v1$key_account' })).catch(() => {});
      });
      await expect(attempt).rejects.toThrow(/rolled back/);
      expect(await store.getKey('key_account')).toBeUndefined();
    });

    it('keeps hearing key changes after its listening connection drops', async () => {
      const store = await open({ instanceId: `listener-test-${runSchema}` });
      const other = await open();
      await emptyTables();
      await other.insertKey(keyRow());
      let changes = 0;
      const stop = store.watchKeyChanges(() => changes++);
      const listening = async () =>
        (
          await admin.query(
            `SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN%'`,
            [`gateway listener-test-${runSchema} listener`],
          )
        ).rows as Array<{ pid: number }>;
      const until = async (check: () => Promise<boolean> | boolean) => {
        const deadline = Date.now() + 5_000;
        while (!(await check())) {
          if (Date.now() > deadline) throw new Error('timed out');
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      };
      await until(async () => (await listening()).length === 1);
      const [before] = await listening();
      await admin.query('SELECT pg_terminate_backend($1)', [before!.pid]);
      await until(async () => {
        const now = await listening();
        return now.length === 1 && now[0]!.pid !== before!.pid;
      });
      // Told once on reconnecting (it may have missed something), then each change as before.
      await until(() => changes >= 1);
      const seen = changes;
      await other.updateKey('key_account', { disabled: true });
      await until(() => changes > seen);
      stop();
    });

    it('announces key changes on commit, not before', async () => {
      const store = await open();
      await emptyTables();
      const listener = new pg.Client({ connectionString: url });
      await listener.connect();
      const heard: string[] = [];
      listener.on('notification', (message) => heard.push(message.payload ?? ''));
      await listener.query(`LISTEN ${keyChannel(runSchema)}`);
      try {
        let release!: () => void;
        const gate = new Promise<void>((resolve) => (release = resolve));
        let entered!: () => void;
        const inside = new Promise<void>((resolve) => (entered = resolve));
        const transaction = store.transaction(async () => {
          await store.insertKey(keyRow());
          entered();
          await gate;
        });
        try {
          await inside;
          await new Promise((resolve) => setTimeout(resolve, 200));
          expect(heard).toEqual([]);
        } finally {
          release();
          await transaction;
        }
        await store.updateKey('key_account', { name: 'renamed' });
        const deadline = Date.now() + 2_000;
        while (heard.length < 2 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(heard).toEqual(['key_account', 'key_account']);
      } finally {
        await listener.end();
      }
    });

    it('has no synchronous keys version: changes arrive by notification', async () => {
      const store = await open();
      expect(store.engine).toBe('postgres');
      expect(store.keysVersion).toBeUndefined();
    });
  });
});
