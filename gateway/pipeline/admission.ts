/**
 * Admission: whether a request may run at all, and the money it may spend. In order: the key
 * (fresh from the registry, revoked or not), the model and whether it serves this operation, what
 * the operation measures of the request (its prompt count and output bound, or the 400 that
 * refuses it), the key's state, its rate limits, and the worst-case reservation over every
 * provider that may answer. Nothing is charged here; what is held goes into the request's holds.
 */
import type { Budget, Reservation } from '../billing/budget';
import type { InflightRows } from '../billing/inflight-rows';
import { worstPromptNanos } from '../billing/usage-cost';
import type { Catalog, CatalogModel } from '../catalog/catalog';
import type { RoutingNames } from '../catalog/routing-names';
import type { RecordedFormName, RequestRouting } from '../canonical/model';
import { GatewayError, invalidRequest } from '../errors';
import type { KeyRegistry } from '../keys/key-registry';
import { inferenceRefusal, modelRefusal } from '../keys/key-state';
import { periodDue } from '../keys/budget-period';
import { calendarClock, type BudgetPeriods } from '../keys/calendar-clock';
import type { KeyRow } from '../store/store';
import type { Demand, Operation } from './operation';
import type { RequestHolds } from './request-holds';
import { planRoutes, type RoutePlan, type SpeedsOf } from './route-plan';
import type { ProviderEntry } from './routing';

export type AdmissionDeps = {
  catalog: Catalog;
  registry: KeyRegistry;
  /** Where admission reserves: in memory, in the store, or in Redis. */
  budget: Budget;
  /** This process's in-flight rows: the reservation's row carries the lease. */
  rows: InflightRows;
  providers: Map<string, ProviderEntry>;
  periods?: BudgetPeriods;
  /** Aliases and presets; absent: catalog ids only. */
  names?: RoutingNames;
  /** Providers' recent latency and throughput, for `sort`. */
  speeds?: SpeedsOf;
};

/** What the request arrived with, as admission needs it. */
export type AdmissionInput = {
  key: KeyRow;
  /** The catalog id or alias (or the name a form resolved to it); a preset is applied before. */
  model: string;
  /** Fallback models and provider preferences, when the request gives any. */
  routing?: RequestRouting;
  form: RecordedFormName;
  streamed: boolean;
  traceId: string;
  holds: RequestHolds;
};

/** What admission decided: the value routing and metering work from. */
export type Admission = {
  key: KeyRow;
  funding: KeyRow;
  /** The funding key's budget period when the request was admitted (null: none). */
  periodStartedAt: number | null;
  /** The model tried first (the plan's first candidate's): the request is measured against it. */
  model: CatalogModel;
  /** Every (model, provider) pair that may answer, in order, and those left out. */
  plan: RoutePlan;
  /** The gateway's own prompt count (exact for the simulated provider). */
  promptTokens: number;
  maxOutputTokens: number;
  /** The request's own adjustments (a lowered `max_tokens`), before any provider's. */
  adjusted: string[];
  reservation: Reservation;
  /**
   * Aborted when this instance can no longer vouch for the request's lease (its renewals did not
   * get through in time: billing/inflight-rows.ts): the provider call stops, nothing more is
   * delivered, and the request ends with an error.
   */
  leaseLost: AbortController;
};

const systemCalendar = calendarClock();

