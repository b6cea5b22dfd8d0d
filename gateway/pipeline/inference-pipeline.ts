/**
 * The one road every inference request takes, whatever its public form, as three steps an
 * operation runs: admission (admission.ts: key state, limits, reservation), routing (routing.ts:
 * the first provider of the model that answers, retrying and falling back only before the first
 * event reaches the client) and metering (metering.ts: the generation record, written before the
 * last event goes out). This file streams a chat answer between them (`start`), and runs an
 * embeddings request through them whole (`embed`). What the request holds
 * (slot, rate-limit tokens, reservation, lease) is in its `RequestHolds`, given back once however
 * the request ends: finished, failed, or left.
 */
import type { Logger } from 'pino';
import { HONOURED_MAX_PRICES, HONOURED_PROVIDER_OPTIONS } from '../../contract/routing';
import type { Budget, Reservation } from '../billing/budget';
import type { GenerationWriter } from '../billing/generation-writer';
import type { InflightRows } from '../billing/inflight-rows';
import { nanosToUsd } from '../shared/money';
import type { Catalog, CatalogModel } from '../catalog/catalog';
import type { RoutingNames } from '../catalog/routing-names';
import type {
  CanonicalEmbeddingRequest,
  CanonicalEvent,
  CanonicalRequest,
  PipelineEvent,
  PublicFormName,
  RecordedFormName,
  RequestRouting,
  TranslationReport,
} from '../canonical/model';
import { reportOrNull } from '../canonical/translation';
import { GatewayError, invalidRequest } from '../errors';
import type { RequestTiming } from '../shared/request-timing';
import type { Tracer } from '@opentelemetry/api';
import { inSpan, tracingOff } from '../operability/tracing';
import type { KeyRegistry } from '../keys/key-registry';
import type { ModelRoute } from '../providers/provider';
import { UpstreamError } from '../providers/upstream-error';
import type { GenerationAttempt, GenerationRow, KeyRow } from '../store/store';
import { admit, type Admission } from './admission';
import { Metering, type Connected } from './metering';
import { chatOperation, embeddingsOperation, type Operation } from './operation';
import { ReasoningMemory } from './reasoning-memory';
import type { BudgetPeriods } from '../keys/calendar-clock';
import { RequestHolds } from './request-holds';
import { leaseLostError, routeRequest, type ProviderEntry } from './routing';
import { applyPreset } from './presets';
import type { SpeedsOf } from './route-plan';
import { countsAgainstProvider, toClientError } from './upstream-failure';

export type { ProviderEntry } from './routing';

export type InferenceInput = {
  key: KeyRow;
  request: CanonicalRequest;
  form: PublicFormName;
  traceId: string;
  /** Aborts the provider call: the client left or stopped. */
  signal: AbortSignal;
  /** When the request arrived and the waits on the provider: the record's latency and overhead. */
  timing: RequestTiming;
  /** The agent session the client named (http/session-id.ts); absent: none. */
  sessionId?: string | null;
  /** The batch the request is a line of (batches/); absent: an interactive request. */
  batchId?: string | null;
  /**
   * What the request holds (the route's slot and rate limits); the pipeline adds the reservation
   * and the lease, and ends it once the request has ended, also when `start` throws. Absent: the
   * request holds nothing of the route's.
   */
  holds?: RequestHolds;
  /** The client's form's rule over the answer, when that form cannot carry every answer. */
  answerCheck?: AnswerCheck;
};

/**
 * Sees each event of the answer before it goes out, and returns the error that refuses the answer
 * once an event breaks the client's form's rule (a tool call whose arguments the Messages or Gemini
 * form cannot carry), else null. One per request: it may hold state from event to event.
 */
export type AnswerCheck = (event: CanonicalEvent) => GatewayError | null;

