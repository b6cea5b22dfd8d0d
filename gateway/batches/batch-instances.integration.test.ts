/**
 * Batches on PostgreSQL with two instances: both run the lines of one batch, each line once, and
 * lines left claimed by an instance that died are taken over once their lease has lapsed.
 */
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestSchema,
  postgresAvailable,
  type TestSchema,
} from '../../testing/upstreams/shared-services';
import { eventually, startTestGateway, type TestGateway } from '../../testing/gateway-support';
import type { BatchLineRow } from '../store/batches';

const available = await postgresAvailable('the two-instance batches test');

const chatLine = (index: number) =>
  JSON.stringify({
    custom_id: `line-${index}`,
    method: 'POST',
    url: '/v1/chat/completions',
    body: {
      model: 'sim/chat-standard',
      messages: [{ role: 'user', content: `Item ${index}` }],
      max_tokens: 8,
    },
  });

describe.runIf(available)('batches on PostgreSQL with two instances', () => {
  let schema: TestSchema;
  let instances: TestGateway[] = [];

  beforeAll(async () => {
    schema = await createTestSchema('batches');
    for (let index = 0; index < 2; index += 1) {
      instances.push(await startTestGateway({ databaseUrl: schema.url }));
    }
  });
  afterAll(async () => {
    for (const instance of instances) await instance.stop();
    instances = [];
    await schema.drop();
  });

  const linesOf = (batchId: string) =>
    schema.query<{ claimed_by: string; state: string }>(
      'SELECT claimed_by, state FROM batch_lines WHERE batch_id = $1',
      [batchId],
    );
  const recordsOf = async (batchId: string) =>
    Number(
      (
        await schema.query<{ count: string }>(
          'SELECT COUNT(*) AS count FROM generations WHERE batch_id = $1',
          [batchId],
        )
      )[0]!.count,
    );

  it('shares one batch between the instances, each line run and charged once', async () => {
    const [first] = instances;
    const key = await first!.createKey({ kind: 'account', limitUsd: 10 });
    const client = new OpenAI({ apiKey: key.key, baseURL: `${first!.url}/v1`, maxRetries: 0 });
    const file = await client.files.create({
      file: await toFile(
        Buffer.from(Array.from({ length: 200 }, (_, index) => chatLine(index)).join('\n')),
        'input.jsonl',
      ),
      purpose: 'batch',
    });
    const { id } = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const batch = await eventually(async () => {
      const current = await client.batches.retrieve(id);
      return current.status === 'completed' ? current : undefined;
    }, 60_000);
    expect(batch.request_counts).toEqual({ total: 200, completed: 200, failed: 0 });
    expect(await recordsOf(id)).toBe(200);
    const runners = new Set((await linesOf(id)).map((line) => line.claimed_by));
    expect(runners).toEqual(
      new Set(instances.map((instance) => instance.gateway.parts.instanceId)),
    );
  });

  it('takes over the lines of an instance that died, once their lease has lapsed', async () => {
    const [first, second] = instances;
    const key = await first!.createKey({ kind: 'account', limitUsd: 10 });
    const batchId = 'batch_left_by_a_dead_instance';
    const lines: BatchLineRow[] = Array.from({ length: 20 }, (_, index) => ({
      batchId,
      index,
      customId: `line-${index}`,
      request: JSON.parse(chatLine(index)).body,
      // Claimed (below) by an instance that is gone: no runner here may take them before.
      state: 'running',
      claimedBy: null,
      leaseExpiresAt: null,
      statusCode: null,
      result: null,
      generationId: null,
      costNanos: 0,
    }));
    const now = Math.floor(Date.now() / 1000);
    await second!.gateway.parts.store.batches.createBatch(
      {
        id: batchId,
        keyId: key.id,
        shape: 'openai',
        endpoint: '/v1/chat/completions',
        inputFileId: null,
        metadata: null,
        status: 'in_progress',
        outputFileId: null,
        errorFileId: null,
        createdAt: now,
        inProgressAt: now,
        cancellingAt: null,
        endedAt: null,
        expiresAt: now + 86_400,
        eventSent: false,
      },
      lines,
    );
    // Half lapsed a while ago: taken over. Half still held (a live instance's): left alone.
    const leaseMs = first!.gateway.parts.config.leaseMs;
    await schema.query(
      `UPDATE batch_lines SET claimed_by = 'dead', lease_expires_at =
         CASE WHEN line_index < 10 THEN $2::bigint ELSE $3::bigint END WHERE batch_id = $1`,
      [batchId, Date.now() - 3 * leaseMs, Date.now() + 10 * leaseMs],
    );
    await eventually(async () => {
      const states = await linesOf(batchId);
      return states.filter((line) => line.state === 'succeeded').length === 10 ? true : undefined;
    });
    const left = await linesOf(batchId);
    expect(
      left.filter((line) => line.claimed_by === 'dead' && line.state === 'running'),
    ).toHaveLength(10);
    expect(await recordsOf(batchId)).toBe(10);
  });
});
