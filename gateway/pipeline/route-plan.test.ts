import type { CatalogModel } from '../catalog/catalog';
import { Catalog } from '../catalog/catalog';
import { RoutingNames } from '../catalog/routing-names';
import type { ModelRoute } from '../providers/provider';
import { candidateModelIds, planRoutes, type ProviderSpeed } from './route-plan';

const route = (providerId: string, promptNanos: number, completionNanos: number): ModelRoute => ({
  providerId,
  upstreamModel: `${providerId}-model`,
  promptNanos,
  completionNanos,
  contextLength: 8_000,
  maxCompletionTokens: 1_000,
  inputModalities: ['text'],
  supportedParameters: [],
});

const model = (id: string, routes: ModelRoute[]): CatalogModel => ({
  id,
  name: id,
  description: id,
  created: 1,
  contextLength: 8_000,
  maxCompletionTokens: 1_000,
  promptNanos: routes[0]!.promptNanos,
  completionNanos: routes[0]!.completionNanos,
  inputModalities: ['text'],
  outputModalities: ['text'],
  supportedParameters: [],
  routes,
});

const catalog = new Catalog([
  model('m/one', [route('a', 3_000, 3_000), route('b', 1_000, 1_000)]),
  model('m/two', [route('c', 2_000, 2_000)]),
]);
const names = new RoutingNames(catalog, {
  aliases: [
    { id: 'team/pool', models: ['m/one', 'm/two'] },
    { id: 'team/cheapest', models: ['m/one', 'm/two'], sort: 'price' },
  ],
});
const pairs = (plan: Awaited<ReturnType<typeof planRoutes>>) =>
  plan.candidates.map((candidate) => `${candidate.model.id}@${candidate.route.providerId}`);

describe('the route plan', () => {
  it('forms the candidate models from an alias and the fallbacks, each once', () => {
    expect(candidateModelIds(names, 'team/pool', ['m/two', 'm/one'])).toEqual(['m/one', 'm/two']);
    expect(candidateModelIds(names, 'm/two', ['team/pool'])).toEqual(['m/two', 'm/one']);
  });

  it("tries an alias's members in order, or sorted across all their providers", async () => {
    expect(pairs(await planRoutes({ catalog, names }, 'team/pool', undefined))).toEqual([
      'm/one@a',
      'm/one@b',
      'm/two@c',
    ]);
    const sorted = await planRoutes({ catalog, names }, 'team/cheapest', undefined);
    expect(pairs(sorted)).toEqual(['m/one@b', 'm/two@c', 'm/one@a']);
    expect(sorted.severalModels).toBe(true);
  });

  it('sorts by throughput, putting providers without figures last in file order', async () => {
    const speeds = async (id: string) =>
      new Map<string, ProviderSpeed>(
        id === 'm/one' ? [['b', { latencyMs: 900, tokensPerSecond: 80 }]] : [],
      );
    const plan = await planRoutes({ catalog, names, speeds }, 'm/one', {
      provider: { sort: 'throughput' },
      models: [],
      dropped: [],
    });
    expect(pairs(plan)).toEqual(['m/one@b', 'm/one@a']);
  });

  it('keeps fallback models when allow_fallbacks is false, and records what it skipped', async () => {
    const plan = await planRoutes({ catalog, names }, 'm/one', {
      provider: { allowFallbacks: false },
      models: ['m/two'],
      dropped: [],
    });
    expect(pairs(plan)).toEqual(['m/one@a', 'm/two@c']);
    expect(plan.skipped).toEqual([{ model: 'm/one', provider: 'b', reason: 'no_fallbacks' }]);
  });

  it('refuses, naming the lists, when they leave nothing', async () => {
    await expect(
      planRoutes({ catalog, names }, 'm/one', {
        provider: { only: ['c'] },
        models: [],
        dropped: [],
      }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining('provider.only') });
  });
});
