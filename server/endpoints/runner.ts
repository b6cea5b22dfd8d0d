/**
 * Runs the endpoint checks of definitions.ts against the gateway with a profile's key, one after
 * the other, and keeps each profile's last report. Every check that costs nothing runs (inference
 * on a free model included); one that costs money runs only when asked. A check that cannot run
 * (no model, no trace id, not allowed to spend) says why instead.
 */
import {
  checksReportSchema,
  type CatalogModel,
  type CheckResult,
  type ChecksReport,
} from '../../contract/workbench-api';
import type { WorkbenchContext } from '../core/context';
import { ApiFailure } from '../core/errors';
import {
  CallerGoneError,
  GatewayCallError,
  type CollectedResponse,
  type KeyPlacement,
} from '../core/gateway-client';
import { redactSecretText } from '../core/secrets';
import { minimalCallCost } from '../keys/validate-key';
import { checkDefinitions, type CheckDefinition, type RunInputs } from './definitions';
import { fetchKeyStatus } from '../keys/key-status';
import {
  classifyOutcome,
  explainOutcome,
  keyRefusalOf,
  plannedEntryNote,
  type KeyRefusal,
} from './outcome';
import { jsonOf, object } from './shapes';

function placementOf(definition: CheckDefinition): KeyPlacement {
  switch (definition.auth_form) {
    case 'none':
      return 'none';
    case 'query':
      return 'query';
    case 'x-api-key':
      return 'x-api-key';
    case 'x-goog-api-key':
      return 'x-goog-api-key';
    default:
      return 'bearer';
  }
}

/** What a paid check's minimal call costs on the model; 0 for free checks. */
function estimateCost(definition: CheckDefinition, model: CatalogModel | null): number {
  if (!definition.paid || !model) return 0;
  return minimalCallCost(model, definition.maxTokens).estimatedCostUsd;
}

/** The model a check calls: the run's text model, or its embedding model. */
function modelOf(definition: CheckDefinition, inputs: Pick<RunInputs, 'model' | 'embeddingModel'>) {
  return definition.modelKind === 'embeddings' ? inputs.embeddingModel : inputs.model;
}

/**
 * True when running the check costs money, or may: inference on a model that is not free, or
 * whose prices (or which model) are unknown.
 */
function costsMoney(definition: CheckDefinition, model: CatalogModel | null): boolean {
  if (!definition.paid) return false;
  // No text model: the catalog could not be read, the cost is unknown. No embedding model: the
  // catalog has none, and the check cannot run at all.
  if (!model) return definition.modelKind !== 'embeddings';
  const cost = minimalCallCost(model, definition.maxTokens);
  return !cost.pricesKnown || cost.estimatedCostUsd > 0;
}

/** The model a report's checks call, and whether calling it costs nothing. */
function reportModel(model: CatalogModel | null): ChecksReport['model'] {
  if (!model) return null;
  const cost = minimalCallCost(model, 16);
  return { id: model.id, free: cost.pricesKnown && cost.estimatedCostUsd === 0 };
}

/** A row that has not run (yet), with why; a planned entry says what that means, once. */
function notRun(
  definition: CheckDefinition,
  model: CatalogModel | null,
  explanation: string,
): CheckResult {
  return {
    id: definition.id,
    entry: definition.entry,
    method: definition.method,
    path: model ? definition.path.replace('{model}', model.id) : definition.path,
    auth_form: definition.auth_form,
    planned: definition.planned,
    paid: costsMoney(definition, model),
    inference: definition.paid,
    estimated_cost_usd: estimateCost(definition, model),
    outcome: 'skipped',
    status: null,
    latency_ms: null,
    cf_ray: null,
    explanation: explanation + (definition.planned ? plannedEntryNote : ''),
    ran_at: null,
  };
}

