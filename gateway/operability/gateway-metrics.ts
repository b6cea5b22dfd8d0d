/**
 * The gateway's Prometheus metrics, in a registry of its own: tests run several gateways in one
 * process, and the global default registry would mix (or refuse) their series. Every label value
 * comes from a fixed set (labels.ts) or the operator's providers file, so nothing a client sends,
 * such as a key in a path, can reach the scrape.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { isClusterWorker, joinClusterMetrics } from './cluster-metrics';
import {
  attemptOutcomeOf,
  formOf,
  type AttemptOutcome,
  type FormLabel,
  type RouteName,
} from './labels';

/** What the metrics read from the pipeline when scraped. */
export type PipelineSources = {
  /** Reservations of requests admitted and not yet finished, in this process. */
  reservationsHeld: () => number;
  /** Each provider of the providers file, and whether its breaker is open (cooling down). */
  breakers?: () => Array<{ provider: string; open: boolean }>;
};

/** What the metrics read from the rest of the gateway when scraped. */
export type MetricSources = Partial<PipelineSources> & {
  /** Unix milliseconds, for the settlement lag's start before the first settlement. */
  now?: () => number;
  /**
   * Scrapes show every worker of `serve --workers` together, gathered by the primary
   * (cluster-metrics.ts). Default: when this process is such a worker.
   */
  clusterWide?: boolean;
};

/** One finished (or abandoned) request, as the requests counter sees it. */
export type ObservedRequest = {
  /** The route that served it (labels.ts's `routeLabeller`), `other` if none did. */
  route: RouteName;
  status: number;
  /** The client left before the answer ended. */
  clientLeft: boolean;
  seconds: number;
};

/** Prefix of prom-client's process metrics (RSS, event-loop lag, heap, GC). */
export const PROCESS_METRICS_PREFIX = 'gateway_';

// Inference requests run from milliseconds (a refusal) to minutes (a long stream).
const DURATION_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
];
// One provider attempt, to its answer's beginning or its failure: milliseconds to minutes.
const ATTEMPT_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
// The gateway's own time per request: tenths of a millisecond when all is well, more under load.
const OVERHEAD_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1,
];

