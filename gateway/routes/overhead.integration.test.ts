/**
 * Every inference answer says the time the gateway itself added (`x-gateway-overhead-ms`), its
 * record keeps the whole figure, and the metrics count it; the time spent waiting on the upstream
 * is not part of it.
 */
import {
  gatewayOverheadHeader as OVERHEAD_HEADER,
  generationRecordSchema,
  type GenerationRecord,
} from '../../contract/gateway';
import {
  KIND_PROVIDERS,
  RECORDED_ANSWERS,
  startKindUpstreams,
  type KindUpstreams,
} from '../../testing/upstreams/kind-upstreams';
import {
  callForm,
  helloIn,
  PUBLIC_FORMS,
  readFormAnswer,
} from '../../testing/upstreams/public-forms';
import {
  eventually,
  getWithKey,
  postJson,
  startTestGateway,
  type TestGateway,
} from '../../testing/gateway-support';

let upstreams: KindUpstreams;
let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  upstreams = await startKindUpstreams({ includeSimulatedModels: true });
  gateway = await startTestGateway({ providers: upstreams.providers });
  key = (await gateway.createKey({ kind: 'account', limitUsd: 10 })).key;
});
afterAll(async () => {
  await gateway?.stop();
  await upstreams?.close();
});

/** Hundredths of a millisecond, as the header writes them. */
const MILLISECONDS = /^\d+\.\d{2}$/;

async function recordOf(response: Response): Promise<GenerationRecord> {
  const ray = response.headers.get('cf-ray')!;
  const found = await getWithKey(`${gateway.url}/v1/generation?id=${ray}`, key);
  expect(found.status).toBe(200);
  return generationRecordSchema.parse(await found.json());
}

describe('x-gateway-overhead-ms', () => {
  const cases = PUBLIC_FORMS.flatMap((form) => [
    [form, false],
    [form, true],
  ]) as Array<[(typeof PUBLIC_FORMS)[number], boolean]>;

  it.each(cases)(
    'is on the %s answer (streamed: %s), and the record has the whole figure',
    async (form, stream) => {
      const response = await callForm(form, gateway.url, key, 'sim/chat-standard', helloIn(form), {
        stream,
      });
      expect(response.status).toBe(200);
      const header = response.headers.get(OVERHEAD_HEADER);
      expect(header).toMatch(MILLISECONDS);
      await readFormAnswer(form, response, stream);
      const record = await recordOf(response);
      expect(record.overhead_ms).toEqual(expect.any(Number));
      expect(record.overhead_ms!).toBeLessThanOrEqual(record.latency_ms);
      // A stream's header is measured as it starts; the record, at its end.
      if (stream) expect(record.overhead_ms!).toBeGreaterThanOrEqual(Number(header));
    },
  );

  it('is on an embeddings answer and on an error answer of an inference route', async () => {
    const embedded = await postJson(
      `${gateway.url}/v1/embeddings`,
      { model: 'sim/embed-small', input: 'Hello' },
      { key },
    );
    expect(embedded.status).toBe(200);
    expect(embedded.headers.get(OVERHEAD_HEADER)).toMatch(MILLISECONDS);
    const refused = await postJson(
      `${gateway.url}/v1/chat/completions`,
      { model: 'sim/chat-standard' },
      { key },
    );
    expect(refused.status).toBe(400);
    expect(refused.headers.get(OVERHEAD_HEADER)).toMatch(MILLISECONDS);
  });

  it('leaves out the time the upstream takes to answer', async () => {
    const held = 200;
    let release!: () => void;
    const { model } = KIND_PROVIDERS['openai-compatible'];
    const fake = upstreams.fakes['openai-compatible'];
    const arrived = fake.requests.length;
    fake.reply({
      ...RECORDED_ANSWERS['openai-compatible'].text.stream.reply(),
      holdUntil: new Promise<void>((resolve) => (release = resolve)),
    });
    const answer = callForm(
      'chat_completions',
      gateway.url,
      key,
      model,
      helloIn('chat_completions'),
      {
        stream: true,
      },
    );
    // The upstream has the request, and answers only `held` milliseconds later.
    await eventually(() => expect(fake.requests.length).toBe(arrived + 1));
    await new Promise((resolve) => setTimeout(resolve, held));
    release();
    const response = await answer;
    await readFormAnswer('chat_completions', response, true);
    const record = await recordOf(response);
    expect(record.latency_ms - record.overhead_ms!).toBeGreaterThanOrEqual(held);
    expect(Number(response.headers.get(OVERHEAD_HEADER))).toBeLessThanOrEqual(record.overhead_ms!);
  });

  it('is counted in the gateway_overhead_seconds histogram, by form, beside spend and upstream time', async () => {
    const scrape = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(scrape).toMatch(/^gateway_spend_usd_total\{model="sim\/chat-standard"\} 0\.\d*[1-9]/m);
    expect(scrape).toMatch(
      /^gateway_upstream_attempt_duration_seconds_count\{provider="oai"\} [1-9]/m,
    );
    expect(scrape).toMatch(/^gateway_provider_breaker_open\{provider="oai"\} 0$/m);
    for (const form of PUBLIC_FORMS)
      expect(scrape).toMatch(
        new RegExp(`^gateway_overhead_seconds_count\\{form="${form}"\\} [1-9]`, 'm'),
      );
  });
});
