/**
 * What one upstream provider kind supplies to the shared upstream engine (upstream-provider.ts).
 * Each kind is a folder with the same files (api, wire-schema, canonical-to-request,
 * response-to-canonical, stream-to-canonical, finish-reason, error-mapping) and an `index.ts` that
 * assembles this object from them. The engine owns the HTTP, timeouts, SSE framing and aborts;
 * the adapter owns the vendor's wire format.
 */
import type {
  CanonicalEmbeddingRequest,
  CanonicalEvent,
  CanonicalRequest,
  EmbeddingResult,
  ReportedUsage,
} from '../../canonical/model';
import type { ModelRoute } from '../provider';
import type { ProviderConfig, UpstreamKind } from './provider-config';

/** One server-sent event as the upstream sent it. */
export type UpstreamSseEvent = { event?: string; data: string };

export type UpstreamCall = {
  url: string;
  headers: Record<string, string>;
  body: unknown;
};

export interface ProviderAdapter<StreamState> {
  readonly kind: UpstreamKind;
  /**
   * The HTTP call for a request: URL, headers (auth the vendor's way, plus `config.headers`) and
   * JSON body. Throws a GatewayError 400 naming the field and the provider when the request uses
   * a field this kind cannot honour. Image URLs have already been inlined when the config asks.
   */
  buildCall(request: CanonicalRequest, route: ModelRoute, config: ProviderConfig): UpstreamCall;
  /** A whole (non-streamed) answer → canonical events, ending with `finish`. */
  fromResponse(body: unknown, providerId: string): CanonicalEvent[];
  createStreamState(): StreamState;
  /**
   * One upstream event → the canonical events it carries (often none). Throws an UpstreamError
   * (`in_band` or `malformed`) for an error event or a chunk it cannot read; the engine cleans an
   * `in_band` error's message, the upstream's own text, before anyone sees it.
   */
  transformStreamEvent(
    state: StreamState,
    event: UpstreamSseEvent,
    providerId: string,
  ): CanonicalEvent[];
  /**
   * The upstream's stream ended: the events still held (typically `finish`, once the usage that
   * follows it has arrived). Throws an UpstreamError `cut` if the answer had not finished.
   */
  finishStream(state: StreamState, providerId: string): CanonicalEvent[];
  /**
   * The usage the stream has reported so far (Anthropic's `message_start` gives the prompt at
   * once), for an answer that ends without its finish: its prompt is then charged as the
   * upstream counted it. Null when it has reported none.
   */
  usageSoFar(state: StreamState): ReportedUsage | null;
  /**
   * A non-2xx answer → the upstream's message and error type, read from its error body (which may
   * be anything, including HTML). The engine cleans the message before anyone sees it.
   */
  readError(status: number, bodyText: string): { message: string; type?: string };
  /** The kind's embeddings endpoint; absent for a kind that has none (Anthropic). */
  readonly embeddings?: EmbeddingAdapter;
}

/** What a provider kind supplies for embeddings; the engine splits, sends and sums. */
export interface EmbeddingAdapter {
  /** The most inputs one upstream call may carry: bigger requests are split into calls of this size. */
  readonly batchLimit: number;
  /** The call for one batch (at most `batchLimit` inputs); throws the 400 for an input it cannot send. */
  buildCall(
    request: CanonicalEmbeddingRequest,
    route: ModelRoute,
    config: ProviderConfig,
  ): UpstreamCall;
  /** One batch's answer → its vectors in input order and its token count (null: none given). */
  fromResponse(body: unknown, providerId: string, inputs: number): EmbeddingResult;
}