export type InferenceRun = {
  /** The model that answers: the request's, a fallback, or an alias's or preset's member. */
  model: CatalogModel;
  /** The provider route that is answering. */
  route: ModelRoute;
  /** The gateway's prompt count, for forms that announce it before the answer (Messages). */
  promptTokens: number;
  /** Every attempt made before this answer started, the answering one last. */
  attempts: GenerationAttempt[];
  /** What was dropped or changed to reach the answering provider; null when nothing. */
  translation: TranslationReport | null;
  /** Must be consumed to its end or `return()`ed: its `finally` releases the reservation. */
  events: AsyncGenerator<PipelineEvent, void, undefined>;
};

/** An embeddings request, as the embeddings route hands it over. */
export type EmbeddingInput = {
  key: KeyRow;
  request: CanonicalEmbeddingRequest;
  form: RecordedFormName;
  traceId: string;
  /** Aborts the provider call: the client left. */
  signal: AbortSignal;
  /** When the request arrived and the waits on the provider: the record's latency and overhead. */
  timing: RequestTiming;
  /** The agent session the client named (http/session-id.ts); absent: none. */
  sessionId?: string | null;
  /** The batch the request is a line of (batches/); absent: an interactive request. */
  batchId?: string | null;
  /** As for chat (`InferenceInput.holds`): ended once the request has ended, also on a throw. */
  holds?: RequestHolds;
};

export type EmbeddingRun = {
  model: CatalogModel;
  route: ModelRoute;
  attempts: GenerationAttempt[];
  /** One vector per input, in order. */
  vectors: number[][];
  /** The prompt tokens charged. */
  promptTokens: number;
  costUsd: number;
};

/** A chat request as the pipeline runs it: its holds always there. */
type ChatInput = InferenceInput & { holds: RequestHolds; streamed: boolean };

export class InferencePipeline {
  private readonly metering: Metering;

  constructor(
    private readonly deps: {
      catalog: Catalog;
      registry: KeyRegistry;
      /** Where admission reserves: in memory, in the store, or in Redis. */
      budget: Budget;
      /** This process's in-flight rows: checkpointed usage of running requests. */
      rows: InflightRows;
      /** Writes generation records in group commits. */
      writer: GenerationWriter;
      providers: Map<string, ProviderEntry>;
      logger: Logger;
      /** Test hook: how the pipeline waits between attempts. */
      sleep?: (milliseconds: number, signal: AbortSignal) => Promise<void>;
      /** Sees every provider attempt as it is recorded, with the model asked for. */
      onAttempt?: (attempt: GenerationAttempt, model: string) => void;
      /** Sees every generation record once written (provider availability). */
      onRecorded?: (record: GenerationRow, generationMs: number | null) => void;
      /** The reasoning before each tool call, for clients that do not send it back. */
      reasoningMemory?: ReasoningMemory;
      /** Budget periods; without, the system clock and no key's period moves on. */
      periods?: BudgetPeriods;
      /** Aliases and presets; absent: catalog ids only. */
      names?: RoutingNames;
      /** Providers' recent latency and throughput, for `sort`. */
      speeds?: SpeedsOf;
      /** Spans of admission, attempts and the record write (operability/tracing.ts). */
      tracer?: Tracer;
    },
  ) {
    this.metering = new Metering(deps);
    this.reasoningMemory = deps.reasoningMemory ?? new ReasoningMemory();
  }

  private readonly reasoningMemory: ReasoningMemory;

  private get tracer(): Tracer {
    return this.deps.tracer ?? tracingOff.tracer;
  }

  /** Requests admitted and not yet finished (recorded and released), over all keys. */
  private inFlight = 0;
  /** Their reservations, whose leases are renewed while they run. */
  private readonly running = new Set<Reservation>();

  runningReservations(): Reservation[] {
    return [...this.running].filter((reservation) => !reservation.released);
  }
  private idleWaiters: Array<() => void> = [];

  /** Admitted requests that have not finished yet. */
  get admitted(): number {
    return this.inFlight;
  }

  /**
   * Resolves once every admitted request has finished: its record written and its reservation
   * released. Shutdown waits for it, so a stream cut at shutdown is still charged.
   */
  whenIdle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  providerKind(providerId: string) {
    return this.deps.providers.get(providerId)?.provider.kind ?? null;
  }

