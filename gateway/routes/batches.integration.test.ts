/**
 * Batches through the official clients (docs/batches.md): the `openai` client's files and batches
 * and `@anthropic-ai/sdk`'s Message Batches run 100 lines to completion on one shared gateway, each
 * line its own charged record; bad input gets per-line errors or a 400 naming the problem.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import { startReceiver } from '../../testing/webhook-receiver';
import {
  KIND_PROVIDERS,
  RECORDED_ANSWERS,
  startKindUpstreams,
  type KindUpstreams,
} from '../../testing/upstreams/kind-upstreams';
import {
  eventually,
  startTestGateway,
  toNanos,
  type TestGateway,
} from '../../testing/gateway-support';

let gateway: TestGateway;
let upstreams: KindUpstreams;
let key: string;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  upstreams = await startKindUpstreams({ includeSimulatedModels: true });
  // Every line sent upstream gets the recorded plain answer.
  upstreams.fakes['openai-compatible'].fallback =
    RECORDED_ANSWERS['openai-compatible'].text.plain.reply();
  upstreams.fakes.anthropic.fallback = RECORDED_ANSWERS.anthropic.text.plain.reply();
  gateway = await startTestGateway({ providers: upstreams.providers });
  const created = await gateway.createKey({ kind: 'account', limitUsd: 50 });
  key = created.key;
  openai = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });
});
afterAll(async () => {
  await gateway?.stop();
  await upstreams?.close();
});

/** A chat line; room for the recorded upstream answer (46 tokens), so its charge is not capped. */
const chatLine = (index: number, model = 'sim/chat-standard:batch', maxTokens = 64) =>
  JSON.stringify({
    custom_id: `task-${index}`,
    method: 'POST',
    url: '/v1/chat/completions',
    body: {
      model,
      messages: [{ role: 'user', content: `Classify item ${index}` }],
      max_tokens: maxTokens,
    },
  });

async function upload(lines: string[]) {
  return openai.files.create({
    file: await toFile(Buffer.from(lines.join('\n') + '\n'), 'input.jsonl'),
    purpose: 'batch',
  });
}

async function finished(id: string) {
  return eventually(async () => {
    const batch = await openai.batches.retrieve(id);
    return batch.status === 'completed' || batch.status === 'cancelled' ? batch : undefined;
  }, 60_000);
}