/** Why a check that costs money did not run: what it would cost, on which model. */
function inferenceNotAllowed(model: CatalogModel | null, cost: number): string {
  if (cost > 0) {
    // Two significant figures as a plain decimal ($0.0000003), never 3.0e-7.
    const about = Number(cost.toPrecision(2))
      .toFixed(12)
      .replace(/\.?0+$/, '');
    return `Costs money (it runs inference, about $${about}): run it with paid checks included.`;
  }
  // No model (the catalog could not be read), or one without prices: the cost is unknown, not $0.
  if (!model) {
    return 'Runs inference on the cheapest catalog model, which could not be read (cost unknown): run it with paid checks included.';
  }
  return `Runs inference (on ${model.id}, whose prices are unknown): run it with paid checks included.`;
}

/**
 * The gateway's words, whole: a long message ends at its last full sentence within the limit
 * (or its last word, with "…"), never mid-sentence.
 */
export function wholeSentences(text: string, limit = 400): string {
  if (text.length <= limit) return text;
  const head = text.slice(0, limit);
  const sentenceEnd = Math.max(head.lastIndexOf('. '), head.lastIndexOf('.\n'));
  if (sentenceEnd > limit / 2) return head.slice(0, sentenceEnd + 1);
  return `${head.slice(0, Math.max(head.lastIndexOf(' '), 1)).trimEnd()} …`;
}

function gatewayMessageOf(answer: CollectedResponse, keys: string[]): string | null {
  const body = jsonOf(answer);
  const error = body?.error;
  const message =
    typeof error === 'string'
      ? error
      : typeof object(error)?.message === 'string'
        ? (object(error)?.message as string)
        : typeof body?.message === 'string'
          ? body.message
          : null;
  return message === null ? null : wholeSentences(redactSecretText(message, keys));
}

/** What an available answer found, with anything key-like in the gateway's text masked. */
function summaryOf(
  definition: CheckDefinition,
  answer: CollectedResponse | null,
  keys: string[],
): string | null {
  const summary = answer ? definition.summarize?.(answer) : null;
  return summary ? redactSecretText(summary, keys) : null;
}

async function runOne(
  context: WorkbenchContext,
  definition: CheckDefinition,
  inputs: RunInputs,
  options: { includePaid: boolean; keyRefusal: KeyRefusal | null; signal?: AbortSignal },
): Promise<{ result: CheckResult; answer: CollectedResponse | null }> {
  const { includePaid, keyRefusal, signal } = options;
  const model = modelOf(definition, inputs);
  const base = notRun(definition, model, '');
  const built = definition.build(inputs);
  if ('skip' in built) {
    return {
      result: { ...notRun(definition, model, built.skip), ran_at: Date.now() },
      answer: null,
    };
  }
  if (base.paid && !includePaid) {
    return {
      result: notRun(definition, model, inferenceNotAllowed(model, base.estimated_cost_usd)),
      answer: null,
    };
  }
  const ranAt = Date.now();
  const keys = context.profiles.allKeys();
  try {
    const answer = await context.gateway.collect({
      ...built.call,
      signal,
      ...(definition.auth_form === 'none'
        ? {}
        : { key: inputs.key, keyPlacement: placementOf(definition) }),
    });
    const ok = answer.status >= 200 && answer.status < 300;
    const outcome = classifyOutcome(
      answer.status,
      ok && definition.shapeOk(answer),
      definition.expectedStatus,
    );
    return {
      result: {
        ...base,
        path: built.path,
        outcome,
        status: answer.status,
        latency_ms: answer.totalMs,
        cf_ray: answer.cfRay,
        explanation: explainOutcome(outcome, {
          status: answer.status,
          planned: definition.planned,
          expectedStatus: definition.expectedStatus,
          gatewayMessage: ok ? null : gatewayMessageOf(answer, keys),
          found: summaryOf(definition, outcome === 'available' ? answer : null, keys),
          keyRefusal,
        }),
        ran_at: ranAt,
      },
      answer,
    };
  } catch (error) {
    if (!(error instanceof GatewayCallError)) throw error;
    return {
      result: {
        ...base,
        path: built.path,
        outcome: 'failing',
        latency_ms: Date.now() - ranAt,
        explanation: `${error.message} (stage: ${error.stage})`,
        ran_at: ranAt,
        ...(error.stage === 'connect' ? { gateway_unreachable: true } : {}),
      },
      answer: null,
    };
  }
}

