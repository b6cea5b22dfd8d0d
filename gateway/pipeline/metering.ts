/**
 * Metering: what a request is charged and the record that says so. The usage an upstream
 * reports (or the gateway's own count where it reports none), priced at the answering provider's
 * prices and capped at the reservation; the generation record, written before the answer's end
 * goes out; the checkpoints that charge a running stream if this process dies; and the lease's
 * fence, which stops a request this instance can no longer vouch for.
 */
import { periodEnd } from '../keys/budget-period';
import type { BudgetPeriods } from '../keys/calendar-clock';
import { capCharge } from './charge-cap';
import type { Logger } from 'pino';
import { pendingCharge, type Budget } from '../billing/budget';
import type { GenerationWriter } from '../billing/generation-writer';
import type { InflightRows } from '../billing/inflight-rows';
import type { ChargedUsage } from '../billing/usage-cost';
import type {
  CanonicalEmbeddingRequest,
  CanonicalEvent,
  CanonicalRequest,
  FinishReason,
  RecordedFormName,
  TranslationReport,
} from '../canonical/model';
import { reportOrNull } from '../canonical/translation';
import { countTokens, IMAGE_TOKENS } from '../canonical/token-count';
import type { CatalogModel } from '../catalog/catalog';
import type { ModelRoute } from '../providers/provider';
import type {
  GenerationAttempt,
  GenerationOutcome,
  GenerationRow,
  InflightCheckpoint,
  RecordCorrection,
} from '../store/store';
import type { Admission } from './admission';
import type { ChatStart } from './operation';
import type { RequestHolds } from './request-holds';
import type { RequestTiming } from '../shared/request-timing';
import { trace, type Tracer } from '@opentelemetry/api';
import { describeRecord, inSpan, tracingOff } from '../operability/tracing';
import { round, type ProviderEntry } from './routing';
import { countTextTokens, loadTokenizer, promptText } from './usage-estimate';

export type MeteringDeps = {
  budget: Budget;
  /** This process's in-flight rows: checkpointed usage of running requests. */
  rows: InflightRows;
  /** Writes generation records in group commits. */
  writer: GenerationWriter;
  logger: Logger;
  /**
   * Sees every record once written, with the milliseconds from its answer's beginning to its end
   * (null where unknown): provider availability.
   */
  onRecorded?: (record: GenerationRow, generationMs: number | null) => void;
  periods?: BudgetPeriods;
  /** The record write's span (operability/tracing.ts); absent: none. */
  tracer?: Tracer;
};

/**
 * How near its period's end a request's record says which period admitted it: a record queued
 * this long before the end is surely written before it (keys/budget-period.ts).
 */
const PERIOD_END_MARGIN_SECONDS = 60;

/** The request as metering sees it. */
export type MeteredRequest = {
  traceId: string;
  form: RecordedFormName;
  streamed: boolean;
  /** When the request arrived and the waits on the provider: the record's latency and overhead. */
  timing: RequestTiming;
  /** The agent session the client named; absent: none. */
  sessionId?: string | null;
  /** The batch the request is a line of (batches/); absent: an interactive request. */
  batchId?: string | null;
  holds: RequestHolds;
};

/** The answer being metered: who answers, and whether its record was written. */
export type MeteredAnswer = {
  /** The model that answers: the request's, or a fallback. */
  model: CatalogModel;
  route: ModelRoute;
  entry: ProviderEntry;
  attempts: GenerationAttempt[];
  /** `performance.now()` when the answer began (routing's `answeredAt`). */
  answeredAt?: number;
  recorded: boolean;
  /** Why the record could not be written, if it could not. */
  recordError: unknown;
  /** What was dropped or changed to reach the answering provider (chat only). */
  translation?: TranslationReport;
};

/** A chat answer being delivered: the provider's stream and what has gone out since. */
export type Connected = MeteredAnswer &
  ChatStart & {
    traceId: string;
    /** What has been delivered so far, for a charge the gateway must count itself. */
    tally: { textDeltas: number; text: string[]; toolText: string[] };
  };

export class Metering {
  constructor(private readonly deps: MeteringDeps) {}

