/**
 * The catalog as a part: its models (from the providers file, or given by a test), the aliases
 * and presets beside them, and the admin API's presets kept in the store and watched there.
 */
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config';
import type { Assembled } from '../shared/assembly';
import type { GatewayStore } from '../store/store';
import { Catalog, type CatalogModel } from './catalog';
import { buildCatalogModels } from './catalog-builder';
import { RoutingNames } from './routing-names';
import { StoredPresets } from './stored-presets';

/** How often the store's preset version is checked: another instance's change is served within. */
const PRESETS_POLL_MS = 500;

export async function createCatalog(
  config: GatewayConfig,
  deps: { store: GatewayStore; logger: Logger; models?: CatalogModel[] },
): Promise<Assembled<{ catalog: Catalog; names: RoutingNames; presets: StoredPresets }>> {
  const catalog = new Catalog(deps.models ?? buildCatalogModels(config.providers));
  const names = new RoutingNames(catalog, config.providers);
  const presets = new StoredPresets(deps.store.presets, names, deps.logger);
  await presets.reload();
  return { part: { catalog, names, presets }, close: presets.watch(PRESETS_POLL_MS) };
}
