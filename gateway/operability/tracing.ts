/**
 * Traces over OTLP with the OpenTelemetry SDK, in the GenAI semantic conventions (docs/operations.md
 * names the version followed). One span per inference request, continuing the caller's
 * `traceparent`; child spans for admission, each upstream attempt and the record write; the
 * upstream call carries `traceparent` on. Export is batched with a bounded queue: a slow or absent
 * collector drops spans (counted in `gateway_trace_spans_dropped_total`), never slows a request.
 */
import {
  context,
  createNoopMeter,
  INVALID_SPAN_CONTEXT,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Meter,
  type MeterProvider,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { TracingConfig } from '../config';
import type { GenerationRow } from '../store/store';

/** The SDK's own count of spans it processed; those with `error.type` were lost. */
const PROCESSED_SPANS = 'otel.sdk.processor.span.processed';

const propagator = new W3CTraceContextPropagator();
const headerGetter = {
  keys: (carrier: IncomingHttpHeaders) => Object.keys(carrier),
  get: (carrier: IncomingHttpHeaders, key: string) => carrier[key],
};

let contextManagerSet = false;
/** Async context, so a child span finds its parent across awaits; one per process. */
function useAsyncContext(): void {
  if (contextManagerSet) return;
  contextManagerSet = context.setGlobalContextManager(
    new AsyncLocalStorageContextManager().enable(),
  );
}

function samplerOf(config: TracingConfig): Sampler {
  const ratio = new TraceIdRatioBasedSampler(config.samplerRatio);
  switch (config.sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
  }
}

/**
 * The batch processor's self-observability, as a meter that only listens for lost spans: the
 * queue full, or an export that failed or timed out.
 */
function droppedSpansMeter(onDropped: (reason: string, count: number) => void): MeterProvider {
  const noop = createNoopMeter();
  const meter: Meter = Object.assign(Object.create(noop) as Meter, {
    createCounter: (name: string, options?: object) =>
      name === PROCESSED_SPANS
        ? {
            add: (count: number, attributes?: Attributes) => {
              const reason = attributes?.['error.type'];
              if (reason !== undefined) onDropped(String(reason), count);
            },
          }
        : noop.createCounter(name, options),
  });
  return { getMeter: () => meter };
}

export type Tracing = {
  readonly tracer: Tracer;
  /** What the content opt-in says (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT). */
  readonly captureContent: boolean;
  /** The context of the caller's `traceparent`, or the root. */
  incoming(headers: IncomingHttpHeaders): Context;
  /** Sends what is queued, then stops. */
  shutdown(): Promise<void>;
};

/** The span of work when tracing is off: records nothing. */
const OFF_SPAN = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** No tracing: a tracer that records nothing, so call sites need no branch. */
export const tracingOff: Tracing = {
  tracer: trace.getTracer('off'),
  captureContent: false,
  incoming: () => ROOT_CONTEXT,
  shutdown: async () => undefined,
};

export function createTracing(
  config: TracingConfig | null,
  /** This instance among those sharing a store: its spans' `service.instance.id`. */
  instanceId: string,
  onDropped: (reason: string, count: number) => void,
): Tracing {
  if (config === null) return tracingOff;
  useAsyncContext();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      'service.name': config.serviceName,
      'service.instance.id': instanceId,
    }),
    sampler: samplerOf(config),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({
          url: config.url,
          headers: config.headers,
          timeoutMillis: config.exportTimeoutMs,
        }),
        maxQueueSize: config.maxQueueSize,
        maxExportBatchSize: Math.min(512, config.maxQueueSize),
        scheduledDelayMillis: config.scheduledDelayMs,
        exportTimeoutMillis: config.exportTimeoutMs,
        selfObsMeterProvider: droppedSpansMeter(onDropped),
      }),
    ],
  });
  return {
    tracer: provider.getTracer('model-gateway'),
    captureContent: config.captureContent,
    incoming: (headers) => propagator.extract(ROOT_CONTEXT, headers, headerGetter),
    shutdown: () => provider.shutdown().catch(() => undefined),
  };
}