  /**
   * Writes the generation record and makes its cost pending. The upstream's reported usage is
   * charged at the answering provider's prices. Where it reported none (or no completion for text
   * it did deliver), the gateway counts, and the record says the usage is estimated. The charge
   * never exceeds the reservation, so limit + grace holds even when an upstream counts more than
   * the gateway reserved for.
   */
  async record(
    input: MeteredRequest & { request: CanonicalRequest },
    admission: Admission,
    connected: Connected,
    outcome: GenerationOutcome,
    finishEvent: Extract<CanonicalEvent, { type: 'finish' }> | null,
    finishReason: FinishReason | null = finishEvent?.finishReason ?? null,
  ): Promise<{ usage: ChargedUsage; costNanos: number }> {
    // Set first, so no other path records the same request while this one is being written.
    connected.recorded = true;
    const { tally } = connected;
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
    // The cached part of a prompt is the upstream's word about its own prompt: only with its count.
    const cacheReadTokens =
      reportedPrompt === null ? 0 : Math.min(reported?.cacheReadTokens ?? 0, promptTokens);
    const cacheWriteTokens =
      reportedPrompt === null
        ? 0
        : Math.min(reported?.cacheWriteTokens ?? 0, promptTokens - cacheReadTokens);
    const cacheWriteHourTokens = Math.min(reported?.cacheWriteHourTokens ?? 0, cacheWriteTokens);
    // Likewise the reasoning part of a completion, only with the upstream's count of it.
    const reasoningTokens =
      reportedCompletion === null ? 0 : Math.min(reported?.reasoningTokens ?? 0, producedTokens);
    const usage: ChargedUsage = {
      promptTokens,
      // As produced; `charge` holds it to what was reserved (charge-cap.ts).
      completionTokens: producedTokens,
      cacheReadTokens,
      cacheWriteTokens,
      cacheWriteHourTokens,
      reasoningTokens,
    };
    return this.charge(input, admission, connected, usage, usageEstimated, outcome, finishReason);
  }