export class GatewayMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'route' | 'status' | 'form'>;
  private readonly durations: Histogram<'route' | 'form'>;
  private readonly attempts: Counter<'provider' | 'outcome'>;
  private readonly overheads: Histogram<'form'>;
  private readonly droppedSpans: Counter<'reason'>;
  private readonly attemptDurations: Histogram<'provider'>;
  private readonly spend: Counter<'model'>;
  private readonly now: () => number;
  private lastSettledAt: number;
  private readonly clusterText: (() => Promise<string>) | null;
  private pipeline: PipelineSources;

  constructor(sources: MetricSources) {
    this.pipeline = { ...sources, reservationsHeld: sources.reservationsHeld ?? (() => 0) };
    const read = () => this.pipeline;
    this.now = sources.now ?? Date.now;
    // Until the first settlement, the lag counts from start-up: a loop that never succeeds shows.
    this.lastSettledAt = this.now();
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'gateway_requests_total',
      help: 'HTTP requests answered, by route family, status (499: the client left first) and public form.',
      labelNames: ['route', 'status', 'form'],
      registers,
    });
    this.durations = new Histogram({
      name: 'gateway_request_duration_seconds',
      help: 'Time from a request arriving to its answer ending (or the client leaving), by route family and form.',
      labelNames: ['route', 'form'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.attempts = new Counter({
      name: 'gateway_upstream_attempts_total',
      help: 'Provider attempts before an answer started, by provider and outcome (HTTP status class or failure kind).',
      labelNames: ['provider', 'outcome'],
      registers,
    });
    this.overheads = new Histogram({
      name: 'gateway_overhead_seconds',
      help: "The time the gateway itself added to each inference request (its generation record's overhead_ms), by form.",
      labelNames: ['form'],
      buckets: OVERHEAD_BUCKETS,
      registers,
    });
    this.droppedSpans = new Counter({
      name: 'gateway_trace_spans_dropped_total',
      help: 'Trace spans lost before reaching the collector, by reason (queue_full: the export queue was full; otherwise why the export failed).',
      labelNames: ['reason'],
      registers,
    });
    this.attemptDurations = new Histogram({
      name: 'gateway_upstream_attempt_duration_seconds',
      help: "Provider attempts' time to their answer's beginning (or to their failure), by provider.",
      labelNames: ['provider'],
      buckets: ATTEMPT_BUCKETS,
      registers,
    });
    this.spend = new Counter({
      name: 'gateway_spend_usd_total',
      help: 'USD charged to keys, by the model that answered (summed from generation records).',
      labelNames: ['model'],
      registers,
    });
    new Gauge({
      name: 'gateway_provider_breaker_open',
      help: "1 while a provider's breaker is open (it is cooling down after repeated failures), else 0; over workers, the highest.",
      labelNames: ['provider'],
      registers,
      aggregator: 'max',
      collect() {
        for (const { provider, open } of read().breakers?.() ?? [])
          this.set({ provider }, open ? 1 : 0);
      },
    });
    new Gauge({
      name: 'gateway_reservations_held',
      help: 'Budget reservations held by running requests in this process (over workers, in all of them).',
      registers,
      collect() {
        this.set(read().reservationsHeld());
      },
    });
    const settlementLag = () => Math.max(0, (this.now() - this.lastSettledAt) / 1000);
    new Gauge({
      name: 'gateway_settlement_lag_seconds',
      help: "Seconds since this process's settlement loop last succeeded (since start-up before the first); over workers, the longest.",
      registers,
      aggregator: 'max',
      collect() {
        this.set(settlementLag());
      },
    });
    collectDefaultMetrics({ register: this.registry, prefix: PROCESS_METRICS_PREFIX });
    this.clusterText =
      (sources.clusterWide ?? isClusterWorker()) ? joinClusterMetrics(this.registry) : null;
  }

  /**
   * Reads the pipeline's figures from `sources` from now on. The metrics are made before the
   * pipeline (tracing counts its dropped spans in them), so the pipeline's part gives them here.
   */
  readFrom(sources: PipelineSources): void {
    this.pipeline = sources;
  }

  observeRequest(request: ObservedRequest): void {
    const { route } = request;
    const form: FormLabel = formOf(route);
    const status = request.clientLeft ? '499' : String(request.status);
    this.requests.inc({ route, status, form });
    this.durations.observe({ route, form }, request.seconds);
  }

  /** One provider attempt, with its status as the generation record keeps it. */
  countAttempt(attempt: { provider: string; status: number | string; latencyMs: number }): void {
    const outcome: AttemptOutcome = attemptOutcomeOf(attempt.status);
    this.attempts.inc({ provider: attempt.provider, outcome });
    // A provider skipped while cooling down was not called.
    if (attempt.status !== 'cooling_down')
      this.attemptDurations.observe({ provider: attempt.provider }, attempt.latencyMs / 1000);
  }

  /** One generation record's charge; `model` is a catalog id (the operator's set). */
  countSpend(model: string, usd: number): void {
    if (usd > 0) this.spend.inc({ model }, usd);
  }

  /** One generation record's overhead; `form` is the record's (a fixed set of names). */
  observeOverhead(form: string, milliseconds: number): void {
    this.overheads.observe({ form }, milliseconds / 1000);
  }

  /** Trace spans the exporter lost; `reason` comes from the SDK (`queue_full`, an error name). */
  countDroppedSpans(reason: string, count: number): void {
    this.droppedSpans.inc({ reason: reason.slice(0, 64) }, count);
  }

  /** The settlement loop finished a pass without error. */
  noteSettlement(): void {
    this.lastSettledAt = this.now();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The scrape, in Prometheus text format: of every worker together, under `--workers`. */
  text(): Promise<string> {
    return this.clusterText ? this.clusterText() : this.registry.metrics();
  }
}