/** Adds the active span's `traceparent` to an outgoing request's headers (none without one). */
export function injectTraceparent(headers: Record<string, string>): void {
  propagator.inject(context.active(), headers, {
    set: (carrier, key, value) => (carrier[key] = value),
  });
}

/**
 * Runs `work` in a child span of the active one, ending it however `work` ends; a throw marks the
 * span as an error (its message only: never a request's content).
 */
export async function inSpan<T>(
  tracer: Tracer,
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  if (tracer === tracingOff.tracer) return work(OFF_SPAN);
  return tracer.startActiveSpan(name, { kind: SpanKind.INTERNAL, attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({
        code: SpanStatusCode.ERROR,
        message: error instanceof Error ? error.message : 'failed',
      });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * `gen_ai.provider.name` of a provider kind, as the conventions name the well-known ones.
 * @see https://opentelemetry.io/docs/specs/semconv/registry/attributes/gen-ai/
 */
function genAiProviderName(kind: string, providerId: string): string {
  switch (kind) {
    case 'openai-compatible':
      return 'openai';
    case 'anthropic':
      return 'anthropic';
    case 'gemini':
      return 'gcp.gemini';
    default:
      return providerId;
  }
}

/** What the request's record says, on its span: the answer's model, usage, cost and outcome. */
export function describeRecord(
  span: Span | undefined,
  row: GenerationRow,
  upstreamModel: string,
  providerKind: string,
): void {
  if (!span?.isRecording()) return;
  span.setAttributes({
    'gen_ai.provider.name': genAiProviderName(providerKind, row.provider),
    'gen_ai.response.model': upstreamModel,
    'gen_ai.usage.input_tokens': row.promptTokens,
    'gen_ai.usage.output_tokens': row.completionTokens,
    'gen_ai.usage.cache_read.input_tokens': row.cacheReadTokens ?? 0,
    'gen_ai.usage.cache_creation.input_tokens': row.cacheWriteTokens ?? 0,
    ...(row.finishReason !== null && { 'gen_ai.response.finish_reasons': [row.finishReason] }),
    'gateway.provider': row.provider,
    'gateway.model': row.model,
    'gateway.cost_usd': row.costNanos / 1e9,
    'gateway.outcome': row.outcome,
    ...(row.overheadMs != null && { 'gateway.overhead_ms': row.overheadMs }),
  });
}

/**
 * Runs an inference request in its span: a child of the caller's `traceparent`, named and
 * attributed as the GenAI conventions have it once the request is read (`describeRequest`),
 * ended when the response closes.
 */
export function inRequestSpan<T>(
  tracing: Tracing,
  http: { request: IncomingMessage; response: ServerResponse; traceId: string },
  operation: string,
  work: () => Promise<T>,
): Promise<T> {
  // Off: not a context switch or a listener more per request.
  if (tracing === tracingOff) return work();
  const parent = tracing.incoming(http.request.headers);
  const span = tracing.tracer.startSpan(
    operation,
    {
      kind: SpanKind.SERVER,
      attributes: { 'gen_ai.operation.name': operation, 'gateway.cf_ray': http.traceId },
    },
    parent,
  );
  http.response.on('close', () => {
    const status = http.response.statusCode;
    span.setAttribute('http.response.status_code', status);
    if (status >= 500 || !http.response.writableFinished)
      span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  return context.with(trace.setSpan(parent, span), work);
}

/** The request as read, on the active request span; its content only when opted in. */
export function describeRequest(
  tracing: Tracing,
  request: {
    model: string;
    maxTokens: number | null;
    stream: boolean;
    messages: unknown;
    form: string;
    keyId: string;
    sessionId: string | null;
  },
): void {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return;
  span.updateName(`chat ${request.model}`);
  span.setAttributes({
    'gen_ai.request.model': request.model,
    'gen_ai.request.stream': request.stream,
    ...(request.maxTokens !== null && { 'gen_ai.request.max_tokens': request.maxTokens }),
    ...(request.sessionId !== null && { 'gen_ai.conversation.id': request.sessionId }),
    'gateway.form': request.form,
    // The key's id, never the key.
    'gateway.key_id': request.keyId,
    ...(tracing.captureContent && { 'gen_ai.input.messages': JSON.stringify(request.messages) }),
  });
}