/** A batch's records, as `GET /v1/generations?batch_id=` lists them. */
const records = async (batchId: string) => {
  const response = await fetch(`${gateway.url}/v1/generations?batch_id=${batchId}&limit=200`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const { data } = (await response.json()) as {
    data: Array<{ id: string; batch_id: string; cost_usd: number }>;
  };
  expect(data.every((record) => record.batch_id === batchId)).toBe(true);
  return data.map((record) => ({ row: { id: record.id, costNanos: toNanos(record.cost_usd) } }));
};

describe('the OpenAI batch shape, through the openai client', () => {
  it('runs a 100-line batch to completion: each line answered by custom_id and charged once', async () => {
    // Half on a simulated model, half on a model an upstream serves.
    const upstreamModel = KIND_PROVIDERS['openai-compatible'].model;
    const file = await upload(
      Array.from({ length: 100 }, (_, index) =>
        chatLine(index, index % 2 ? upstreamModel : 'sim/chat-standard'),
      ),
    );
    expect(file).toMatchObject({ object: 'file', purpose: 'batch', filename: 'input.jsonl' });
    const created = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      metadata: { job: 'classify' },
    });
    expect(created).toMatchObject({
      object: 'batch',
      status: 'in_progress',
      metadata: { job: 'classify' },
    });
    const batch = await finished(created.id);
    expect(batch.request_counts).toEqual({ total: 100, completed: 100, failed: 0 });
    expect(batch.error_file_id).toBeNull();
    const text = await (await openai.files.content(batch.output_file_id!)).text();
    const results = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(results.map((result) => result.custom_id)).toEqual(
      Array.from({ length: 100 }, (_, index) => `task-${index}`),
    );
    expect(results[0].response.status_code).toBe(200);
    expect(results[0].response.body.object).toBe('chat.completion');
    // A model with a :batch variant runs as it, at its price; one without, at its own price.
    const simulated = results[0].response.body;
    expect(simulated.model).toBe('sim/chat-standard:batch');
    expect(toNanos(simulated.usage.cost)).toBe(
      simulated.usage.prompt_tokens * 500 + simulated.usage.completion_tokens * 1_500,
    );
    const served = results[1].response.body;
    expect(served.model).toBe(upstreamModel);
    expect(served.choices[0].message.content).toBe(
      RECORDED_ANSWERS['openai-compatible'].text.plain.text,
    );
    // Charged as an interactive request is (capped at its reservation: the recorded prompt is
    // far longer than the one sent), on the line's own record.
    const servedRecord = await gateway.gateway.parts.store.getGeneration(
      results[1].response.request_id,
    );
    expect(servedRecord).toMatchObject({
      provider: KIND_PROVIDERS['openai-compatible'].provider,
      batchId: created.id,
    });
    expect(toNanos(served.usage.cost)).toBe(servedRecord!.costNanos);
    expect(upstreams.fakes['openai-compatible'].requests).toHaveLength(50);
    const charged = await records(batch.id);
    expect(charged).toHaveLength(100);
    const sum = charged.reduce((total, { row }) => total + row.costNanos, 0);
    expect(toNanos((batch as unknown as { cost_usd: number }).cost_usd)).toBe(sum);
    const listed = await openai.batches.list({ limit: 5 });
    expect(listed.data.map((entry) => entry.id)).toContain(batch.id);
  });

  it('answers bad lines with per-line errors, and a batch with nothing to run with a 400', async () => {
    const file = await upload([
      chatLine(0, 'sim/chat-standard'),
      '{not json',
      chatLine(2, 'nobody/nothing'),
      JSON.stringify({ custom_id: 'wrong-url', method: 'POST', url: '/v1/embeddings', body: {} }),
      JSON.stringify({
        custom_id: 'huge',
        method: 'POST',
        url: '/v1/chat/completions',
        body: { pad: 'x'.repeat(1_100_000) },
      }),
    ]);
    const batch = await finished(
      (
        await openai.batches.create({
          input_file_id: file.id,
          endpoint: '/v1/chat/completions',
          completion_window: '24h',
        })
      ).id,
    );
    expect(batch.request_counts).toEqual({ total: 5, completed: 1, failed: 4 });
    const errorsText = await (await openai.files.content(batch.error_file_id!)).text();
    const failed = errorsText
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(failed.map((line) => [line.custom_id, line.response.status_code])).toEqual([
      ['line-2', 400],
      ['task-2', 404],
      ['wrong-url', 400],
      ['line-5', 400],
    ]);
    expect(failed[0].response.body.error).toMatch(/Line 2: not valid JSON/);
    expect(failed[1].response.body.error).toMatch(/nobody\/nothing/);
    expect(failed[2].response.body.error).toMatch(/not the batch's endpoint/);
    expect(failed[3].response.body.error).toMatch(/over the limit of 1048576 bytes/);

    const nothing = await upload(['{not json', '[]']);
    await expect(
      openai.batches.create({
        input_file_id: nothing.id,
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
      }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/No line of the batch can run/),
    });
  });

  it('runs lines for /v1/embeddings and /v1/responses as those endpoints answer', async () => {
    const cases = [
      {
        endpoint: '/v1/embeddings' as const,
        body: { model: 'sim/embed-small', input: 'a corpus line' },
        check: (body: { object: string; data: Array<{ embedding: number[] }> }) => {
          expect(body.object).toBe('list');
          expect(body.data[0]!.embedding).toHaveLength(256);
        },
      },
      {
        endpoint: '/v1/responses' as const,
        body: { model: 'sim/chat-standard', input: 'Hi', max_output_tokens: 16 },
        check: (body: { object: string; model: string }) => {
          expect(body.object).toBe('response');
          expect(body.model).toBe('sim/chat-standard:batch');
        },
      },
    ];
    for (const { endpoint, body, check } of cases) {
      const file = await upload([
        JSON.stringify({ custom_id: 'only', method: 'POST', url: endpoint, body }),
      ]);
      const batch = await finished(
        (
          await openai.batches.create({
            input_file_id: file.id,
            endpoint,
            completion_window: '24h',
          })
        ).id,
      );
      expect(batch.request_counts, endpoint).toEqual({ total: 1, completed: 1, failed: 0 });
      const [result] = (await (await openai.files.content(batch.output_file_id!)).text())
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      check(result.response.body);
    }
  });

  it('refuses a file of the wrong purpose, and an output file as a batch input', async () => {
    await expect(
      openai.files.create({
        file: await toFile(Buffer.from('{}\n'), 'x.jsonl'),
        purpose: 'assistants',
      }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/'purpose'.*only 'batch'/),
    });
    const file = await upload([chatLine(0, 'sim/chat-standard')]);
    const batch = await finished(
      (
        await openai.batches.create({
          input_file_id: file.id,
          endpoint: '/v1/chat/completions',
          completion_window: '24h',
        })
      ).id,
    );
    await expect(
      openai.batches.create({
        input_file_id: batch.output_file_id!,
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
      }),
    ).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/purpose 'batch_output'/),
    });
    expect(await openai.files.delete(file.id)).toMatchObject({ id: file.id, deleted: true });
    await expect(openai.files.retrieve(file.id)).rejects.toMatchObject({ status: 404 });
  });
});

