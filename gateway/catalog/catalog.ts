/**
 * The model catalog: what `GET /v1/models` lists and what every form resolves a model name
 * against. Prices are kept in nanos for billing and written out as the decimal strings the
 * chat-completion ecosystem expects.
 */
import { nanosToDecimalString, type Nanos } from '../billing/money';
import { GatewayError } from '../errors';
import type { ModelRoute } from '../providers/provider';

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
  /** Bare model names (`chat-standard`) that name exactly one model. */
  private readonly byBareName = new Map<string, CatalogModel | null>();
  /** The list response, serialised once: the catalog does not change while the gateway runs. */
  readonly listBody: string;

  constructor(readonly models: CatalogModel[]) {
    this.byId = new Map(models.map((model) => [model.id, model]));
    for (const model of models) {
      const bare = model.id.slice(model.id.indexOf('/') + 1);
      this.byBareName.set(bare, this.byBareName.has(bare) ? null : model);
    }
    this.listBody = JSON.stringify({ object: 'list', data: models.map(toWireEntry) });
  }

  find(id: string): CatalogModel | undefined {
    return this.byId.get(id);
  }

  /** Resolves a model named by full id or, where unambiguous, by its bare name; else a 404. */
  resolve(name: string, options: { allowBareName?: boolean } = {}): CatalogModel {
    const model =
      this.byId.get(name) ?? (options.allowBareName ? this.byBareName.get(name) : undefined);
    if (model) return model;
    throw new GatewayError(
      404,
      'model_not_found',
      'validation',
      `The model '${name.slice(0, 200)}' is not in the catalog. List the models with GET /v1/models; ids look like <author>/<model>.`,
    );
  }
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
