/** What every route module gets: the gateway client, the profiles, the catalog and a logger. */
import type { Logger } from 'pino';
import type { CatalogService } from './catalog';
import type { GatewayClient } from './gateway-client';
import type { ProfileStore } from './profiles';

export interface WorkbenchContext {
  mode: 'embedded' | 'external';
  gateway: GatewayClient;
  profiles: ProfileStore;
  catalog: CatalogService;
  logger: Logger;
}
