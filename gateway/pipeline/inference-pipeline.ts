/**
 * The one road every inference request takes, whatever its public form: admit it (model,
 * capabilities, key state, worst-case reservation), connect to the first provider of the model
 * that answers (retrying and falling back only before the first event reaches the client), stream
 * the answer, and write the generation record before the last event goes out. The reservation
 * and the key's slot are released however the request ends: finished, failed, or left.
 */
import type { Logger } from 'pino';
import type { CatalogModel, Catalog } from '../catalog/catalog';
import type {
  CanonicalEvent,
  CanonicalRequest,
  FinishReason,
  PipelineEvent,
  PublicFormName,
  ReportedUsage,
} from '../canonical/model';
import { countPromptTokens, countTokens, IMAGE_TOKENS } from '../canonical/token-count';
import { pendingCharge, type Budget, type Reservation } from '../billing/budget';
import type { InflightRows } from '../billing/inflight-rows';
import { nanosToUsd } from '../billing/money';
import { usageCost, worstPromptNanos, type ChargedUsage } from '../billing/usage-cost';
import { GatewayError, invalidRequest } from '../errors';
import type { KeyRegistry } from '../keys/key-registry';
import { inferenceRefusal } from '../keys/key-state';
import type { ModelRoute, Provider } from '../providers/provider';
import type { RetryPolicy } from '../providers/upstream/provider-config';
import { UpstreamError } from '../providers/upstream-error';
import type { GenerationWriter } from '../billing/generation-writer';
import type {
  GenerationAttempt,
  GenerationOutcome,
  GenerationRow,
  InflightCheckpoint,
  KeyRow,
  RecordCorrection,
} from '../store/store';
import { CircuitBreaker } from './circuit-breaker';
import type { SlotRelease } from './key-slots';
import {
  allowsFallback,
  backoffMs,
  countsAgainstProvider,
  isRetryable,
  toClientError,
} from './upstream-failure';
import {
  conservativePromptTokens,
  countTextTokens,
  loadTokenizer,
  promptText,
} from './usage-estimate';
import { abortableSleep } from '../shared/abortable-sleep';

export type InferenceInput = {
  key: KeyRow;
  request: CanonicalRequest;
  form: PublicFormName;
  traceId: string;
  /** Aborts the provider call: the client left or stopped. */
  signal: AbortSignal;
  /** `performance.now()` when the request arrived, for the record's latency. */
  startedAt: number;
  /** The key's concurrency slot, held since before the body was read; released at the end. */
  releaseSlot?: SlotRelease;
  /**
   * Runs once the request is known to be admissible and before money is reserved (the rate
   * limits: they throw their 429 here, with the prompt count admission made).
   */
  beforeReserve?: (estimate: { promptTokens: number; maxOutputTokens: number }) => Promise<void>;
  /** Runs once when the request ends, with the tokens charged (0 when nothing was). */
  onEnd?: (chargedTokens: number) => void;
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
  model: CatalogModel;
  /** The provider route that is answering. */
  route: ModelRoute;
  /** The gateway's prompt count, for forms that announce it before the answer (Messages). */
  promptTokens: number;
  /** Every attempt made before this answer started, the answering one last. */
  attempts: GenerationAttempt[];
  /** Must be consumed to its end or `return()`ed: its `finally` releases the reservation. */
  events: AsyncGenerator<PipelineEvent, void, undefined>;
};

/** A provider as the pipeline runs it: with its retry policy and its breaker. */
export type ProviderEntry = { provider: Provider; retry: RetryPolicy; breaker: CircuitBreaker };

/** What admission decided: the value the rest of the run works from. */
type Admission = {
  key: KeyRow;
  funding: KeyRow;
  model: CatalogModel;
  /** The gateway's own prompt count (exact for the simulated provider). */
  promptTokens: number;
  maxOutputTokens: number;
  reservation: Reservation;
  /** Prompt plus completion tokens charged, once the record is written. */
  chargedTokens: number;
  /**
   * Aborted when this instance can no longer vouch for the request's lease (its renewals did not
   * get through in time: billing/inflight-rows.ts): the provider call stops, nothing more is
   * delivered, and the request ends with an error.
   */
  leaseLost: AbortController;
};

