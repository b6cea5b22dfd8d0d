/**
 * The embedded default's demo keys, made on the gateway's database before its process starts
 * (first run, or when they are gone), so they can become the workbench's key profiles.
 */
import type { GatewayConfig } from '../gateway/config';
import { demoKeysFile, ensureDemoKeys } from '../gateway/demo-keys';
import { KeyAdmin } from '../gateway/keys/key-admin';
import { createKeyDigester, loadPepper } from '../gateway/keys/key-material';
import { KeyRegistry } from '../gateway/keys/key-registry';
import { openSqliteStore } from '../gateway/store/sqlite-store';

/** Returns the demo keys of the database `config` names, creating them when needed. */
export async function prepareDemoKeys(config: GatewayConfig): Promise<Record<string, string>> {
  const store = openSqliteStore(config.databasePath);
  try {
    const digest = createKeyDigester(loadPepper(config.databasePath, config.keyPepper));
    const registry = await KeyRegistry.open(store, digest);
    const admin = new KeyAdmin(store, digest, () => registry.reload());
    return await ensureDemoKeys(admin, registry, demoKeysFile(config.databasePath));
  } finally {
    await store.close();
  }
}
