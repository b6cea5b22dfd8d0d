/**
 * What every route module gets: the gateway client, the profiles, the catalog, a logger and, in
 * embedded mode, the state of the gateway process.
 */
import type { Logger } from 'pino';
import type { EmbeddedGatewayStatus } from '../../contract/workbench-api';
import type { CatalogService } from '../catalog/catalog';
import type { GatewayClient } from './gateway-client';
import type { ProfileStore } from '../keys/profiles';

export interface WorkbenchContext {
  mode: 'embedded' | 'external';
  gateway: GatewayClient;
  profiles: ProfileStore;
  catalog: CatalogService;
  logger: Logger;
  /** Embedded mode: the supervised gateway process's state; null when nobody supervises one. */
  embeddedGateway: (() => EmbeddedGatewayStatus) | null;
}
