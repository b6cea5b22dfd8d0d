/** Three gateway processes on one store, one killed mid-stream: nothing answered is left uncharged. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callForm, PUBLIC_FORMS } from './upstreams/public-forms';
import { type GatewayProcess } from './gateway-process';
import { renewalIntervalMs } from '../gateway/billing/inflight-rows';
import { createTestSchema, type TestSchema } from './upstreams/shared-services';
import {
  available,
  MODEL,
  LEASE_MS,
  LONG_ANSWER,
  bodyFor,
  answer,
  startCluster,
  moneyOf,
  chargedTo,
  readChatStream,
  eventually,
} from './scale-out-kit';

describe.skipIf(!available)('an instance killed mid-stream', () => {
  let schema: TestSchema;
  let instances: GatewayProcess[];

  beforeAll(async () => {
    schema = await createTestSchema('scale_kill');
    // Slow streams, so the kill lands in the middle of them.
    instances = await startCluster(schema, { redis: true, leaseMs: LEASE_MS, tokensPerSecond: 10 });
  }, 120_000);

  afterAll(async () => {
    await Promise.all((instances ?? []).map((instance) => instance.stop()));
    await schema?.drop();
  });

  it('keeps serving under load, leaves nothing answered uncharged, charges nothing twice, and frees what it held', async () => {
    // Six streams of up to 400 tokens hold about $0.0072 of this $0.008: while the victim's
    // reservations are held, one more such request does not fit.
    const account = await instances[0]!.createKey([
      '--kind',
      'account',
      '--limit-usd',
      '0.008',
      '--grace-usd',
      '0',
    ]);
    const busy = await instances[0]!.createKey(['--kind', 'account', '--limit-usd', '1']);
    const [survivorA, victim, survivorB] = instances as [
      GatewayProcess,
      GatewayProcess,
      GatewayProcess,
    ];
    // Streams on the victim: read until the kill cuts them, noting every token that arrived.
    const victimStreams = Array.from({ length: 6 }, async () =>
      readChatStream(
        await callForm(
          'chat_completions',
          victim.baseUrl,
          account.key,
          MODEL,
          bodyFor('chat_completions', 400, LONG_ANSWER),
          { stream: true },
        ),
      ),
    );
    // Meanwhile the survivors serve a steady load of every form, streamed and not, from
    // before the kill until the victim's reservations are freed.
    let loading = true;
    const load = Array.from({ length: 6 }, async (_, worker) => {
      const answered: Array<{ status: number; rayId: string }> = [];
      for (let index = 0; loading; index += 1) {
        const form = PUBLIC_FORMS[(worker + index) % 3]!;
        const instance = (worker + index) % 2 === 0 ? survivorA : survivorB;
        const response = await callForm(form, instance.baseUrl, busy.key, MODEL, bodyFor(form, 3), {
          stream: index % 2 === 1,
        });
        await response.arrayBuffer();
        answered.push({ status: response.status, rayId: response.headers.get('cf-ray')! });
      }
      return answered;
    });
    // Let the streams run past a few checkpoints, then kill without warning.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    await victim.kill('SIGKILL');
    const cut = await Promise.all(victimStreams);
    expect(cut.every((stream) => stream.deltaTimes.length > 0 && !stream.finished)).toBe(true);

    const large = async () => {
      const response = await answer(survivorA.baseUrl, account.key, 'chat_completions', 400);
      return response.status;
    };
    // Held by the dead instance until its lease ends…
    expect(await large()).toBe(402);
    // …and then freed, without anyone's help.
    await eventually(async () => ((await large()) === 200 ? true : undefined), LEASE_MS + 3_000);
    loading = false;
    const served = (await Promise.all(load)).flat();
    // The survivors kept serving: every request of the load was answered.
    expect(served.length).toBeGreaterThan(30);
    expect(served.filter((answer) => answer.status !== 200)).toEqual([]);

    // Within the lease (plus a reclaim tick), the survivors close the victim's streams as
    // ended_early, charging what was checkpointed.
    const records = await eventually(async () => {
      const rows = await schema.query<{
        id: string;
        outcome: string;
        completion_tokens: string;
        cost_nanos: string;
      }>(`SELECT id, outcome, completion_tokens, cost_nanos FROM generations WHERE id = ANY($1)`, [
        cut.map((stream) => stream.rayId),
      ]);
      return rows.length === cut.length ? rows : undefined;
    }, LEASE_MS + 5_000);
    // What each cut stream is charged is what its client received, less what arrived after the
    // last checkpoint that reached the database: checkpoints go every renewal interval (500 ms
    // with this lease), and the last one's write took well under half a second more, so at 10
    // tokens a second no stream loses more than 10 tokens' charge, and none is charged more than
    // it received.
    const uncharged = Math.ceil((10 * (renewalIntervalMs(LEASE_MS) + 500)) / 1000);
    for (const record of records) {
      const delivered = cut.find((stream) => stream.rayId === record.id)!.deltaTimes.length;
      expect(record.outcome).toBe('ended_early');
      expect(Number(record.cost_nanos)).toBeGreaterThan(0);
      expect(Number(record.completion_tokens)).toBeLessThanOrEqual(delivered);
      expect(Number(record.completion_tokens)).toBeGreaterThanOrEqual(delivered - uncharged);
    }
    const inflight = await schema.query('SELECT id FROM inflight');
    expect(inflight).toHaveLength(0);
    // Every answered request has exactly one record (the id is the primary key: a second
    // close of the same request could not be written, and none was attempted twice).
    const answered = await schema.query<{ id: string }>(
      'SELECT id FROM generations WHERE id = ANY($1)',
      [served.map((answer) => answer.rayId)],
    );
    expect(answered).toHaveLength(served.length);
    // After settlement, each balance is the sum of its records, the reclaimed ones included.
    for (const key of [account, busy]) {
      const money = await eventually(async () => {
        const now = await moneyOf(schema, key.id);
        return now.pending === 0 && now.reserved === 0 ? now : undefined;
      }, 10_000);
      expect(money.consumption).toBe(await chargedTo(schema, key.id));
    }
  }, 60_000);
});
