/**
 * The route plan: every (model, provider) pair that may answer a request, in the order routing
 * tries them, and why the others were left out. It is formed from the id the client named (a
 * catalog model, an alias `<namespace>/<name>` or a preset, already applied), its fallback
 * models, and its provider preferences (`only`, `ignore`, `max_price`, `order`, `sort`,
 * `allow_fallbacks`). Admission reserves for the dearest pair, routing walks the pairs.
 * docs/routing.md says what each preference does.
 */
import type { PreferenceSkip } from '../../contract/routing';
import type { Catalog, CatalogModel } from '../catalog/catalog';
import type { RoutingNames } from '../catalog/routing-names';
import type { ProviderPreferences, ProviderSort, RequestRouting } from '../canonical/model';
import { invalidRequest, type GatewayError } from '../errors';
import type { ModelRoute } from '../providers/provider';

/** One provider's offer of one candidate model. */
export type Candidate = { model: CatalogModel; route: ModelRoute };

/** Why a route was not tried; a breaker open (`cooling_down`) and failures are routing's. */
export type SkipReason = PreferenceSkip;

export type SkippedRoute = { model: string; provider: string; reason: SkipReason };

export type RoutePlan = {
  /** The id the client named: a catalog model, an alias, or a preset. */
  requested: string;
  /** In the order they are tried; never empty. */
  candidates: Candidate[];
  /** The routes the preferences left out, in the order they would have come. */
  skipped: SkippedRoute[];
  /** Whether more than one model may answer (then each attempt names its model). */
  severalModels: boolean;
};

/** Each provider's figures over the last 30 minutes, for `sort` by latency or throughput. */
export type ProviderSpeed = { latencyMs: number | null; tokensPerSecond: number | null };
/** A model's providers' figures (absent: no traffic yet). */
export type SpeedsOf = (modelId: string) => Promise<Map<string, ProviderSpeed>>;

export type PlanDeps = { catalog: Catalog; names?: RoutingNames; speeds?: SpeedsOf };

/**
 * The catalog models a request may be answered by, in order: the named model (an alias expands to
 * its members), then each fallback likewise, each model once. The one place the candidate list is
 * formed: a key's allowed models belong here, filtering these ids.
 */
