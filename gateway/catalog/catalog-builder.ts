/**
 * The catalog the gateway serves: the simulated models (unless the providers file drops them)
 * plus every model of the providers file. A model listed by several providers is one catalog
 * entry with several routes, tried in file order.
 */
import type { ProvidersFile } from '../providers/providers-file';
import { simulatedModels } from '../providers/simulated/models';
import type { CatalogModel } from './catalog';

/** When the catalog was built: file models carry no `created` of their own. */
const startedAt = Math.floor(Date.now() / 1000);

export function buildCatalogModels(file: ProvidersFile | null): CatalogModel[] {
  const models = new Map<string, CatalogModel>();
  if (!file || file.includeSimulatedModels) {
    for (const model of simulatedModels)
      models.set(model.id, { ...model, routes: [...model.routes] });
  }
  if (!file) return [...models.values()];
  // File order decides fallback order, whatever the kind.
  for (const provider of orderedProviders(file)) {
    for (const model of provider.models) {
      const { id: _id, name: _name, ...route } = model;
      const existing = models.get(model.id);
      if (existing) existing.routes.push(route);
      else {
        models.set(model.id, {
          id: model.id,
          name: model.name,
          description: `${model.name}, served by ${model.providerId}.`,
          created: startedAt,
          contextLength: model.contextLength,
          maxCompletionTokens: model.maxCompletionTokens,
          promptNanos: model.promptNanos,
          completionNanos: model.completionNanos,
          inputModalities: model.inputModalities,
          outputModalities: model.outputModalities ?? ['text'],
          supportedParameters: model.supportedParameters,
          routes: [route],
        });
      }
    }
  }
  return [...models.values()];
}

/** The file's providers of every kind, in the order the file lists them. */
function orderedProviders(file: ProvidersFile) {
  return [...file.upstream, ...file.simulated].sort(
    (a, b) => file.order.indexOf(a.id) - file.order.indexOf(b.id),
  );
}