  /**
   * Prices `usage` at the answering route, holds it to what was reserved (the completion to
   * max_tokens, the cost to the reservation: charge-cap.ts), and writes the record: the tail every
   * operation's record shares. A charge held below the usage is logged and marked capped.
   */
  async charge(
    input: MeteredRequest,
    admission: Admission,
    connected: MeteredAnswer,
    produced: ChargedUsage,
    usageEstimated: boolean,
    outcome: GenerationOutcome,
    finishReason: FinishReason | null,
  ): Promise<{ usage: ChargedUsage; costNanos: number }> {
    connected.recorded = true;
    const { route } = connected;
    const charge = capCharge(route, produced, {
      maxOutputTokens: admission.maxOutputTokens,
      reservedNanos: admission.reservation.nanos,
    });
    const { usage, costNanos } = charge;
    const { promptTokens, completionTokens } = usage;
    if (charge.capped) {
      this.deps.logger.warn(
        {
          cfRay: input.traceId,
          provider: route.providerId,
          producedTokens: produced.completionTokens,
          maxOutputTokens: admission.maxOutputTokens,
          fullNanos: charge.uncappedNanos,
          costNanos,
        },
        'charge capped: usage past max_tokens or the reservation',
      );
    }
    const endedAt = performance.now();
    const row: GenerationRow = {
      id: input.traceId,
      keyId: admission.key.id,
      fundingKeyId: admission.funding.id,
      model: connected.model.id,
      requestedModel:
        admission.plan.requested === connected.model.id ? null : admission.plan.requested,
      provider: route.providerId,
      upstreamModel: route.upstreamModel,
      form: input.form,
      streamed: input.streamed,
      ...usage,
      // A completion held to max_tokens holds its reasoning part too.
      reasoningTokens: Math.min(usage.reasoningTokens ?? 0, completionTokens),
      costNanos,
      finishReason,
      outcome,
      settled: false,
      createdAt: Math.floor(Date.now() / 1000),
      settledAt: null,
      latencyMs: round(input.timing.elapsedMs(endedAt)),
      overheadMs: input.timing.overheadMs(endedAt),
      sessionId: input.sessionId ?? null,
      batchId: input.batchId ?? null,
      attempts: connected.attempts,
      usageEstimated,
      chargeCapped: charge.capped,
      translation: reportOrNull(connected.translation),
    };
    const admitted = admission.periodStartedAt;
    const now = this.deps.periods?.clock.nowSeconds();
    if (
      admitted !== null &&
      now !== undefined &&
      now >= periodEnd(admission.funding.limitReset, admitted)! - PERIOD_END_MARGIN_SECONDS
    ) {
      row.admittedPeriodStart = admitted;
    }
    let correction: RecordCorrection | null;
    try {
      // The record removes the request's in-flight row, if one was written: after its write.
      // Were the row gone without a closure, a reclaim gave its reservation back with nothing to
      // charge, and so does the record.
      row.inflightRowWritten = await this.deps.rows.closing(input.traceId);
      // Group commit: the records of requests ending in the same turn share one transaction, and
      // this answer's end goes out only once its record is on disk.
      correction = await inSpan(
        this.deps.tracer ?? tracingOff.tracer,
        'gateway.record_write',
        {},
        () => this.deps.writer.write(row),
      );
    } catch (error) {
      connected.recordError = error;
      throw error;
    }
    this.deps.rows.untrack(input.traceId);
    describeRecord(trace.getActiveSpan(), row, route.upstreamModel, connected.entry.provider.kind);
    this.deps.onRecorded?.(
      row,
      connected.answeredAt === undefined ? null : round(endedAt - connected.answeredAt),
    );
    // Its lease ran out while it ran (its instance was slow, not dead): its record replaced the
    // one that charged only what was checkpointed, and the difference is what is charged now.
    // The answer does not wait for the budget's reply: the record is durable, and the hold keeps
    // counting the worst case until the budget frees it. Redis gets the call now, on its one
    // connection, before any later admission of this instance. A failure leaves the hold to
    // its lease.
    this.deps.budget
      .charged(admission.reservation, correction ?? pendingCharge(costNanos))
      .catch((error: unknown) => {
        this.deps.logger.warn({ err: error, cfRay: input.traceId }, 'charge not counted');
      });
    input.holds.chargedTokens = promptTokens + completionTokens;
    return { usage, costNanos };
  }

  /**
   * The record of an embeddings request: its inputs' tokens at the prompt price, nothing for
   * output. Where the upstream gave no count (Gemini's embed API gives none), the gateway's
   * tokenizer counts and the record says the usage is estimated; the simulated provider's
   * count is admission's own, exact.
   */
  async recordEmbeddings(
    input: MeteredRequest & { request: CanonicalEmbeddingRequest },
    admission: Admission,
    answer: MeteredAnswer,
    reportedPrompt: number | null,
  ): Promise<{ usage: ChargedUsage; costNanos: number }> {
    const simulated = answer.entry.provider.kind === 'simulated';
    const usageEstimated = !simulated && reportedPrompt === null;
    if (usageEstimated) await loadTokenizer();
    const counted = () =>
      input.request.inputs.reduce(
        (sum, item) => sum + (typeof item === 'string' ? countTextTokens(item) : item.length),
        0,
      );
    const usage: ChargedUsage = {
      promptTokens: reportedPrompt ?? (simulated ? admission.promptTokens : counted()),
      completionTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      cacheWriteHourTokens: 0,
    };
    return this.charge(input, admission, answer, usage, usageEstimated, 'completed', 'stop');
  }

  /**
   * Whether this instance still vouches for the request's lease. Once it does not, the request's
   * `leaseLost` is aborted (the provider call stops) and stays so.
   */
  leaseHeld(traceId: string, admission: Admission): boolean {
    if (admission.leaseLost.signal.aborted) return false;
    if (!this.deps.rows.leaseLost(traceId)) return true;
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
  async recordLeaseLost(
    input: MeteredRequest & { request: CanonicalRequest },
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
  checkpoint(admission: Admission, connected: Connected): InflightCheckpoint | null {
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
