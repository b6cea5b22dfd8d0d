/**
 * Three gateway processes on one PostgreSQL, with or without Redis: one exact budget across them,
 * key changes reaching all of them within a second, and an instance cut off from PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callForm, PUBLIC_FORMS } from './upstreams/public-forms';
import { type GatewayProcess, type IssuedKey } from './gateway-process';
import { startPausableProxy, type PausableProxy } from './pausable-proxy';
import { createTestSchema, type TestSchema } from './upstreams/shared-services';
import {
  available,
  MODEL,
  LOADED_LEASE_MS,
  LONG_ANSWER,
  bodyFor,
  answer,
  startCluster,
  moneyOf,
  chargedTo,
  readChatStream,
  eventually,
  networkDelay,
} from './scale-out-kit';

/** The suite of three instances on one store; each variant is a file of its own, so they run side by side. */
export function describeThreeInstances({ label, redis }: { label: string; redis: boolean }) {
  describe.skipIf(!available)(`three gateway instances on ${label}`, () => {
    let schema: TestSchema;
    let proxy: PausableProxy;
    let instances: GatewayProcess[];
    let account: IssuedKey;
    let allocated: IssuedKey;
    let shared: IssuedKey;

    beforeAll(async () => {
      schema = await createTestSchema(redis ? 'scale_redis' : 'scale_pg');
      const database = new URL(schema.url);
      proxy = await startPausableProxy(
        { host: database.hostname, port: Number(database.port) },
        { delay: networkDelay },
      );
      // The third instance can be cut off from PostgreSQL (the last test); its streams are slow.
      instances = await startCluster(schema, {
        redis,
        leaseMs: LOADED_LEASE_MS,
        tokensPerSecond: 0,
        proxied: { proxy, tokensPerSecond: 40 },
      });
      const cli = instances[0]!;
      account = await cli.createKey([
        '--kind',
        'account',
        '--limit-usd',
        '0.01',
        '--grace-usd',
        '0.001',
      ]);
      allocated = await cli.createKey([
        '--kind',
        'allocated_child',
        '--parent',
        account.id,
        '--limit-usd',
        '0.005',
      ]);
      shared = await cli.createKey(['--kind', 'shared_child', '--parent', account.id]);
    }, 120_000);

    afterAll(async () => {
      proxy?.resume();
      await Promise.all((instances ?? []).map((instance) => instance.stop()));
      await proxy?.close();
      await schema?.drop();
    });

    it('holds one exact budget over 300 concurrent mixed requests spread over the instances', async () => {
      const keys = [account, allocated, shared];
      const statuses = await Promise.all(
        Array.from({ length: 300 }, async (_, index) => {
          const form = PUBLIC_FORMS[index % 3]!;
          const key = keys[Math.floor(index / 3) % 3]!;
          const instance = instances[index % instances.length]!;
          const response = await callForm(
            form,
            instance.baseUrl,
            key.key,
            MODEL,
            bodyFor(form, 100),
            {
              stream: index % 2 === 0,
            },
          );
          await response.arrayBuffer();
          return response.status;
        }),
      );
      // Some were admitted and some refused for money: the bound was really reached.
      expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(10);
      expect(statuses.filter((status) => status === 402).length).toBeGreaterThan(10);
      expect(statuses.filter((status) => status !== 200 && status !== 402)).toEqual([]);

      for (const funding of [account, allocated]) {
        const money = await moneyOf(schema, funding.id);
        expect(await chargedTo(schema, funding.id)).toBeLessThanOrEqual(money.limit + money.grace);
      }
      // After settlement the balance is the sum of the records, and nothing stays reserved.
      for (const funding of [account, allocated]) {
        const charged = await chargedTo(schema, funding.id);
        const money = await eventually(async () => {
          const now = await moneyOf(schema, funding.id);
          return now.pending === 0 ? now : undefined;
        }, 10_000);
        expect(money.consumption).toBe(charged);
        expect(money.reserved).toBe(0);
      }
      const balance = await fetch(`${instances[1]!.baseUrl}/v1/balance`, {
        headers: { authorization: `Bearer ${account.key}` },
      });
      const body = (await balance.json()) as { consumption_usd: number };
      expect(Math.round(body.consumption_usd * 1e9)).toBe(await chargedTo(schema, account.id));
    });

    // Key changes travel by PostgreSQL's LISTEN/NOTIFY with or without Redis: once is enough.
    it.skipIf(!redis)(
      'carries every key change made through the command line to all three instances within a second',
      async () => {
        /** Resolves once every instance answers `key` with `status`, failing after one second. */
        const everywhere = (key: string, status: number) =>
          Promise.all(
            instances.map((instance) =>
              eventually(async () => {
                const response = await answer(instance.baseUrl, key);
                return response.status === status ? true : undefined;
              }, 1_000),
            ),
          );
        const run = async (instance: GatewayProcess, args: string[]) => {
          const result = await instance.cli(args);
          expect(result.stderr).toBe('');
          expect(result.code).toBe(0);
          return result.stdout;
        };
        // Created on one: works on all.
        const key = await instances[0]!.createKey(['--kind', 'account', '--limit-usd', '1']);
        await everywhere(key.key, 200);
        // A limit below one request's worst case: refused everywhere; raised again: served.
        await run(instances[1]!, ['keys', 'set', key.id, '--limit-usd', '0.000001']);
        await everywhere(key.key, 402);
        await run(instances[2]!, ['keys', 'set', key.id, '--limit-usd', '1']);
        await everywhere(key.key, 200);
        // Rotated: the old secret is refused everywhere, the new one served.
        const rotated = JSON.parse(
          await run(instances[0]!, ['keys', 'rotate', key.id, '--json']),
        ) as IssuedKey;
        await Promise.all([everywhere(key.key, 401), everywhere(rotated.key, 200)]);
        // Disabled, then revoked.
        await run(instances[2]!, ['keys', 'disable', key.id]);
        await everywhere(rotated.key, 402);
        await run(instances[1]!, ['keys', 'revoke', key.id]);
        await everywhere(rotated.key, 401);
      },
      60_000,
    );

    // The day is moved back in the store: GATEWAY_CLOCK_OFFSET_MS does the same forward on one
    // instance (gateway/routes/key-periods-and-models.integration.test.ts).
    it.skipIf(!redis)(
      'renews a depleted daily key on every instance at its boundary, once',
      async () => {
        const key = await instances[0]!.createKey([
          '--kind',
          'account',
          '--limit-usd',
          '1',
          '--limit-reset',
          'daily',
        ]);
        for (const instance of instances)
          expect((await answer(instance.baseUrl, key.key)).status).toBe(200);
        // Its limit set to what it has spent: depleted, once the charges have settled.
        const spent = await eventually(async () => {
          const money = await moneyOf(schema, key.id);
          return money.pending === 0 && money.consumption > 0 ? money.consumption : undefined;
        }, 10_000);
        const set = await instances[1]!.cli([
          'keys',
          'set',
          key.id,
          '--limit-usd',
          String(spent / 1e9),
        ]);
        expect(set.code).toBe(0);
        const everywhere = (status: number) =>
          Promise.all(
            instances.map((instance) =>
              eventually(async () => {
                const response = await answer(instance.baseUrl, key.key);
                return response.status === status ? true : undefined;
              }, 10_000),
            ),
          );
        await everywhere(402);

        // A day later: the period began yesterday, as far as the store knows.
        await schema.query(
          'UPDATE keys SET period_started_at = period_started_at - 86400 WHERE id = $1',
          [key.id],
        );
        await everywhere(200);
        // Rolled once (one audited reset), to a base of all it had charged: back in full.
        const [row] = await schema.query<{ resets: string; base: string; started: string }>(
          `SELECT period_base_nanos AS base, period_started_at AS started,
             (SELECT count(*) FROM key_events WHERE key_id = $1 AND action = 'period_reset') AS resets
           FROM keys WHERE id = $1`,
          [key.id],
        );
        expect(Number(row!.resets)).toBe(1);
        expect(Number(row!.base)).toBe(spent);
        expect(Number(row!.started)).toBe(Math.floor(Date.now() / 86_400_000) * 86_400);
      },
      60_000,
    );

    // Without Redis each instance counts its own minute (docs/keys-and-money.md, "Rate limits").
    it.skipIf(!redis)(
      'shares rate limits: N+1 requests in a minute over three instances give exactly one 429',
      async () => {
        const key = await instances[0]!.createKey(['--kind', 'account', '--limit-usd', '1']);
        const set = await instances[0]!.cli(['keys', 'set', key.id, '--rpm', '5']);
        expect(set.code).toBe(0);
        // The limit reaches every instance with the key change.
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        const statuses: number[] = [];
        for (let index = 0; index < 6; index += 1) {
          const instance = instances[index % instances.length]!;
          const response = await answer(instance.baseUrl, key.key);
          statuses.push(response.status);
          if (response.status === 429) {
            expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
          } else {
            expect(response.headers.get('x-ratelimit-limit-requests')).toBe('5');
          }
        }
        expect(statuses.filter((status) => status === 429)).toHaveLength(1);
        expect(statuses.filter((status) => status === 200)).toHaveLength(5);
      },
    );

    // Last: it cuts the third instance off from PostgreSQL for a while.
    it('stops the stream of an instance cut off from PostgreSQL before its lease ends, and the key never passes limit + grace', async () => {
      const [other, , cutOff] = instances as [GatewayProcess, GatewayProcess, GatewayProcess];
      // The stream reserves 400 tokens' worst case (about $0.0012) of this $0.002.
      const account = await other.createKey([
        '--kind',
        'account',
        '--limit-usd',
        '0.002',
        '--grace-usd',
        '0',
      ]);
      const response = await callForm(
        'chat_completions',
        cutOff.baseUrl,
        account.key,
        MODEL,
        bodyFor('chat_completions', 400, LONG_ANSWER),
        { stream: true },
      );
      const reading = readChatStream(response);
      const rayId = response.headers.get('cf-ray')!;
      // Past a checkpoint, the instance loses its database (the connections stay open, silent).
      await eventually(async () => {
        const [row] = await schema.query<{ completion_tokens: string }>(
          'SELECT completion_tokens FROM inflight WHERE id = $1',
          [rayId],
        );
        return row && Number(row.completion_tokens) > 0 ? true : undefined;
      }, 5_000);
      const cutAt = Date.now();
      proxy.pause();

      // It stops the stream itself, with the form's error event, before its lease can end (the
      // last renewal got through at most a renewal interval before the cut).
      const stream = await reading;
      expect(stream.errored).toBe(true);
      expect(stream.finished).toBe(false);
      expect(stream.deltaTimes.length).toBeLessThan(400);
      expect(stream.deltaTimes.at(-1)!).toBeLessThan(cutAt + LOADED_LEASE_MS);

      // The other instance closes its row once the lease has ended, charging the checkpoint and
      // giving the reservation back…
      const closure = await eventually(
        async () => {
          const [row] = await schema.query<{ cost_nanos: string }>(
            'SELECT cost_nanos FROM generations WHERE id = $1 AND closed_by_lease',
            [rayId],
          );
          return row ? Number(row.cost_nanos) : undefined;
        },
        LOADED_LEASE_MS + 5_000,
        async () => {
          // What could keep the row open: its lease, and sessions holding or waiting on locks.
          const inflight = await schema.query('SELECT * FROM inflight WHERE id = $1', [rayId]);
          const sessions = await schema.query(
            `SELECT application_name, state, wait_event_type, left(query, 120) AS query
           FROM pg_stat_activity WHERE state <> 'idle' AND pid <> pg_backend_pid()`,
          );
          return JSON.stringify({ now: Date.now(), inflight, sessions });
        },
      );
      // …and others spend that room, up to the limit.
      let refused = false;
      for (let attempt = 0; attempt < 12 && !refused; attempt += 1) {
        const { status } = await answer(other.baseUrl, account.key, 'chat_completions', 100);
        expect([200, 402]).toContain(status);
        refused = status === 402;
      }
      expect(refused).toBe(true);

      // The instance gets its database back, and its record of the cut stream arrives: it
      // replaces the closure, charging no more than the closure did.
      proxy.resume();
      const record = await eventually(async () => {
        const [row] = await schema.query<{ cost_nanos: string; outcome: string }>(
          'SELECT cost_nanos, outcome FROM generations WHERE id = $1 AND NOT closed_by_lease',
          [rayId],
        );
        return row;
      }, 15_000);
      expect(record.outcome).toBe('ended_early');
      expect(Number(record.cost_nanos)).toBeLessThanOrEqual(closure);
      const money = await eventually(async () => {
        const now = await moneyOf(schema, account.id);
        return now.pending === 0 && now.reserved === 0 ? now : undefined;
      }, 10_000);
      const charged = await chargedTo(schema, account.id);
      expect(charged).toBeLessThanOrEqual(money.limit + money.grace);
      expect(money.consumption).toBe(charged);
    }, 60_000);
  });
}