const NO_RETRY: RetryPolicy = { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 };

export class InferencePipeline {
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
      /** Sees every provider attempt as it is recorded (the metrics count them). */
      onAttempt?: (attempt: GenerationAttempt) => void;
    },
  ) {}

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
   * Admits the request and connects to a provider, or throws the error that refuses it; nothing
   * has been charged then. It resolves once the first event of the answer has arrived.
   */
  async start(input: InferenceInput): Promise<InferenceRun> {
    let admission: Admission;
    try {
      admission = await this.admit(input);
    } catch (error) {
      input.releaseSlot?.();
      throw error;
    }
    this.inFlight += 1;
    this.running.add(admission.reservation);
    this.deps.rows.onLeaseLost(input.traceId, () => admission.leaseLost.abort());
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      this.running.delete(admission.reservation);
      this.deps.rows.untrack(input.traceId);
      // A no-op when the record was written (it freed the reservation); frees it otherwise.
      this.deps.budget.release(admission.reservation).catch((error: unknown) => {
        this.deps.logger.warn({ err: error, cfRay: input.traceId }, 'in-flight row not dropped');
      });
      input.releaseSlot?.();
      input.onEnd?.(admission.chargedTokens);
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    };
    let connected: Connected;
    try {
      connected = await this.connect(input, admission);
    } catch (error) {
      finish();
      throw error;
    }
    // From the first event on, what has been delivered is checkpointed about once a second, so a
    // crash of this process cannot leave it uncharged.
    this.deps.rows.track(input.traceId, () => this.checkpoint(admission, connected));
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
      model: admission.model,
      route: connected.route,
      promptTokens: admission.promptTokens,
      attempts: connected.attempts,
      events,
    };
  }

  private async admit(input: InferenceInput): Promise<Admission> {
    const { catalog, registry, budget, rows } = this.deps;
    const { request } = input;
    // The row the route authenticated may be stale (settlement replaces rows); admit against
    // the fresh one, or what settled meanwhile would be missed.
    const key = registry.get(input.key.id) ?? input.key;
    if (key.revokedAt !== null) {
      throw new GatewayError(
        401,
        'authentication_error',
        'authentication',
        'This key was revoked. Use another key.',
      );
    }
    const model = catalog.resolve(request.model);
    checkCapabilities(model, request);

    // Counting stops once the prompt is known not to fit: past the context it is refused anyway.
    const promptTokens = countPromptTokens(request, model.contextLength + 1);
    const maxOutputTokens = request.maxTokens ?? model.maxCompletionTokens;
    if (maxOutputTokens > model.maxCompletionTokens) {
      throw invalidRequest(
        `max_tokens is ${maxOutputTokens}, more than ${model.id} can produce (${model.maxCompletionTokens}).`,
      );
    }
    if (promptTokens + (request.maxTokens ?? 0) > model.contextLength) {
      throw invalidRequest(
        `The prompt is about ${promptTokens} tokens; with max_tokens ${request.maxTokens ?? 0} it passes ` +
          `${model.id}'s context length of ${model.contextLength}. Shorten the conversation or lower max_tokens.`,
      );
    }
    const parent = registry.get(key.parentId);
    const refusal = inferenceRefusal(key, parent, Math.floor(Date.now() / 1000));
    if (refusal) throw refusal;
    await input.beforeReserve?.({ promptTokens, maxOutputTokens });

    // The worst case over every provider that may answer: the dearest prices, and for a real
    // upstream a prompt count above any tokenizer's, since its count is what will be charged.
    let promptNanos = 0;
    let worstNanos = 0;
    for (const route of model.routes) {
      const simulated = this.deps.providers.get(route.providerId)?.provider.kind === 'simulated';
      const reservedPrompt = simulated
        ? promptTokens
        : Math.max(promptTokens, conservativePromptTokens(request));
      promptNanos = Math.max(promptNanos, reservedPrompt * worstPromptNanos(route));
      worstNanos = Math.max(
        worstNanos,
        reservedPrompt * worstPromptNanos(route) + maxOutputTokens * route.completionNanos,
      );
    }
    const funding = registry.fundingKeyOf(key);
    const first = model.routes[0]!;
    const reservation = await budget.reserve(
      funding,
      {
        nanos: worstNanos,
        promptNanos,
        completionTokenNanos: Math.max(...model.routes.map((route) => route.completionNanos)),
        maxOutputTokens,
      },
      {
        id: input.traceId,
        keyId: key.id,
        fundingKeyId: funding.id,
        model: model.id,
        provider: first.providerId,
        upstreamModel: first.upstreamModel,
        form: input.form,
        streamed: input.request.stream,
        promptTokens: 0,
        completionTokens: 0,
        costNanos: 0,
        reservedNanos: 0,
        instanceId: rows.instanceId,
        leaseExpiresAt: rows.leaseFromNow(),
        createdAt: Math.floor(Date.now() / 1000),
      },
    );
    return {
      key,
      funding,
      model,
      promptTokens,
      maxOutputTokens,
      reservation,
      chargedTokens: 0,
      leaseLost: new AbortController(),
    };
  }

  /**
   * Tries the model's providers in order until one produces the first event. A provider is
   * retried on connection errors, timeouts, 408, 429 and 5xx, with backoff (or its Retry-After);
   * the caller's own mistakes (400, 413, 422) end the request at once; anything else falls back
   * to the next provider. Cooling-down providers are skipped.
   */
  private async connect(input: InferenceInput, admission: Admission): Promise<Connected> {
    const request: CanonicalRequest = { ...input.request, maxTokens: admission.maxOutputTokens };
    const attempts: GenerationAttempt[] = [];
    const attempted = (attempt: GenerationAttempt) => {
      attempts.push(attempt);
      this.deps.onAttempt?.(attempt);
    };
    let lastError: UpstreamError | null = null;
    let everyFailureRateLimited = true;
    const sleep = this.deps.sleep ?? abortableSleep;
    // The provider stops when the client leaves, or when the request's lease is lost.
    const signal = AbortSignal.any([input.signal, admission.leaseLost.signal]);

    for (const route of admission.model.routes) {
      const entry = this.deps.providers.get(route.providerId);
      if (!entry) continue;
      if (!entry.breaker.tryAcquire()) {
        attempted({ provider: route.providerId, status: 'cooling_down', latencyMs: 0 });
        everyFailureRateLimited = false;
        continue;
      }
      const policy = entry.provider.kind === 'simulated' ? NO_RETRY : entry.retry;
      for (let attempt = 1; attempt <= policy.maxAttempts; attempt += 1) {
        if (!this.leaseHeld(input, admission)) {
          entry.breaker.abandoned();
          throw leaseLostError();
        }
        const began = performance.now();
        const partial: Connected['partial'] = { usage: null };
        const answer = entry.provider.stream(request, route, signal, (usage) => {
          partial.usage = usage;
        });
        const iterator = answer[Symbol.asyncIterator]();
        try {
          const first = await iterator.next();
          const latencyMs = round(performance.now() - began);
          if (input.signal.aborted) {
            entry.breaker.abandoned();
            await iterator.return?.(undefined);
            throw clientLeft();
          }
          if (!this.leaseHeld(input, admission)) {
            await iterator.return?.(undefined);
            throw leaseLostError();
          }
          entry.breaker.succeeded();
          attempted({ provider: route.providerId, status: 200, latencyMs });
          return {
            traceId: input.traceId,
            route,
            entry,
            iterator,
            first,
            attempts,
            tally: { textDeltas: 0, text: [], toolText: [] },
            partial,
            recorded: false,
            recordError: null,
          };
        } catch (error) {
          const latencyMs = round(performance.now() - began);
          // Stopped by the fence, not failed: not the provider's fault.
          if (admission.leaseLost.signal.aborted) {
            entry.breaker.abandoned();
            throw leaseLostError();
          }
          if (!(error instanceof UpstreamError)) {
            // The request cannot be sent to this provider as it is (a 400 naming the field), or
            // the client left: neither is the provider's fault.
            entry.breaker.abandoned();
            if (error instanceof GatewayError) throw error;
            this.deps.logger.error(
              { err: error, cfRay: input.traceId, provider: route.providerId },
              'provider failed unexpectedly',
            );
            throw new GatewayError(
              502,
              'provider_error',
              'provider',
              `Provider '${route.providerId}' failed unexpectedly. Retry later.`,
              5,
            );
          }
          attempted({
            provider: route.providerId,
            status: error.details.status ?? error.failure,
            latencyMs,
          });
          this.deps.logger.warn(
            {
              cfRay: input.traceId,
              provider: route.providerId,
              failure: error.failure,
              status: error.details.status,
              attempt,
            },
            'provider attempt failed',
          );
          if (countsAgainstProvider(error)) entry.breaker.failed();
          else entry.breaker.abandoned();
          lastError = error;
          if (error.details.status !== 429) everyFailureRateLimited = false;
          if (!allowsFallback(error)) throw toClientError(error, false);
          const retryAfter = error.details.retryAfterSeconds;
          const wait = backoffMs(attempt, policy, retryAfter);
          // A Retry-After longer than the policy allows is better spent on the next provider.
          if (!isRetryable(error) || attempt === policy.maxAttempts || wait > policy.maxDelayMs)
            break;
          if (!entry.breaker.tryAcquire()) break;
          await sleep(wait, signal);
          if (input.signal.aborted) throw clientLeft();
          if (!this.leaseHeld(input, admission)) throw leaseLostError();
        }
      }
    }
    if (lastError)
      throw toClientError(lastError, everyFailureRateLimited && admission.model.routes.length > 1);
    const cooling = admission.model.routes
      .map(
        (route) =>
          this.deps.providers.get(route.providerId)?.breaker.status().retryAfterSeconds ?? null,
      )
      .filter((seconds): seconds is number => seconds !== null);
    throw new GatewayError(
      503,
      'provider_error',
      'provider',
      `No provider of ${admission.model.id} is available right now: ${cooling.length > 0 ? 'each failed repeatedly and is cooling down' : 'none is configured'}. Retry later.`,
      cooling.length > 0 ? Math.min(...cooling) : 30,
    );
  }

  private async *run(
    input: InferenceInput,
    admission: Admission,
    connected: Connected,
    markStarted: () => void,
    finish: () => void,
  ): AsyncGenerator<PipelineEvent, void, undefined> {
    markStarted();
    const tally = connected.tally;
    const check = input.answerCheck;
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
        if (!this.leaseHeld(input, admission)) throw leaseLostError();
        const event = next.value;
        if (check && refusal === null) refusal = check(event);
        if (event.type === 'finish') {
          if (refusal !== null) {
            // Charged as the upstream reports it: it served (and billed) the whole answer.
            await this.record(input, admission, connected, 'ended_early', event, 'error');
            throw refusal;
          }
          // The record is on disk before the client sees the end of the answer.
          const charged = await this.record(input, admission, connected, 'completed', event);
          yield {
            type: 'finish',
            finishReason: event.finishReason,
            rawFinishReason: event.rawFinishReason ?? null,
            stopSequence: event.stopSequence,
            // The usage shown is the usage charged; reasoning is a part of its completion.
            usage: withReasoningTokens(charged.usage, event.usage?.reasoningTokens),
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
        if (refusal === null) yield event;
        next = await connected.iterator.next();
      }
      // The provider ends its answer early when the fence aborts it.
      if (!this.leaseHeld(input, admission)) throw leaseLostError();
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
            await this.recordLeaseLost(input, admission, connected);
          })().finally(finish);
        }
        throw leaseLostError();
      }
      // A record that could not be written fails the request as it is: nothing was charged.
      if (connected.recordError !== null) throw error;
      if (!connected.recorded)
        await this.record(input, admission, connected, 'ended_early', null, 'error');
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
      throw new GatewayError(
        502,
        'provider_error',
        'provider',
        'The provider failed while answering. Retry later.',
        5,
      );
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
    input: InferenceInput,
    admission: Admission,
    connected: Connected,
    finish: () => void,
  ): Promise<void> {
    try {
      if (!connected.recorded) await this.record(input, admission, connected, 'ended_early', null);
    } catch (error) {
      this.deps.logger.error({ err: error, cfRay: input.traceId }, 'generation record not written');
    } finally {
      // Even if the record cannot be written, the reservation must not stay held forever.
      finish();
    }
  }

  /**
   * Writes the generation record and makes its cost pending. The upstream's reported usage is
   * charged at the answering provider's prices. Where it reported none (or no completion for text
   * it did deliver), the gateway counts, and the record says the usage is estimated. The charge
   * never exceeds the reservation, so limit + grace holds even when an upstream counts more than
   * the gateway reserved for.
   */
  private async record(
    input: InferenceInput,
    admission: Admission,
    connected: Connected,
    outcome: GenerationOutcome,
    finishEvent: Extract<CanonicalEvent, { type: 'finish' }> | null,
    finishReason: FinishReason | null = finishEvent?.finishReason ?? null,
  ): Promise<{ usage: ChargedUsage; costNanos: number }> {
    // Set first, so no other path records the same request while this one is being written.
    connected.recorded = true;
    const { route, tally } = connected;
    const simulated = connected.entry.provider.kind === 'simulated';
    const delivered = tally.textDeltas > 0 || tally.toolText.length > 0;
    // Without its finish, an answer still has the prompt the upstream counted (Anthropic says it
    // at the start); what it produced is counted here, from what was delivered.
    const reported =
      finishEvent?.usage ??
      (connected.partial.usage && { ...connected.partial.usage, completionTokens: null });
    // Each count is taken as reported, or counted here where it was not; no completion reported
    // for text that was delivered is no report.
    const reportedPrompt = reported?.promptTokens ?? null;
    const reportedCompletion =
      reported?.completionTokens === 0 && delivered ? null : (reported?.completionTokens ?? null);
    const usageEstimated = !simulated && (reportedPrompt === null || reportedCompletion === null);
    // The tokenizer is large; it is loaded the first time an upstream leaves a count to us.
    if (usageEstimated) await loadTokenizer();
    const countPrompt = () => {
      const prompt = promptText(input.request);
      return countTextTokens(prompt.text) + prompt.images * IMAGE_TOKENS;
    };
    // The simulated provider streams one token per text event: its own count, exactly.
    const promptTokens = reportedPrompt ?? (simulated ? admission.promptTokens : countPrompt());
    const producedTokens =
      reportedCompletion ??
      (simulated
        ? tally.textDeltas + tally.toolText.reduce((sum, text) => sum + countTokens(text), 0)
        : countTextTokens(tally.text.join('')) + countTextTokens(tally.toolText.join('')));
    // Only the reserved output is billable: a provider that overshoots max_tokens must not take
    // the key past limit + grace.
    const completionTokens = Math.min(producedTokens, admission.maxOutputTokens);
    // The cached part of a prompt is the upstream's word about its own prompt: only with its count.
    const cacheReadTokens =
      reportedPrompt === null ? 0 : Math.min(reported?.cacheReadTokens ?? 0, promptTokens);
    const cacheWriteTokens =
      reportedPrompt === null
        ? 0
        : Math.min(reported?.cacheWriteTokens ?? 0, promptTokens - cacheReadTokens);
    const cacheWriteHourTokens = Math.min(reported?.cacheWriteHourTokens ?? 0, cacheWriteTokens);
    const usage: ChargedUsage = {
      promptTokens,
      completionTokens,
      cacheReadTokens,
      cacheWriteTokens,
      cacheWriteHourTokens,
    };
    const fullNanos = usageCost(route, usage);
    const costNanos = Math.min(fullNanos, admission.reservation.nanos);
    if (costNanos < fullNanos) {
      this.deps.logger.warn(
        { cfRay: input.traceId, provider: route.providerId, fullNanos, costNanos },
        'usage above the reservation: charge capped at what was reserved',
      );
    }
    const row: GenerationRow = {
      id: input.traceId,
      keyId: admission.key.id,
      fundingKeyId: admission.funding.id,
      model: admission.model.id,
      provider: route.providerId,
      upstreamModel: route.upstreamModel,
      form: input.form,
      streamed: input.request.stream,
      ...usage,
      costNanos,
      finishReason,
      outcome,
      settled: false,
      createdAt: Math.floor(Date.now() / 1000),
      settledAt: null,
      latencyMs: round(performance.now() - input.startedAt),
      attempts: connected.attempts,
      usageEstimated,
      chargeCapped: costNanos < fullNanos,
    };
    let correction: RecordCorrection | null;
    try {
      // The record removes the request's in-flight row, if one was written: after its write.
      // Were the row gone without a closure, a reclaim gave its reservation back with nothing to
      // charge, and so does the record.
      row.inflightRowWritten = await this.deps.rows.closing(input.traceId);
      // Group commit: the records of requests ending in the same turn share one transaction, and
      // this answer's end goes out only once its record is on disk.
      correction = await this.deps.writer.write(row);
    } catch (error) {
      connected.recordError = error;
      throw error;
    }
    this.deps.rows.untrack(input.traceId);
    // Its lease ran out while it ran (its instance was slow, not dead): its record replaced the
    // one that charged only what was checkpointed, and the difference is what is charged now.
    await this.deps.budget.charged(admission.reservation, correction ?? pendingCharge(costNanos));
    admission.chargedTokens = promptTokens + completionTokens;
    return { usage, costNanos };
  }

  /**
   * Whether this instance still vouches for the request's lease. Once it does not, the request's
   * `leaseLost` is aborted (the provider call stops) and stays so.
   */
  private leaseHeld(input: InferenceInput, admission: Admission): boolean {
    if (admission.leaseLost.signal.aborted) return false;
    if (!this.deps.rows.leaseLost(input.traceId)) return true;
    admission.leaseLost.abort();
    return false;
  }

  /**
   * The record of a request stopped because its lease was lost. It may charge only against a
   * reservation it still holds: where the budget holds it apart from the row (Redis), the hold
   * is renewed first, and if it is gone (it lapsed, and its room may be spent) nothing is
   * charged: the row is dropped (`finish` releases it) or, if a reclaim closed it already, its
   * closure stands. Otherwise the record charges what was delivered, within the reservation; the
   * store caps it at the closure's cost if a reclaim got there first (store.ts,
   * `insertGenerations`), so nothing is charged twice, nor past what the reclaim left.
   */
  private async recordLeaseLost(
    input: InferenceInput,
    admission: Admission,
    connected: Connected,
  ): Promise<void> {
    let gone: ReadonlySet<string>;
    try {
      gone = await this.deps.budget.renew([admission.reservation], this.deps.rows.leaseFromNow());
    } catch (error) {
      this.deps.logger.warn({ err: error, cfRay: input.traceId }, 'reservation not renewed');
      gone = new Set([admission.reservation.id]);
    }
    if (gone.has(admission.reservation.id)) {
      this.deps.logger.warn(
        { cfRay: input.traceId },
        'lease lost with its reservation: nothing more is charged (a closure already written stands)',
      );
      return;
    }
    try {
      await this.record(input, admission, connected, 'ended_early', null, 'error');
    } catch (error) {
      this.deps.logger.error({ err: error, cfRay: input.traceId }, 'generation record not written');
    }
  }

  /**
   * What a crash now would charge: the prompt and what was delivered so far, at the answering
   * provider's prices, capped at the reservation. Cheap (it runs once a second per stream), so
   * an upstream's delivered text is estimated at four characters a token; the record written at
   * the end counts properly.
   */
  private checkpoint(admission: Admission, connected: Connected): InflightCheckpoint | null {
    const { route, tally } = connected;
    const simulated = connected.entry.provider.kind === 'simulated';
    const length = (texts: string[]) => texts.reduce((sum, text) => sum + text.length, 0);
    // The simulated provider streams one token per text event.
    const produced = simulated
      ? tally.textDeltas + Math.ceil(length(tally.toolText) / 4)
      : Math.ceil((length(tally.text) + length(tally.toolText)) / 4);
    const completionTokens = Math.min(produced, admission.maxOutputTokens);
    const promptTokens = admission.promptTokens;
    const costNanos = Math.min(
      promptTokens * route.promptNanos + completionTokens * route.completionNanos,
      admission.reservation.nanos,
    );
    return {
      id: connected.traceId,
      provider: route.providerId,
      upstreamModel: route.upstreamModel,
      promptTokens,
      completionTokens,
      costNanos,
    };
  }
}