export class EndpointChecks {
  /** The last report per profile, kept in memory with its time. */
  private readonly reports = new Map<string, ChecksReport>();

  constructor(private readonly context: WorkbenchContext) {}

  private async modelFor(requested: string | undefined): Promise<CatalogModel | null> {
    try {
      if (requested) return await this.context.catalog.find(requested, 'model');
      return await this.context.catalog.cheapest();
    } catch (error) {
      // A model the catalog does not have is the caller's mistake; a catalog that cannot be
      // read is one of the things the checks themselves report.
      if (error instanceof ApiFailure && error.detail.field === 'model') throw error;
      return null;
    }
  }

  /** The cheapest embedding model, or the one asked for when it is one; null if none. */
  private async embeddingModelFor(asked: CatalogModel | null): Promise<CatalogModel | null> {
    if (asked?.output_modalities.includes('embeddings')) return asked;
    try {
      return await this.context.catalog.cheapest('embeddings');
    } catch {
      return null;
    }
  }

  async plan(profile: string): Promise<ChecksReport> {
    this.context.profiles.keyOf(profile);
    const previous = this.reports.get(profile);
    if (previous) return previous;
    let model: CatalogModel | null = null;
    try {
      model = await this.context.catalog.cheapest();
    } catch {
      // The plan is still useful without prices.
    }
    const models = { model, embeddingModel: await this.embeddingModelFor(null) };
    return {
      profile,
      ran_at: null,
      model: reportModel(model),
      results: checkDefinitions.map((definition) =>
        notRun(definition, modelOf(definition, models), 'Not run yet.'),
      ),
    };
  }

  /** Why the gateway refuses the key (free to ask); null when usable, or when it cannot say. */
  private async keyRefusal(key: string, signal?: AbortSignal): Promise<KeyRefusal | null> {
    try {
      return keyRefusalOf(await fetchKeyStatus(this.context, key, { signal }));
    } catch {
      // A gateway that cannot be reached: the checks themselves report it.
      return null;
    }
  }

  async run(
    profile: string,
    options: { includePaid: boolean; only?: string[]; model?: string; signal?: AbortSignal },
  ): Promise<ChecksReport> {
    const key = this.context.profiles.keyOf(profile);
    const unknown = options.only?.find(
      (id) => !checkDefinitions.some((definition) => definition.id === id),
    );
    if (unknown !== undefined) {
      throw new ApiFailure(400, {
        message: `only: unknown check "${redactSecretText(unknown).slice(0, 80)}"`,
        stage: 'validation',
        field: 'only',
      });
    }
    const model = await this.modelFor(options.model);
    const previous = this.reports.get(profile) ?? (await this.plan(profile));
    const inputs: RunInputs = {
      key,
      model,
      embeddingModel: await this.embeddingModelFor(model),
      generationId: this.context.profiles.lastTrace(profile),
    };
    const keyRefusal = await this.keyRefusal(key, options.signal);
    const results: CheckResult[] = [];
    for (const definition of checkDefinitions) {
      // The browser left: the remaining checks (paid ones included) are not worth running.
      if (options.signal?.aborted) throw new CallerGoneError();
      if (options.only && !options.only.includes(definition.id)) {
        const kept = previous.results.find((result) => result.id === definition.id);
        results.push(kept ?? notRun(definition, modelOf(definition, inputs), 'Not run yet.'));
        continue;
      }
      const { result, answer } = await runOne(this.context, definition, inputs, {
        includePaid: options.includePaid,
        keyRefusal,
        signal: options.signal,
      });
      // The generation check asks for the record of this run's own chat call when there is one.
      if (
        definition.id === 'chat-completions' &&
        answer?.cfRay &&
        answer.status >= 200 &&
        answer.status < 300
      ) {
        inputs.generationId = answer.cfRay;
        this.context.profiles.rememberTrace(profile, answer.cfRay);
      }
      results.push(result);
    }
    const report = checksReportSchema.parse({
      profile,
      ran_at: Date.now(),
      model: reportModel(model),
      key_refusal: keyRefusal,
      results,
    });
    this.reports.set(profile, report);
    return report;
  }
}