describe('the Anthropic batch shape, through @anthropic-ai/sdk', () => {
  it('runs a 100-request Message Batch and streams its results by custom_id', async () => {
    const created = await anthropic.messages.batches.create({
      requests: Array.from({ length: 100 }, (_, index) => ({
        custom_id: `req-${index}`,
        params: {
          model: index % 2 ? KIND_PROVIDERS.anthropic.model : 'sim/chat-standard:batch',
          max_tokens: 8,
          messages: [{ role: 'user' as const, content: `Summarise ${index}` }],
        },
      })),
    });
    expect(created).toMatchObject({ type: 'message_batch', processing_status: 'in_progress' });
    const ended = await eventually(async () => {
      const batch = await anthropic.messages.batches.retrieve(created.id);
      return batch.processing_status === 'ended' ? batch : undefined;
    }, 60_000);
    expect(ended.request_counts).toEqual({
      processing: 0,
      succeeded: 100,
      errored: 0,
      canceled: 0,
      expired: 0,
    });
    const seen: string[] = [];
    for await (const entry of await anthropic.messages.batches.results(created.id)) {
      expect(entry.result.type).toBe('succeeded');
      if (entry.result.type === 'succeeded') expect(entry.result.message.type).toBe('message');
      if (entry.result.type === 'succeeded' && entry.custom_id === 'req-1') {
        expect(entry.result.message.model).toBe(KIND_PROVIDERS.anthropic.model);
      }
      seen.push(entry.custom_id);
    }
    expect(seen).toEqual(Array.from({ length: 100 }, (_, index) => `req-${index}`));
    expect(await records(created.id)).toHaveLength(100);
  });
});