  /** Each provider's breaker state, for the endpoints route. */
  providerStatus(providerId: string) {
    return this.deps.providers.get(providerId)?.breaker.status() ?? null;
  }

  /**
   * Admits the request: on success it counts as running until its holds end, and its
   * reservation's lease is renewed meanwhile. On failure the holds end at once.
   */
  private async admitAndHold<Request>(
    input: { key: KeyRow; form: RecordedFormName; traceId: string; holds: RequestHolds },
    asked: { model: string; routing?: RequestRouting },
    streamed: boolean,
    operation: Operation<Request>,
    request: Request,
  ): Promise<Admission> {
    let admission: Admission;
    try {
      admission = await inSpan(this.tracer, 'gateway.admission', {}, async (span) => {
        const admitted = await admit(
          this.deps,
          { ...input, ...asked, streamed },
          operation,
          request,
        );
        span.setAttribute('gateway.reservation_usd', nanosToUsd(admitted.reservation.nanos));
        return admitted;
      });
    } catch (error) {
      input.holds.end();
      throw error;
    }
    this.inFlight += 1;
    this.running.add(admission.reservation);
    this.deps.rows.onLeaseLost(input.traceId, () => admission.leaseLost.abort());
    input.holds.holdLease(() => {
      this.running.delete(admission.reservation);
      this.deps.rows.untrack(input.traceId);
    });
    input.holds.onEnd(() => {
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    });
    return admission;
  }

  /** Routing for an admitted request: stopped by the client leaving or by the lease's fence. */
  private route<Request, Answer>(
    input: { traceId: string; signal: AbortSignal; timing: RequestTiming },
    admission: Admission,
    operation: Operation<Request, Answer>,
    request: Request,
  ) {
    return routeRequest(
      this.deps,
      {
        plan: admission.plan,
        traceId: input.traceId,
        signal: input.signal,
        timing: input.timing,
        leaseLost: admission.leaseLost.signal,
        leaseHeld: () => this.metering.leaseHeld(input.traceId, admission),
      },
      operation,
      request,
    );
  }

  /**
   * Embeds the inputs: admission, routing and metering with the embeddings operation. The
   * answer is whole, so the request has ended, recorded and released, when this resolves or
   * throws; nothing is charged for a request that failed.
   */
  async embed(embeddingInput: EmbeddingInput): Promise<EmbeddingRun> {
    const holds =
      embeddingInput.holds ?? new RequestHolds(embeddingInput.traceId, this.deps.logger);
    const input = { ...embeddingInput, holds, streamed: false };
    const { request } = input;
    const admission = await this.admitAndHold(
      input,
      { model: request.model },
      false,
      embeddingsOperation,
      request,
    );
    try {
      const routed = await this.route(input, admission, embeddingsOperation, request);
      const { vectors, promptTokens } = routed.answer;
      const charged = await this.metering.recordEmbeddings(
        input,
        admission,
        { ...routed, recorded: false, recordError: null },
        promptTokens,
      );
      return {
        model: routed.model,
        route: routed.route,
        attempts: routed.attempts,
        vectors,
        promptTokens: charged.usage.promptTokens,
        costUsd: nanosToUsd(charged.costNanos),
      };
    } finally {
      holds.end();
    }
  }

