/**
 * Traces reach a real OTLP/HTTP receiver on loopback, sent by the SDK's own exporter: one span per
 * inference request, a child of the client's `traceparent`, with admission, the upstream attempt
 * and the record write under it; the upstream gets a `traceparent` of the same trace. A collector
 * that never answers costs requests nothing: the spans it cannot take are dropped and counted.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TracingConfig } from '../config';
import {
  KIND_PROVIDERS,
  RECORDED_ANSWERS,
  startKindUpstreams,
  type KindUpstreams,
} from '../../testing/upstreams/kind-upstreams';
import { callForm, helloIn, readFormAnswer } from '../../testing/upstreams/public-forms';
import { eventually, startTestGateway, type TestGateway } from '../../testing/gateway-support';

type OtlpValue = {
  stringValue?: string;
  intValue?: string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values: OtlpValue[] };
};
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Array<{ key: string; value: OtlpValue }>;
};

/** A collector on loopback: keeps every span posted to /v1/traces (OTLP/HTTP JSON), or hangs. */
async function startReceiver(options: { hang?: boolean } = {}) {
  const spans: OtlpSpan[] = [];
  const bodies: string[] = [];
  /** Each span's `service.instance.id`, by span id. */
  const instanceOf = new Map<string, string>();
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (options.hang) return; // never answers
    const text = Buffer.concat(chunks).toString('utf8');
    bodies.push(text);
    const body = JSON.parse(text) as {
      resourceSpans: Array<{
        resource: Pick<OtlpSpan, 'attributes'>;
        scopeSpans: Array<{ spans: OtlpSpan[] }>;
      }>;
    };
    for (const resource of body.resourceSpans) {
      const instance = valueOf(resource.resource, 'service.instance.id');
      for (const scope of resource.scopeSpans) {
        spans.push(...scope.spans);
        for (const span of scope.spans) instanceOf.set(span.spanId, String(instance));
      }
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    spans,
    bodies,
    instanceOf,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const tracingTo = (url: string, more: Partial<TracingConfig> = {}): TracingConfig => ({
  url,
  headers: {},
  serviceName: 'gateway-under-test',
  sampler: 'parentbased_always_on',
  samplerRatio: 1,
  maxQueueSize: 2_048,
  scheduledDelayMs: 20,
  exportTimeoutMs: 2_000,
  captureContent: false,
  ...more,
});

const valueOf = (span: Pick<OtlpSpan, 'attributes'>, key: string) => {
  const value = span.attributes.find((attribute) => attribute.key === key)?.value;
  if (!value) return undefined;
  if (value.arrayValue) return value.arrayValue.values.map((inner) => inner.stringValue);
  return (
    value.stringValue ??
    (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
    value.doubleValue ??
    value.boolValue
  );
};

const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';

describe('traces over OTLP', () => {
  let upstreams: KindUpstreams;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let gateway: TestGateway;
  let key: string;

  beforeAll(async () => {
    upstreams = await startKindUpstreams();
    receiver = await startReceiver();
    gateway = await startTestGateway({
      providers: upstreams.providers,
      tracing: tracingTo(receiver.url),
    });
    key = (await gateway.createKey({ kind: 'account', limitUsd: 10 })).key;
  });
  afterAll(async () => {
    await gateway?.stop();
    await receiver?.close();
    await upstreams?.close();
  });

  it('sends a streamed request as a span under the client’s, with its children and the GenAI attributes', async () => {
    const kind = 'openai-compatible';
    const fake = upstreams.fakes[kind];
    fake.reply(RECORDED_ANSWERS[kind].text.stream.reply());
    const response = await callForm(
      'chat_completions',
      gateway.url,
      key,
      KIND_PROVIDERS[kind].model,
      helloIn('chat_completions'),
      {
        stream: true,
        headers: {
          traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`,
          'x-claude-code-session-id': 'ses-traced',
        },
      },
    );
    await readFormAnswer('chat_completions', response, true);
    const ray = response.headers.get('cf-ray')!;

    const requestSpan = await eventually(() => {
      const found = receiver.spans.find((span) => valueOf(span, 'gateway.cf_ray') === ray);
      expect(found).toBeDefined();
      return found!;
    });
    expect(requestSpan.traceId).toBe(CLIENT_TRACE);
    expect(requestSpan.parentSpanId).toBe(CLIENT_SPAN);
    expect(requestSpan.name).toBe(`chat ${KIND_PROVIDERS[kind].model}`);
    expect(valueOf(requestSpan, 'gen_ai.operation.name')).toBe('chat');
    expect(valueOf(requestSpan, 'gen_ai.provider.name')).toBe('openai');
    expect(valueOf(requestSpan, 'gen_ai.request.model')).toBe(KIND_PROVIDERS[kind].model);
    expect(valueOf(requestSpan, 'gen_ai.response.model')).toBe(KIND_PROVIDERS[kind].upstreamModel);
    expect(valueOf(requestSpan, 'gen_ai.request.max_tokens')).toBe(100);
    expect(valueOf(requestSpan, 'gen_ai.usage.input_tokens')).toBe(
      RECORDED_ANSWERS[kind].text.stream.usage.prompt,
    );
    expect(valueOf(requestSpan, 'gen_ai.usage.output_tokens')).toBe(
      RECORDED_ANSWERS[kind].text.stream.usage.completion,
    );
    expect(valueOf(requestSpan, 'gen_ai.response.finish_reasons')).toEqual(['stop']);
    expect(valueOf(requestSpan, 'gen_ai.conversation.id')).toBe('ses-traced');
    expect(valueOf(requestSpan, 'gateway.cost_usd')).toBeGreaterThan(0);
    expect(valueOf(requestSpan, 'gateway.outcome')).toBe('completed');
    expect(valueOf(requestSpan, 'gateway.form')).toBe('chat_completions');

    const children = await eventually(() => {
      const under = receiver.spans.filter((span) => span.parentSpanId === requestSpan.spanId);
      expect(under.map((span) => span.name).sort()).toEqual([
        'gateway.admission',
        'gateway.record_write',
        'gateway.upstream_attempt',
      ]);
      return under;
    });
    const attempt = children.find((span) => span.name === 'gateway.upstream_attempt')!;
    expect(valueOf(attempt, 'http.response.status_code')).toBe(200);
    // The upstream was called with the attempt's traceparent: one trace from client to upstream.
    expect(fake.requests.at(-1)!.headers.traceparent).toBe(
      `00-${CLIENT_TRACE}-${attempt.spanId}-01`,
    );

    // Neither the conversation nor the key leaves the gateway.
    const exported = receiver.bodies.join('\n');
    expect(exported).not.toContain('Hello');
    expect(exported).not.toContain(key);
  });
});

describe('over two instances', () => {
  it('receives the spans of each instance, each under its own service instance', async () => {
    const receiver = await startReceiver();
    const instances = [
      await startTestGateway({ tracing: tracingTo(receiver.url) }),
      await startTestGateway({ tracing: tracingTo(receiver.url) }),
    ];
    try {
      const rays: string[] = [];
      for (const instance of instances) {
        const { key } = await instance.createKey({ kind: 'account', limitUsd: 1 });
        const response = await callForm(
          'messages',
          instance.url,
          key,
          'sim/chat-standard',
          helloIn('messages'),
        );
        await response.text();
        rays.push(response.headers.get('cf-ray')!);
      }
      const requestSpans = await eventually(() => {
        const found = rays.map((ray) =>
          receiver.spans.find((span) => valueOf(span, 'gateway.cf_ray') === ray),
        );
        expect(found.every(Boolean)).toBe(true);
        return found as OtlpSpan[];
      });
      const [first, second] = requestSpans.map((span) => receiver.instanceOf.get(span.spanId));
      expect(first).toBe(instances[0]!.gateway.parts.instanceId);
      expect(second).toBe(instances[1]!.gateway.parts.instanceId);
      expect(first).not.toBe(second);
    } finally {
      for (const instance of instances) await instance.stop();
      await receiver.close();
    }
  });
});

describe('with a collector that never answers', () => {
  it('answers every request and counts the spans it drops', async () => {
    const receiver = await startReceiver({ hang: true });
    const gateway = await startTestGateway({
      tracing: tracingTo(receiver.url, { maxQueueSize: 2, exportTimeoutMs: 1_000 }),
    });
    try {
      const { key } = await gateway.createKey({ kind: 'account', limitUsd: 10 });
      for (let index = 0; index < 6; index += 1) {
        const response = await callForm(
          'chat_completions',
          gateway.url,
          key,
          'sim/chat-standard',
          helloIn('chat_completions'),
        );
        expect(response.status).toBe(200);
        await response.text();
      }
      const scrape = await (await fetch(`${gateway.url}/metrics`)).text();
      expect(scrape).toMatch(/^gateway_trace_spans_dropped_total\{reason="queue_full"\} [1-9]/m);
    } finally {
      await receiver.close();
      await gateway.stop();
    }
  });
});