export function candidateModelIds(
  names: RoutingNames | undefined,
  requested: string,
  fallbacks: readonly string[],
): string[] {
  const ids: string[] = [];
  for (const name of [requested, ...fallbacks]) {
    for (const id of names?.alias(name)?.models ?? [name]) if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** Plans the routes of a request, or throws the 4xx that says why nothing may answer it. */
export async function planRoutes(
  deps: PlanDeps,
  requested: string,
  routing: RequestRouting | undefined,
  /** The 403 for a model the key may not use (its `allowed_models`), or null. */
  refusal: (modelId: string) => GatewayError | null = () => null,
): Promise<RoutePlan> {
  const preferences = routing?.provider ?? {};
  const ids = candidateModelIds(deps.names, requested, routing?.models ?? []);
  const resolved = ids.map((id, index) =>
    index === 0 ? deps.catalog.resolve(id) : resolveFallback(deps.catalog, id),
  );
  // Only the members and fallbacks the key may use are tried; none of them: the first's 403.
  const models = resolved.filter((model) => refusal(model.id) === null);
  if (models.length === 0) throw refusal(resolved[0]!.id)!;
  const aliasSort = deps.names?.alias(requested)?.sort;
  const skipped: SkippedRoute[] = [];
  let candidates: Candidate[] = [];
  for (const model of models) {
    const kept: Candidate[] = [];
    for (const route of model.routes) {
      const reason = excluded(route, preferences);
      if (reason) skipped.push({ model: model.id, provider: route.providerId, reason });
      else kept.push({ model, route });
    }
    const ordered = inOrder(await sorted(deps, kept, preferences.sort), preferences.order);
    candidates.push(...withoutFallbacks(ordered, preferences, skipped));
  }
  // An alias's own sort orders its members' routes together; the request's `sort` wins.
  if (aliasSort && !preferences.sort) candidates = await sorted(deps, candidates, aliasSort);
  if (candidates.length === 0) throw nothingLeft(models, preferences, skipped);
  return {
    requested: routing?.preset ?? requested,
    candidates,
    skipped,
    severalModels: new Set(candidates.map((candidate) => candidate.model.id)).size > 1,
  };
}

/** A fallback the catalog does not know is the caller's mistake in `models`, named so. */
function resolveFallback(catalog: Catalog, id: string): CatalogModel {
  const model = catalog.find(id);
  if (model) return model;
  throw invalidRequest(
    `Invalid field 'models': '${id.slice(0, 200)}' is neither a catalog model nor an alias. List them with GET /v1/models.`,
  );
}

/** Per million tokens, as `max_price` is given, from nanos per token. */
const perMillionUsd = (nanosPerToken: number) => nanosPerToken / 1_000;

function excluded(route: ModelRoute, preferences: ProviderPreferences): SkipReason | null {
  if (preferences.only && !preferences.only.includes(route.providerId)) return 'not_in_only';
  if (preferences.ignore?.includes(route.providerId)) return 'ignored';
  const limit = preferences.maxPrice;
  if (
    limit &&
    ((limit.prompt !== undefined && perMillionUsd(route.promptNanos) > limit.prompt) ||
      (limit.completion !== undefined && perMillionUsd(route.completionNanos) > limit.completion))
  )
    return 'over_max_price';
  return null;
}

/**
 * Sorted by price (prompt plus completion per token), median latency, or output tokens per
 * second. A route without traffic in the last 30 minutes has no figure: it goes after those with
 * one, in file order, so a new provider is still tried once the measured ones fail.
 */
async function sorted(
  deps: PlanDeps,
  candidates: Candidate[],
  sort: ProviderSort | undefined,
): Promise<Candidate[]> {
  if (!sort || candidates.length < 2) return candidates;
  if (sort === 'price') {
    const price = ({ route }: Candidate) => route.promptNanos + route.completionNanos;
    return [...candidates].sort((one, other) => price(one) - price(other));
  }
  const speeds = new Map<string, Map<string, ProviderSpeed>>();
  for (const { model } of candidates)
    if (!speeds.has(model.id)) speeds.set(model.id, (await deps.speeds?.(model.id)) ?? new Map());
  const figure = ({ model, route }: Candidate): number | null => {
    const speed = speeds.get(model.id)?.get(route.providerId);
    // Lower is better for both: throughput is negated.
    if (sort === 'latency') return speed?.latencyMs ?? null;
    return speed?.tokensPerSecond == null ? null : -speed.tokensPerSecond;
  };
  return [...candidates].sort((one, other) => {
    const a = figure(one);
    const b = figure(other);
    if (a === null || b === null) return a === null ? (b === null ? 0 : 1) : -1;
    return a - b;
  });
}

/** The providers `order` names first, in its order; the rest after, as they were. */
function inOrder(candidates: Candidate[], order: string[] | undefined): Candidate[] {
  if (!order?.length) return candidates;
  const rank = (candidate: Candidate) => {
    const index = order.indexOf(candidate.route.providerId);
    return index === -1 ? order.length : index;
  };
  return [...candidates].sort((one, other) => rank(one) - rank(other));
}

/**
 * `allow_fallbacks: false`: of a model's providers, only the first (or those `order` names) is
 * tried; fallback models are still tried, as OpenRouter does.
 */
function withoutFallbacks(
  candidates: Candidate[],
  preferences: ProviderPreferences,
  skipped: SkippedRoute[],
): Candidate[] {
  if (preferences.allowFallbacks !== false) return candidates;
  const named = new Set(preferences.order ?? []);
  return candidates.filter((candidate, index) => {
    const kept = named.size > 0 ? named.has(candidate.route.providerId) : index === 0;
    if (!kept)
      skipped.push({
        model: candidate.model.id,
        provider: candidate.route.providerId,
        reason: 'no_fallbacks',
      });
    return kept;
  });
}

/** The 400 when the preferences leave no route: it names the limit or the lists that did it. */
function nothingLeft(
  models: CatalogModel[],
  preferences: ProviderPreferences,
  skipped: SkippedRoute[],
) {
  const named = models.map((model) => model.id).join(', ');
  const limit = preferences.maxPrice;
  if (limit && skipped.some((skip) => skip.reason === 'over_max_price')) {
    const routes = models.flatMap((model) => model.routes);
    const cheapest = (price: (route: ModelRoute) => number) =>
      perMillionUsd(Math.min(...routes.map(price)));
    const asked = [
      limit.prompt !== undefined && `prompt ${limit.prompt}`,
      limit.completion !== undefined && `completion ${limit.completion}`,
    ]
      .filter(Boolean)
      .join(', ');
    return invalidRequest(
      `No provider of ${named} is within provider.max_price (${asked} USD per million tokens): ` +
        `the lowest prices are prompt ${cheapest((route) => route.promptNanos)} and completion ` +
        `${cheapest((route) => route.completionNanos)}. Raise max_price or remove it. Nothing was charged.`,
    );
  }
  return invalidRequest(
    `No provider of ${named} is left by provider.only, provider.ignore and provider.allow_fallbacks ` +
      `(its providers: ${[...new Set(models.flatMap((model) => model.routes.map((route) => route.providerId)))].join(', ')}). ` +
      'Change the lists. Nothing was charged.',
  );
}