describe('money', () => {
  it('ends the lines past a budget as 402 errors, completes the batch, and spends within grace', async () => {
    const small = await gateway.createKey({ kind: 'account', limitUsd: 0.0004, graceUsd: 0.00005 });
    const client = new OpenAI({ apiKey: small.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const file = await client.files.create({
      file: await toFile(
        Buffer.from(Array.from({ length: 100 }, (_, index) => chatLine(index)).join('\n')),
        'input.jsonl',
      ),
      purpose: 'batch',
    });
    const created = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const batch = await eventually(async () => {
      const current = await client.batches.retrieve(created.id);
      return current.status === 'completed' ? current : undefined;
    }, 60_000);
    const { completed, failed } = batch.request_counts!;
    expect(completed).toBeGreaterThan(0);
    expect(failed).toBeGreaterThan(0);
    expect(completed + failed).toBe(100);
    const errors = (await (await client.files.content(batch.error_file_id!)).text())
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(new Set(errors.map((line) => line.response.status_code))).toEqual(new Set([402]));
    const charged = (
      await gateway.gateway.parts.store.listGenerations({ keyId: small.id, limit: 1_000 })
    ).map(({ row }) => row);
    expect(charged).toHaveLength(completed);
    const figures = (await gateway.gateway.parts.store.fundingFigures(small.id))!;
    const spent = figures.consumptionNanos + figures.pendingNanos;
    expect(spent).toBe(charged.reduce((total, row) => total + row.costNanos, 0));
    expect(spent).toBeLessThanOrEqual(figures.limitNanos + figures.graceNanos);
  });

  it('charges a cancelled batch only for the lines that ran', async () => {
    // The upstream holds its answers until the batch is cancelled: the lines running then end.
    const fake = upstreams.fakes['openai-compatible'];
    const answer = fake.fallback;
    let release = () => {};
    fake.fallback = { ...answer, holdUntil: new Promise<void>((resolve) => (release = resolve)) };
    const asked = fake.requests.length;
    const model = KIND_PROVIDERS['openai-compatible'].model;
    const file = await upload(Array.from({ length: 400 }, (_, index) => chatLine(index, model)));
    const created = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    await eventually(() => (fake.requests.length > asked ? true : undefined));
    const cancelling = await openai.batches.cancel(created.id);
    expect(cancelling.status).toBe('cancelling');
    fake.fallback = answer;
    release();
    const batch = await finished(created.id);
    expect(batch.status).toBe('cancelled');
    const { completed, failed, total } = batch.request_counts!;
    expect(total).toBe(400);
    expect(completed + failed).toBeLessThan(400);
    const charged = await records(created.id);
    expect(charged).toHaveLength(completed);
    expect(toNanos((batch as unknown as { cost_usd: number }).cost_usd)).toBe(
      charged.reduce((sum, { row }) => sum + row.costNanos, 0),
    );
  });
});

describe('events', () => {
  it("sends batch.completed and batch.failed to the account's endpoints, once each", async () => {
    const receiver = await startReceiver();
    try {
      const account = await gateway.createKey({ kind: 'account', limitUsd: 1 });
      const hook = await fetch(`${gateway.url}/v1/webhooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          url: `${receiver.url}/hook`,
          events: ['batch.completed', 'batch.failed'],
        }),
      });
      expect(hook.status).toBe(201);
      const client = new OpenAI({
        apiKey: account.key,
        baseURL: `${gateway.url}/v1`,
        maxRetries: 0,
      });
      const run = async (lines: string[]) => {
        const file = await client.files.create({
          file: await toFile(Buffer.from(lines.join('\n')), 'input.jsonl'),
          purpose: 'batch',
        });
        return (
          await client.batches.create({
            input_file_id: file.id,
            endpoint: '/v1/chat/completions',
            completion_window: '24h',
          })
        ).id;
      };
      const good = await run([chatLine(0), chatLine(1)]);
      const bad = await run([chatLine(0, 'nobody/nothing')]);
      const events = await eventually(() => {
        const bodies = receiver.received.map((request) => JSON.parse(request.body));
        return bodies.length >= 2 ? bodies : undefined;
      });
      const byBatch = Object.fromEntries(events.map((event) => [event.data.batch_id, event]));
      expect(events).toHaveLength(2);
      expect(byBatch[good]).toMatchObject({
        type: 'batch.completed',
        data: { status: 'completed', request_counts: { total: 2, succeeded: 2, errored: 0 } },
      });
      expect(byBatch[bad]).toMatchObject({
        type: 'batch.failed',
        data: { request_counts: { total: 1, succeeded: 0, errored: 1 }, cost_usd: 0 },
      });
    } finally {
      await receiver.close();
    }
  });
});