/** The provider that answered, the first event it sent, and what has been delivered since. */
type Connected = {
  traceId: string;
  route: ModelRoute;
  entry: ProviderEntry;
  iterator: AsyncIterator<CanonicalEvent, void, undefined>;
  first: IteratorResult<CanonicalEvent, void>;
  attempts: GenerationAttempt[];
  /** What has been delivered so far, for a charge the gateway must count itself. */
  tally: { textDeltas: number; text: string[]; toolText: string[] };
  /** The usage the upstream had reported when its answer ended without its finish. */
  partial: { usage: ReportedUsage | null };
  recorded: boolean;
  /** Why the record could not be written, if it could not. */
  recordError: unknown;
};

/** The upstream's count of reasoning tokens, never more than the completion charged. */
const withReasoningTokens = (usage: ChargedUsage, reasoningTokens: number | undefined) =>
  reasoningTokens
    ? { ...usage, reasoningTokens: Math.min(reasoningTokens, usage.completionTokens) }
    : usage;

const round = (milliseconds: number) => Math.round(milliseconds * 100) / 100;

/**
 * The request's lease could not be renewed in time (this instance lost its database or Redis for
 * a while, or was paused): it was stopped before another instance could give its reservation
 * away. Another instance can serve a retry.
 */
const leaseLostError = () =>
  new GatewayError(
    503,
    'provider_error',
    'provider',
    "This gateway instance could not renew the hold on this request's budget in time, so it stopped the answer. Retry: another instance can serve it.",
    1,
  );

/** The client went away: nobody is left to answer (the route sees a destroyed response). */
const clientLeft = () =>
  new GatewayError(499, 'invalid_request', 'validation', 'The client closed the request.');

function checkCapabilities(model: CatalogModel, request: CanonicalRequest): void {
  const hasImage = request.messages.some((message) =>
    message.parts.some((part) => part.type === 'image'),
  );
  if (hasImage && !model.inputModalities.includes('image')) {
    throw invalidRequest(
      `${model.id} does not accept image input (its input modalities are: ${model.inputModalities.join(', ')}). ` +
        'Remove the image parts or pick a model that lists image input.',
    );
  }
  if (request.tools.length > 0 && !model.supportedParameters.includes('tools')) {
    throw invalidRequest(
      `${model.id} does not support tools. Remove tools or pick a model that lists them.`,
    );
  }
}
