/**
 * What the inference pipeline needs of a provider: a stream of canonical events for a canonical
 * request. A provider never sees a public form's response shape, a gateway key or the gateway's
 * money. Providers are keyed by their `id` (the providers file's), never by a global name.
 */
import type {
  CanonicalEmbeddingRequest,
  CanonicalEvent,
  CanonicalRequest,
  EmbeddingResult,
  ReportedUsage,
} from '../canonical/model';

export type ProviderKind = 'openai-compatible' | 'anthropic' | 'gemini' | 'simulated';

/** One provider's offer of one catalog model: what it is called upstream and what it costs. */
export type ModelRoute = {
  providerId: string;
  /** The model name sent to the upstream. */
  upstreamModel: string;
  /** Nano-USD per prompt and completion token, on this provider. */
  promptNanos: number;
  completionNanos: number;
  /**
   * Nano-USD per prompt token read from, and written to, the upstream's prompt cache, where the
   * providers file prices them apart (Anthropic bills reads at a tenth of the prompt price and
   * writes at 1.25 times it; OpenAI and Gemini bill cached reads lower). Absent: the prompt price.
   */
  cacheReadNanos?: number;
  cacheWriteNanos?: number;
  /**
   * Nano-USD per prompt token written to a one-hour cache entry (Anthropic bills it at twice the
   * prompt price, against 1.25 times for five minutes). Absent: the cache-write price.
   */
  cacheWriteHourNanos?: number;
  contextLength: number;
  maxCompletionTokens: number;
  inputModalities: string[];
  /** `['embeddings']` for an embedding model; absent: text. */
  outputModalities?: string[];
  supportedParameters: string[];
};

export interface Provider {
  readonly id: string;
  readonly kind: ProviderKind;
  /**
   * Streams the answer. It stops early, without throwing, when `signal` aborts; the last event
   * of a whole answer is `finish`. A failure is thrown as an `UpstreamError` (or a `GatewayError`
   * when the request itself cannot be sent to this kind, e.g. a field it cannot honour).
   * `request.maxTokens` is set: the pipeline passes the output bound it reserved for.
   */
  stream(
    request: CanonicalRequest,
    route: ModelRoute,
    signal: AbortSignal,
    /**
     * Told, as the answer ends by any way but its finish (an error, the client leaving), the usage
     * the upstream had reported by then, so its prompt count is still the one charged.
     */
    onPartialUsage?: (usage: ReportedUsage) => void,
  ): AsyncIterable<CanonicalEvent>;
  /**
   * Embeds every input, in order, in as many upstream calls as the upstream's batch limit needs,
   * their usage summed. Absent for a kind that has no embeddings (Anthropic): the providers file
   * cannot give it an embedding model. Throws as `stream` does; an abort ends it with a 499.
   */
  embed?(
    request: CanonicalEmbeddingRequest,
    route: ModelRoute,
    signal: AbortSignal,
  ): Promise<EmbeddingResult>;
}
