/**
 * Availability from real traffic, over real HTTP against fake upstreams on loopback: some attempts
 * fail (5xx, 429) and fall back, some succeed after a known delay; once the gateway adds its
 * collected minute into the store, the endpoints route shows each provider's uptime and medians,
 * and the stats route its buckets.
 */
import {
  modelEndpointListSchema,
  modelEndpointSchema,
  modelEndpointStatsSchema,
} from '../../contract/gateway';
import {
  startFakeUpstream,
  type FakeReply,
  type FakeUpstream,
} from '../../testing/upstreams/fake-upstream';
import {
  fixtureJson,
  providersFileFor,
  type UpstreamProviderSpec,
} from '../../testing/upstreams/upstream-kit';
import { startTestGateway, type TestGateway } from '../../testing/gateway-support';

const fakes: Record<string, FakeUpstream> = {};
let gateway: TestGateway;
let key: string;

/** Long enough that the gateway's own overhead stays inside the (150, 250] ms bucket. */
const UPSTREAM_DELAY_MS = 200;

const provider = (id: string, models: string[]): UpstreamProviderSpec => ({
  id,
  kind: 'openai-compatible',
  url: fakes[id]!.url,
  retry: { max_attempts: 1 },
  breaker: { failure_threshold: 1_000 },
  models: models.map((model) => ({
    id: model,
    upstreamModel: `${id}-upstream`,
    prompt: '0.000001',
    completion: '0.000002',
  })),
});

const text = (): FakeReply => ({
  body: fixtureJson('openai-compatible', 'openai-text-response.json'),
});
const delayed = (): FakeReply => ({
  ...text(),
  holdUntil: new Promise((resolve) => setTimeout(resolve, UPSTREAM_DELAY_MS)),
});
const failure = (status: number): FakeReply => ({
  status,
  body: { error: { message: `failed with ${status}`, type: 'server_error' } },
});

const ask = async (model: string) => {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 50 }),
  });
  await response.arrayBuffer();
  return response.status;
};

beforeAll(async () => {
  for (const id of ['flaky', 'steady']) fakes[id] = await startFakeUpstream();
  const setup = providersFileFor([
    provider('flaky', ['avail/model']),
    provider('steady', ['avail/model', 'avail/quiet']),
  ]);
  gateway = await startTestGateway({ providers: setup.providers, settleIntervalMs: 600_000 }, {});
  key = (await gateway.createKey({ kind: 'account', limitUsd: 10 })).key;
});
afterAll(async () => {
  await gateway?.stop();
  for (const fake of Object.values(fakes)) await fake.close();
});

describe('availability from real traffic', () => {
  it('shows uptime and medians per provider, and the buckets of the stats route', async () => {
    // flaky: a slow 503 and a 429 (each falls back to steady), then two answers after the delay.
    fakes.flaky!.reply({
      ...failure(503),
      holdUntil: new Promise((resolve) => setTimeout(resolve, 2 * UPSTREAM_DELAY_MS)),
    });
    fakes.steady!.reply(text());
    expect(await ask('avail/model')).toBe(200);
    fakes.flaky!.reply(failure(429));
    fakes.steady!.reply(text());
    expect(await ask('avail/model')).toBe(200);
    for (let index = 0; index < 2; index += 1) {
      fakes.flaky!.reply(delayed());
      expect(await ask('avail/model')).toBe(200);
    }
    // Collected in memory; the periodic flush (or this) adds it into the store.
    await gateway.gateway.parts.availability.flush();

    const listed = await fetch(`${gateway.url}/v1/models/avail/model/endpoints`);
    expect(listed.status).toBe(200);
    const list = modelEndpointListSchema.parse(await listed.json());
    const endpoints = list.data.map((entry) => modelEndpointSchema.parse(entry));
    const flaky = endpoints.find((entry) => entry.provider === 'flaky')!;
    const steady = endpoints.find((entry) => entry.provider === 'steady')!;
    expect(flaky.uptime_last_30m).toBe(0.5);
    expect(steady.uptime_last_30m).toBe(1);
    for (const median of [flaky.latency_ms_p50, flaky.ttft_ms_p50]) {
      expect(median).toBeGreaterThan(150);
      expect(median).toBeLessThanOrEqual(250);
    }
    // The time flaky lost before steady answered is not steady's.
    expect(steady.latency_ms_p50).toBeLessThanOrEqual(150);
    // Another model of the same provider has its own figures: none yet.
    const quiet = await (await fetch(`${gateway.url}/v1/models/avail/quiet/endpoints`)).json();
    expect(modelEndpointSchema.parse(modelEndpointListSchema.parse(quiet).data[0])).toMatchObject({
      provider: 'steady',
      uptime_last_30m: null,
      latency_ms_p50: null,
      ttft_ms_p50: null,
    });

    const day = await fetch(`${gateway.url}/v1/models/avail/model/endpoints/stats`);
    expect(day.status).toBe(200);
    const series = modelEndpointStatsSchema.parse(await day.json());
    expect(series).toMatchObject({ model: 'avail/model', window: '24h', bucket_seconds: 3_600 });
    expect(series.data.map((entry) => entry.provider)).toEqual(['flaky', 'steady']);
    const buckets = series.data[0]!.buckets;
    expect(buckets).toHaveLength(24);
    expect(buckets[1]!.start - buckets[0]!.start).toBe(3_600);
    // The requests may straddle an hour's end: the figures are summed over the buckets.
    const total = (pick: (bucket: (typeof buckets)[number]) => number) =>
      buckets.reduce((sum, bucket) => sum + pick(bucket), 0);
    expect(total((bucket) => bucket.requests)).toBe(4);
    expect(total((bucket) => bucket.successes)).toBe(2);
    expect(total((bucket) => bucket.failures.server_error)).toBe(1);
    expect(total((bucket) => bucket.failures.rate_limited)).toBe(1);
    expect(buckets[0]).toMatchObject({ requests: 0, uptime: null, latency_ms_p50: null });
    const busiest = buckets.reduce((best, bucket) =>
      bucket.requests > best.requests ? bucket : best,
    );
    expect(busiest.latency_ms_p50).toBeGreaterThan(150);

    const week = await fetch(`${gateway.url}/v1/models/avail/model/endpoints/stats?window=7d`);
    const weekly = modelEndpointStatsSchema.parse(await week.json());
    expect(weekly.bucket_seconds).toBe(6 * 3_600);
    expect(weekly.data[1]!.buckets).toHaveLength(28);
    expect(weekly.data[1]!.buckets.reduce((sum, bucket) => sum + bucket.successes, 0)).toBe(2);

    const refused = await fetch(`${gateway.url}/v1/models/avail/model/endpoints/stats?window=1y`);
    expect(refused.status).toBe(400);
  });
});