  /**
   * Admits the request and connects to a provider, or throws the error that refuses it; nothing
   * has been charged then. It resolves once the first event of the answer has arrived.
   */
  async start(inferenceInput: InferenceInput): Promise<InferenceRun> {
    const holds =
      inferenceInput.holds ?? new RequestHolds(inferenceInput.traceId, this.deps.logger);
    let asked: CanonicalRequest;
    try {
      asked = askedOf(
        applyPreset(
          this.reasoningMemory.restore(inferenceInput.key.id, inferenceInput.request),
          this.deps.names,
        ),
      );
    } catch (error) {
      holds.end();
      throw error;
    }
    const input: ChatInput = { ...inferenceInput, request: asked, holds, streamed: asked.stream };
    const admission = await this.admitAndHold(
      input,
      { model: input.request.model, ...(asked.routing && { routing: asked.routing }) },
      input.request.stream,
      chatOperation,
      input.request,
    );
    const finish = () => input.holds.end();
    let connected: Connected;
    try {
      const request: CanonicalRequest = {
        ...input.request,
        maxTokens: admission.maxOutputTokens,
        translation: { dropped: [...(asked.routing?.dropped ?? [])], adjusted: admission.adjusted },
      };
      const routed = await this.route(input, admission, chatOperation, request);
      connected = {
        traceId: input.traceId,
        model: routed.model,
        route: routed.route,
        entry: routed.entry,
        attempts: routed.attempts,
        answeredAt: routed.answeredAt,
        ...routed.answer,
        tally: { textDeltas: 0, text: [], toolText: [] },
        recorded: false,
        recordError: null,
      };
    } catch (error) {
      finish();
      throw error;
    }
    // From the first event on, what has been delivered is checkpointed about once a second, so a
    // crash of this process cannot leave it uncharged.
    this.deps.rows.track(input.traceId, () => this.metering.checkpoint(admission, connected));
    // A generator that is never started never runs its `finally`: if the client leaves before
    // the route begins reading, the abort ends the upstream call and frees the reservation.
    let started = false;
    const onAbort = () => {
      if (started) return;
      void (async () => {
        await connected.iterator.return?.(undefined)?.catch(() => undefined);
        await this.recordAndFinish(input, admission, connected, finish);
      })();
    };
    input.signal.addEventListener('abort', onAbort, { once: true });
    const events = this.run(input, admission, connected, () => (started = true), finish);
    return {
      model: connected.model,
      route: connected.route,
      promptTokens: admission.promptTokens,
      attempts: connected.attempts,
      translation: reportOrNull(connected.translation),
      events,
    };
  }