export async function admit<Request>(
  deps: AdmissionDeps,
  input: AdmissionInput,
  operation: Operation<Request>,
  request: Request,
): Promise<Admission> {
  const { registry, budget, rows } = deps;
  // The row the route authenticated may be stale (settlement replaces rows); admit against
  // the fresh one, or what settled meanwhile would be missed.
  const key = registry.get(input.key.id) ?? input.key;
  if (key.revokedAt !== null) {
    throw new GatewayError({
      status: 401,
      type: 'authentication_error',
      stage: 'authentication',
      message: 'This key was revoked. Use another key.',
    });
  }
  const parent = registry.get(key.parentId);
  const plan = await planRoutes(deps, input.model, input.routing, (id) =>
    modelRefusal(key, parent, id),
  );
  const model = plan.candidates[0]!.model;
  for (const candidate of plan.candidates) checkOperation(candidate.model, operation);
  const demand = operation.measure(request, model);
  const { promptTokens, maxOutputTokens } = demand;
  const clock = deps.periods?.clock ?? systemCalendar;
  const funding = registry.fundingKeyOf(key);
  // A period that has ended starts again before anything is reserved against it (rows are
  // updated in place, so `funding` is the new period's once this returns).
  if (deps.periods && periodDue(funding, clock.nowSeconds())) await deps.periods.roll(funding.id);
  // Read now: a roll during the awaits below would show the next period in the same row.
  const periodStartedAt = funding.periodStartedAt;
  const refusal = inferenceRefusal(key, parent, clock.nowSeconds());
  if (refusal) throw refusal;
  await input.holds.admitRateLimits({ promptTokens, maxOutputTokens });

  const worst = worstCase(deps, plan, demand);
  const first = plan.candidates[0]!.route;
  const reservation = await budget.reserve(
    funding,
    {
      nanos: worst.nanos,
      promptNanos: worst.promptNanos,
      completionTokenNanos: Math.max(
        ...plan.candidates.map((candidate) => candidate.route.completionNanos),
      ),
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
      streamed: input.streamed,
      promptTokens: 0,
      completionTokens: 0,
      costNanos: 0,
      reservedNanos: 0,
      instanceId: rows.instanceId,
      leaseExpiresAt: rows.leaseFromNow(),
      createdAt: Math.floor(Date.now() / 1000),
    },
  );
  input.holds.holdReservation(reservation, (held) => budget.release(held));
  return {
    key,
    funding,
    periodStartedAt,
    model,
    plan,
    promptTokens,
    maxOutputTokens,
    adjusted: demand.adjusted,
    reservation,
    leaseLost: new AbortController(),
  };
}

/**
 * The worst case over every provider of every model that may answer (fallback models and an
 * alias's members included): the dearest prices, and for a real upstream a prompt count above
 * any tokenizer's, since its count is what will be charged.
 */
function worstCase(deps: AdmissionDeps, plan: RoutePlan, demand: Demand) {
  let promptNanos = 0;
  let nanos = 0;
  for (const { route } of plan.candidates) {
    const kind = deps.providers.get(route.providerId)?.provider.kind;
    const reservedPrompt =
      kind === 'simulated'
        ? demand.promptTokens
        : Math.max(demand.promptTokens, demand.upstreamPromptTokens());
    // Anthropic writes to its cache only at a breakpoint; other kinds may cache on their own.
    const tokenNanos = worstPromptNanos(route, demand.cacheWrites, kind !== 'anthropic');
    promptNanos = Math.max(promptNanos, reservedPrompt * tokenNanos);
    nanos = Math.max(
      nanos,
      reservedPrompt * tokenNanos + demand.maxOutputTokens * route.completionNanos,
    );
  }
  return { nanos, promptNanos };
}

/** Whether a catalog model is an embedding model (its output is vectors, not text). */
export const isEmbeddingModel = (model: Pick<CatalogModel, 'outputModalities'>): boolean =>
  model.outputModalities.includes('embeddings');

/**
 * A chat model on an embeddings route, or an embedding model on a chat route, is the caller's
 * mistake: the 400 names the route that serves it.
 */
function checkOperation(model: CatalogModel, operation: Operation<unknown>): void {
  const embedding = isEmbeddingModel(model);
  if (operation.kind === 'embeddings' && !embedding) {
    throw invalidRequest(
      `${model.id} is not an embedding model. Send it to POST /v1/chat/completions (or /v1/messages, ` +
        '/v1/responses, or models/{model}:generateContent), or pick a model whose output_modalities list embeddings.',
    );
  }
  if (operation.kind === 'chat' && embedding) {
    throw invalidRequest(
      `${model.id} is an embedding model: it produces vectors, not text. Send it to POST /v1/embeddings ` +
        '(or models/{model}:embedContent and :batchEmbedContents in the Gemini form).',
    );
  }
}
