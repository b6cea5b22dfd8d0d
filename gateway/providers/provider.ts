/**
 * What the inference pipeline needs of a provider: a stream of canonical events for a canonical
 * request. A provider never sees a public form, a key or the gateway's money.
 */
import type { CatalogModel } from '../catalog/catalog';
import type { CanonicalEvent, CanonicalRequest } from '../canonical/model';

export interface Provider {
  readonly name: string;
  /**
   * Streams the answer. It stops early, without throwing, when `signal` aborts; the last event
   * of a whole answer is `finish`.
   */
  stream(request: CanonicalRequest, model: CatalogModel, signal: AbortSignal): AsyncIterable<CanonicalEvent>;
}
