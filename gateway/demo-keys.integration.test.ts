import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeyAdmin } from './keys/key-admin';
import { createKeyDigester } from './keys/key-material';
import { KeyRegistry } from './keys/key-registry';
import { openSqliteStore } from './store/sqlite-store';
import type { GatewayStore } from './store/store';
import { tempFolder } from '../testing/gateway-support';
import { demoKeysFile, DEMO_PROFILE_NAMES, ensureDemoKeys } from './demo-keys';

describe('the embedded demo keys', () => {
  let folder: string;
  let file: string;
  let store: GatewayStore;
  let registry: KeyRegistry;
  let admin: KeyAdmin;

  beforeEach(async () => {
    folder = tempFolder();
    const database = path.join(folder, 'gateway.db');
    file = demoKeysFile(database);
    store = openSqliteStore(database);
    const digest = createKeyDigester('a-test-pepper-of-enough-length-0123456789');
    registry = await KeyRegistry.open(store, digest);
    admin = new KeyAdmin(store, digest, () => registry.reload());
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  const accountsNamed = async (name: string) =>
    (await admin.list()).filter((key) => key.kind === 'account' && key.name === name);

  it('creates the set once, readable by its owner only, and keeps it on the next start', async () => {
    const first = await ensureDemoKeys(admin, registry, file);
    expect(Object.keys(first).sort()).toEqual([...DEMO_PROFILE_NAMES].sort());
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(await ensureDemoKeys(admin, registry, file)).toEqual(first);
    expect(await accountsNamed('demo-account')).toHaveLength(1);
  });

  it('keeps the set when a child was rotated or revoked from the workbench', async () => {
    const first = await ensureDemoKeys(admin, registry, file);
    const shared = (await registry.findByKey(first['demo-shared-child']!))!;
    const allocated = (await registry.findByKey(first['demo-allocated-child']!))!;
    await admin.rotate(shared.id);
    await admin.revoke(allocated.id);
    expect(await ensureDemoKeys(admin, registry, file)).toEqual(first);
    expect(await accountsNamed('demo-account')).toHaveLength(1);
  });

  it('makes a new set when the account key is gone, or the file is', async () => {
    const first = await ensureDemoKeys(admin, registry, file);
    const account = (await registry.findByKey(first['demo-account']!))!;
    await admin.revoke(account.id);
    const second = await ensureDemoKeys(admin, registry, file);
    expect(second['demo-account']).not.toBe(first['demo-account']);
    expect(await registry.findByKey(second['demo-account']!)).toBeDefined();
    fs.rmSync(file);
    const third = await ensureDemoKeys(admin, registry, file);
    expect(third['demo-account']).not.toBe(second['demo-account']);
  });
});
