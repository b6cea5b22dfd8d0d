/**
 * An operation is what a request asks a model to do (chat, embeddings), as a value that admission,
 * routing and metering run: admission asks it what the request demands (its prompt count and
 * output bound, or the 400 that refuses it), routing asks it to make one provider call, and
 * metering prices what that call reports. Each public form names the operation it runs.
 */
import type { CatalogModel } from '../catalog/catalog';
import { embeddingTokens } from '../canonical/embedding-count';
import type {
  CanonicalEmbeddingRequest,
  CanonicalEvent,
  CanonicalRequest,
  EmbeddingResult,
  ReportedUsage,
  TranslationReport,
} from '../canonical/model';
import { countPromptTokens } from '../canonical/token-count';
import { askedCacheWrites, type CacheWriteAsk } from '../canonical/prompt-cache';
import { invalidRequest } from '../errors';
import type { ModelRoute, Provider } from '../providers/provider';
import { outputBound } from './output-bound';
import { conservativePromptTokens, conservativeTextTokens } from './usage-estimate';

export type OperationKind = 'chat' | 'embeddings';

/** What a request demands of its key: admission reserves for it and the rate limits count it. */
export type Demand = {
  /** The gateway's own prompt count. */
  promptTokens: number;
  /** The most output it may produce (0 for embeddings). */
  maxOutputTokens: number;
  /** A prompt count above any upstream tokenizer's, asked only where a real upstream may answer. */
  upstreamPromptTokens: () => number;
  /** What measuring changed in the request (a lowered `max_tokens`), reported to the client. */
  adjusted: string[];
  /** The prompt-cache writes the request asks for, which admission reserves at their price. */
  cacheWrites: CacheWriteAsk;
};

export type Operation<Request, Answer = unknown> = {
  readonly kind: OperationKind;
  /** The request's demand on this model, or the 400 that refuses it (checked before the key's state). */
  measure(request: Request, model: CatalogModel): Demand;
  /** One provider call, resolved once its answer has begun (routing retries and falls back around it). */
  call(
    provider: Provider,
    request: Request,
    route: ModelRoute,
    signal: AbortSignal,
  ): Promise<Answer>;
  /** Closes an answer that began but will not be used (the client left, the lease was lost). */
  discard(answer: Answer): Promise<void>;
};

/** A chat answer that has begun: its first event, the rest to come, and the usage reported early. */
export type ChatStart = {
  iterator: AsyncIterator<CanonicalEvent, void, undefined>;
  first: IteratorResult<CanonicalEvent, void>;
  /** The usage the upstream had reported when its answer ended without its finish. */
  partial: { usage: ReportedUsage | null };
  /** What the answering attempt's converter dropped or changed, with admission's adjustments. */
  translation: TranslationReport;
};

export const chatOperation: Operation<CanonicalRequest, ChatStart> = {
  kind: 'chat',
  measure(request, model) {
    checkCapabilities(model, request);
    // Counting stops once the prompt is known not to fit: past the context it is refused anyway.
    const promptTokens = countPromptTokens(request, model.contextLength + 1);
    const { maxOutputTokens, adjusted } = outputBound(request, model);
    // A bound the client set counts against the context as lowered; none set counts nothing.
    const askedOutput = request.maxTokens === null ? 0 : maxOutputTokens;
    if (promptTokens + askedOutput > model.contextLength) {
      throw invalidRequest(
        `The prompt is about ${promptTokens} tokens; with max_tokens ${askedOutput} it passes ` +
          `${model.id}'s context length of ${model.contextLength}. Shorten the conversation or lower max_tokens.`,
      );
    }
    return {
      promptTokens,
      maxOutputTokens,
      upstreamPromptTokens: () => conservativePromptTokens(request),
      adjusted,
      cacheWrites: askedCacheWrites(request),
    };
  },
  async call(provider, request, route, signal) {
    const partial: ChatStart['partial'] = { usage: null };
    // Each attempt's converter reports for itself: a fallback may drop other fields. The
    // request's own (admission's adjustments, provider options not honoured) start every report.
    const translation: TranslationReport = {
      dropped: [...(request.translation?.dropped ?? [])],
      adjusted: [...(request.translation?.adjusted ?? [])],
    };
    const answer = provider.stream({ ...request, translation }, route, signal, (usage) => {
      partial.usage = usage;
    });
    const iterator = answer[Symbol.asyncIterator]();
    const first = await iterator.next();
    return { iterator, first, partial, translation };
  },
  async discard(answer) {
    await answer.iterator.return?.(undefined);
  },
};

/**
 * Embeddings: each input must fit the model's context (an embedding model's is per input); the
 * request is priced by its inputs' tokens alone, with no output to reserve for.
 */
export const embeddingsOperation: Operation<CanonicalEmbeddingRequest, EmbeddingResult> = {
  kind: 'embeddings',
  measure(request, model) {
    let promptTokens = 0;
    request.inputs.forEach((input, index) => {
      // Counting stops past the context: such an input is refused anyway.
      const tokens = embeddingTokens(input, model.contextLength + 1);
      if (tokens > model.contextLength) {
        throw invalidRequest(
          `Input ${index} is about ${tokens} tokens, more than ${model.id} embeds at once (${model.contextLength}). Shorten or split it.`,
        );
      }
      promptTokens += tokens;
    });
    return {
      promptTokens,
      maxOutputTokens: 0,
      adjusted: [],
      cacheWrites: 'none',
      upstreamPromptTokens: () =>
        request.inputs.reduce(
          (sum, input) =>
            sum + (typeof input === 'string' ? conservativeTextTokens(input) : input.length),
          0,
        ),
    };
  },
  call(provider, request, route, signal) {
    // The providers file gives no embedding model to a kind without embeddings (Anthropic).
    if (!provider.embed)
      throw invalidRequest(`Provider '${provider.id}' (${provider.kind}) has no embeddings.`);
    return provider.embed(request, route, signal);
  },
  discard: () => Promise.resolve(),
};

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