  private async *run(
    input: ChatInput,
    admission: Admission,
    connected: Connected,
    markStarted: () => void,
    finish: () => void,
  ): AsyncGenerator<PipelineEvent, void, undefined> {
    markStarted();
    const tally = connected.tally;
    const check = input.answerCheck;
    const remember = this.reasoningMemory.recorder(input.key.id);
    // Set when the answer breaks the client's form's rule: the model's output, not the provider
    // failing, so the provider's breaker is not told.
    let refusal: GatewayError | null = null;
    // Set when the request was stopped by the fence and its record is written in the background.
    let recordingApart = false;
    try {
      let next = connected.first;
      while (!next.done) {
        // Checked before anything more goes out: after a pause of the whole process the fence's
        // timer may not have run yet.
        if (!this.metering.leaseHeld(input.traceId, admission)) throw leaseLostError();
        const event = next.value;
        // The usage told early is neither the answer nor charged: it goes on as it came.
        if (event.type === 'usage') {
          if (refusal === null) yield event;
          // Awaited here, not in a helper: no extra promise on each event's path.
          const began = performance.now();
          try {
            next = await connected.iterator.next();
          } finally {
            input.timing.waitedOnUpstream(began);
          }
          continue;
        }
        if (check && refusal === null) refusal = check(event);
        if (event.type === 'finish') {
          if (refusal !== null) {
            // Charged as the upstream reports it: it served (and billed) the whole answer.
            await this.metering.record(input, admission, connected, 'ended_early', event, 'error');
            throw refusal;
          }
          // The record is on disk before the client sees the end of the answer.
          const charged = await this.metering.record(
            input,
            admission,
            connected,
            'completed',
            event,
          );
          yield {
            type: 'finish',
            finishReason: event.finishReason,
            rawFinishReason: event.rawFinishReason ?? null,
            stopSequence: event.stopSequence,
            // The usage shown is the usage charged; of it, the part the upstream said was reasoning.
            usage: {
              ...charged.usage,
              reasoningTokens: Math.min(
                event.usage?.reasoningTokens ?? 0,
                charged.usage.completionTokens,
              ),
            },
            costUsd: nanosToUsd(charged.costNanos),
          };
          return;
        }
        // Reasoning is produced text like the answer, and charged as completion.
        if (event.type === 'text-delta' || event.type === 'reasoning-delta') {
          tally.textDeltas += 1;
          tally.text.push(event.text);
        } else tally.toolText.push(event.name, event.arguments);
        // Once refused, nothing more goes out; the rest is read for the usage its finish reports.
        if (refusal === null) {
          remember(event);
          yield event;
        }
        // Awaited here, not in a helper: no extra promise on each event's path.
        const began = performance.now();
        try {
          next = await connected.iterator.next();
        } finally {
          input.timing.waitedOnUpstream(began);
        }
      }
      // The provider ends its answer early when the fence aborts it.
      if (!this.metering.leaseHeld(input.traceId, admission)) throw leaseLostError();
      if (refusal !== null) throw refusal;
    } catch (error) {
      if (admission.leaseLost.signal.aborted) {
        this.deps.logger.warn(
          { cfRay: input.traceId, provider: connected.route.providerId },
          'request stopped: its lease could not be renewed in time',
        );
        if (!connected.recorded) {
          // The answer ends now; its record waits for the store, which may be what this instance
          // cannot reach. Until it is written, the request counts as running (shutdown waits).
          connected.recorded = true;
          recordingApart = true;
          void (async () => {
            await connected.iterator.return?.(undefined)?.catch(() => undefined);
            await this.metering.recordLeaseLost(input, admission, connected);
          })().finally(finish);
        }
        throw leaseLostError();
      }
      // A record that could not be written fails the request as it is: nothing was charged.
      if (connected.recordError !== null) throw error;
      if (!connected.recorded)
        await this.metering.record(input, admission, connected, 'ended_early', null, 'error');
      if (error instanceof UpstreamError && countsAgainstProvider(error))
        connected.entry.breaker.failed();
      if (refusal !== null) {
        this.deps.logger.warn(
          { cfRay: input.traceId, provider: connected.route.providerId, reason: refusal.message },
          'answer refused: the client form cannot carry it',
        );
        throw refusal;
      }
      if (error instanceof UpstreamError) {
        this.deps.logger.warn(
          { cfRay: input.traceId, provider: error.providerId, failure: error.failure },
          'provider failed mid-answer',
        );
        throw toClientError(error, false);
      }
      this.deps.logger.error({ err: error, cfRay: input.traceId }, 'provider failed');
      throw new GatewayError({
        status: 502,
        type: 'provider_error',
        stage: 'provider',
        message: 'The provider failed while answering. Retry later.',
        retryAfterSeconds: 5,
      });
    } finally {
      // The provider's answer is closed first, so it says the usage it had been told (the prompt
      // count, for an answer cut short); then, if the client left (or stopped reading) before the
      // end, what was delivered is charged.
      if (!recordingApart) {
        await connected.iterator.return?.(undefined)?.catch(() => undefined);
        await this.recordAndFinish(input, admission, connected, finish);
      }
    }
  }

  private async recordAndFinish(
    input: ChatInput,
    admission: Admission,
    connected: Connected,
    finish: () => void,
  ): Promise<void> {
    try {
      if (!connected.recorded)
        await this.metering.record(input, admission, connected, 'ended_early', null);
    } catch (error) {
      this.deps.logger.error({ err: error, cfRay: input.traceId }, 'generation record not written');
    } finally {
      // Even if the record cannot be written, the reservation must not stay held forever.
      finish();
    }
  }
}

/**
 * The request as routing takes it: in strict mode, a provider option the gateway does not honour
 * is refused by name, as any field a provider cannot honour is.
 */
function askedOf(request: CanonicalRequest): CanonicalRequest {
  const dropped = request.routing?.dropped ?? [];
  if (request.requireParameters && dropped.length > 0) {
    throw invalidRequest(
      `Field '${dropped[0]}' is not a provider preference this gateway honours (it honours ${[...HONOURED_PROVIDER_OPTIONS].join(', ')}; of max_price, ${[...HONOURED_MAX_PRICES].join(' and ')}). Remove it, or leave strict mode off to have it dropped.`,
    );
  }
  return request;
}
