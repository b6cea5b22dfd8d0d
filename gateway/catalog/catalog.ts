/**
 * The model catalog: what `GET /v1/models` lists and what every form resolves a model name
 * against. Prices are kept in nanos for billing and written out as the decimal strings the
 * chat-completion ecosystem expects.
 */
import { nanosToDecimalString, type Nanos } from '../shared/money';
import { GatewayError, invalidRequest } from '../errors';
import type { ModelRoute } from '../providers/provider';

/** How many of the models sharing an ambiguous bare name an error lists. */
const MAX_CANDIDATES_SHOWN = 10;

export type CatalogModel = {
  /** `<author>/<model>` or `<author>/<model>:<variant>`. */
  id: string;
  name: string;
  description: string;
  created: number;
  contextLength: number;
  maxCompletionTokens: number;
  promptNanos: Nanos;
  completionNanos: Nanos;
  inputModalities: string[];
  outputModalities: string[];
  supportedParameters: string[];
  /**
   * The providers that serve it, in the order they are tried: the next takes over when one
   * fails before the answer starts. The entry's own prices and limits are the first one's.
   */
  routes: ModelRoute[];
};

export class Catalog {
  private readonly byId: Map<string, CatalogModel>;
  /** Bare model names (`chat-standard`) and the models each names: one, or several (ambiguous). */
  private readonly byBareName = new Map<string, CatalogModel[]>();
  /** The list response, serialised once: the catalog does not change while the gateway runs. */
  readonly listBody: string;

  constructor(readonly models: CatalogModel[]) {
    this.byId = new Map(models.map((model) => [model.id, model]));
    for (const model of models) {
      const bare = model.id.slice(model.id.indexOf('/') + 1);
      const named = this.byBareName.get(bare);
      if (named) named.push(model);
      else this.byBareName.set(bare, [model]);
    }
    this.listBody = JSON.stringify({ object: 'list', data: models.map(toWireEntry) });
  }

  find(id: string): CatalogModel | undefined {
    return this.byId.get(id);
  }

  /**
   * Resolves a model named by full id or, where unambiguous, by its bare name; else a 404. A bare
   * name several models share is a 400 listing their full ids, since guessing one could bill the
   * caller for a model they did not mean.
   */
  resolve(name: string, options: { allowBareName?: boolean } = {}): CatalogModel {
    const exact = this.byId.get(name);
    if (exact) return exact;
    const named = options.allowBareName ? (this.byBareName.get(name) ?? []) : [];
    if (named.length === 1) return named[0]!;
    if (named.length > 1) {
      const shown = named.slice(0, MAX_CANDIDATES_SHOWN).map((model) => model.id);
      const more = named.length - shown.length;
      throw invalidRequest(
        `The model name '${name.slice(0, 200)}' is ambiguous: ${named.length} catalog models ` +
          `have it (${shown.join(', ')}${more > 0 ? `, and ${more} more` : ''}). Use the full id, ` +
          `e.g. models/${shown[0]}.`,
      );
    }
    throw new GatewayError({
      status: 404,
      type: 'model_not_found',
      stage: 'validation',
      message: `The model '${name.slice(0, 200)}' is not in the catalog. List the models with GET /v1/models; ids look like <author>/<model>.`,
    });
  }
}

/** A route's prompt-cache prices, as OpenRouter's catalog names them, where the file sets them. */
export function cachePricing(route: ModelRoute | undefined) {
  return {
    ...(route?.cacheReadNanos !== undefined && {
      input_cache_read: nanosToDecimalString(route.cacheReadNanos),
    }),
    ...(route?.cacheWriteNanos !== undefined && {
      input_cache_write: nanosToDecimalString(route.cacheWriteNanos),
    }),
    ...(route?.cacheWriteHourNanos !== undefined && {
      input_cache_write_1h: nanosToDecimalString(route.cacheWriteHourNanos),
    }),
  };
}

export function toWireEntry(model: CatalogModel) {
  const [author] = model.id.split('/');
  return {
    id: model.id,
    object: 'model',
    name: model.name,
    created: model.created,
    owned_by: author,
    description: model.description,
    context_length: model.contextLength,
    pricing: {
      prompt: nanosToDecimalString(model.promptNanos),
      completion: nanosToDecimalString(model.completionNanos),
      ...cachePricing(model.routes[0]),
    },
    architecture: {
      input_modalities: model.inputModalities,
      output_modalities: model.outputModalities,
    },
    top_provider: {
      context_length: model.contextLength,
      max_completion_tokens: model.maxCompletionTokens,
    },
    supported_parameters: model.supportedParameters,
    /** Provider ids in fallback order; `GET /v1/models/{id}/endpoints` has each one's details. */
    providers: model.routes.map((route) => route.providerId),
  };
}
