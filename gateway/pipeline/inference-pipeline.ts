/**
 * The one road every inference request takes, whatever its public form: check the model can do
 * what is asked, check the key's state, reserve the worst-case cost, stream the provider's answer,
 * and write the generation record before the last event goes out. The reservation is released
 * however the request ends: finished, failed, or left by its client.
 */
import type { Logger } from 'pino';
import type { CatalogModel, Catalog } from '../catalog/catalog';
import type { CanonicalRequest, FinishReason, PipelineEvent } from '../canonical/model';
import { countPromptTokens, countTokens } from '../canonical/token-count';
import type { Ledger } from '../billing/ledger';
import { nanosToUsd } from '../billing/money';
import { GatewayError, invalidRequest } from '../errors';
import type { KeyRegistry } from '../keys/key-registry';
import { inferenceRefusal } from '../keys/key-state';
import type { Provider } from '../providers/provider';
import type { GatewayStore, GenerationOutcome, KeyRow } from '../store/store';

export type InferenceInput = {
  key: KeyRow;
  request: CanonicalRequest;
  /** Which public form the request came in on (`chat_completions`, `messages`, `gemini`). */
  form: string;
  traceId: string;
  /** Aborts the provider call: the client left or stopped. */
  signal: AbortSignal;
  /** `performance.now()` when the request arrived, for the record's latency. */
  startedAt: number;
};

export type InferenceRun = {
  model: CatalogModel;
  promptTokens: number;
  /** Must be consumed to its end or `return()`ed: its `finally` releases the reservation. */
  events: AsyncGenerator<PipelineEvent, void, undefined>;
};

export class InferencePipeline {
  constructor(
    private readonly deps: {
      catalog: Catalog;
      registry: KeyRegistry;
      ledger: Ledger;
      store: GatewayStore;
      providers: Map<string, Provider>;
      logger: Logger;
      /** Requests one key may have running at once; past it, 429. */
      maxConcurrentPerKey: number;
    },
  ) {}

  /** Requests running per key, for the concurrency limit. */
  private readonly running = new Map<string, number>();
  /** Requests admitted and not yet finished (recorded and released), over all keys. */
  private inFlight = 0;
  private idleWaiters: Array<() => void> = [];

  /**
   * Resolves once every admitted request has finished: its record written and its reservation
   * released. Shutdown waits for it, so a stream cut at shutdown is still charged before the
   * database closes.
   */
  whenIdle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Admits the request or throws the error that refuses it; nothing has been charged then. */
  start(input: InferenceInput): InferenceRun {
    const { catalog, registry, ledger } = this.deps;
    const { request } = input;
    // The row the route authenticated may be stale: the registry replaces its rows when another
    // process commits, and settlement then adds consumption to the new rows only. Admitting
    // against the old one would miss what settled meanwhile and let the key spend past its limit.
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

    const promptTokens = countPromptTokens(request);
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

    const provider = this.deps.providers.get(model.provider);
    if (!provider) {
      throw new GatewayError(
        503,
        'provider_error',
        'provider',
        `No provider serves ${model.id} right now.`,
        30,
      );
    }

    const running = this.running.get(key.id) ?? 0;
    if (running >= this.deps.maxConcurrentPerKey) {
      throw new GatewayError(
        429,
        'rate_limited',
        'admission',
        `This key already has ${running} requests running, the most this gateway allows at once. Wait for one to finish.`,
        1,
      );
    }

    const funding = registry.fundingKeyOf(key);
    const promptNanos = promptTokens * model.promptNanos;
    const reservation = ledger.reserve(funding, {
      nanos: promptNanos + maxOutputTokens * model.completionNanos,
      promptNanos,
      completionTokenNanos: model.completionNanos,
      maxOutputTokens,
    });
    this.running.set(key.id, running + 1);
    this.inFlight += 1;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      ledger.release(reservation);
      const left = (this.running.get(key.id) ?? 1) - 1;
      if (left > 0) this.running.set(key.id, left);
      else this.running.delete(key.id);
      this.inFlight -= 1;
      if (this.inFlight === 0) {
        for (const resolve of this.idleWaiters.splice(0)) resolve();
      }
    };
    // A generator that is never started never runs its `finally`: if the client leaves before
    // the answer begins, the abort frees the reservation instead. Once started, only the
    // generator's `finally` frees it, after the delivered cost is pending, so no other request
    // can be admitted in between against money already spent.
    let started = false;
    input.signal.addEventListener('abort', () => started || finish(), { once: true });
    const events = this.run(
      input,
      model,
      provider,
      funding,
      promptTokens,
      maxOutputTokens,
      () => (started = true),
      finish,
    );
    return { model, promptTokens, events };
  }

  private async *run(
    input: InferenceInput,
    model: CatalogModel,
    provider: Provider,
    funding: KeyRow,
    promptTokens: number,
    maxOutputTokens: number,
    markStarted: () => void,
    finish: () => void,
  ): AsyncGenerator<PipelineEvent, void, undefined> {
    markStarted();
    let deliveredTokens = 0;
    let recorded = false;
    const record = (
      outcome: GenerationOutcome,
      producedTokens: number,
      finishReason: FinishReason | null,
    ) => {
      // Only the reserved output is billable: a provider that overshoots max_tokens (the
      // simulated one does with a long tool call) must not take the key past limit + grace.
      const completionTokens = Math.min(producedTokens, maxOutputTokens);
      const costNanos = promptTokens * model.promptNanos + completionTokens * model.completionNanos;
      this.deps.store.insertGeneration({
        id: input.traceId,
        keyId: input.key.id,
        fundingKeyId: funding.id,
        model: model.id,
        provider: provider.name,
        form: input.form,
        streamed: input.request.stream,
        promptTokens,
        completionTokens,
        costNanos,
        finishReason,
        outcome,
        settled: false,
        createdAt: Math.floor(Date.now() / 1000),
        settledAt: null,
        latencyMs: Math.round((performance.now() - input.startedAt) * 100) / 100,
      });
      recorded = true;
      this.deps.ledger.addPending(funding.id, costNanos);
      return { costNanos, completionTokens };
    };

    try {
      for await (const event of provider.stream(input.request, model, input.signal)) {
        if (event.type === 'finish') {
          // The record is on disk before the client sees the end of the answer.
          const { costNanos, completionTokens } = record(
            'completed',
            event.usage.completionTokens,
            event.finishReason,
          );
          yield {
            ...event,
            // The usage shown is the usage charged.
            usage: { promptTokens, completionTokens },
            costUsd: nanosToUsd(costNanos),
          };
          return;
        }
        deliveredTokens +=
          event.type === 'text-delta' ? 1 : countTokens(event.name) + countTokens(event.arguments);
        yield event;
      }
    } catch (error) {
      if (!recorded) record('ended_early', deliveredTokens, 'error');
      this.deps.logger.error({ err: error, cfRay: input.traceId }, 'provider failed');
      throw new GatewayError(
        502,
        'provider_error',
        'provider',
        'The provider failed while answering. Retry later.',
        5,
      );
    } finally {
      try {
        // The client left (or stopped reading) before the end: charge what was delivered.
        if (!recorded) record('ended_early', deliveredTokens, null);
      } finally {
        // Even if the record cannot be written, the reservation must not stay held forever.
        finish();
      }
    }
  }
}

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
