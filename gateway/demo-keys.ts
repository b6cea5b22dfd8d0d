/**
 * The embedded default's demo keys: one account key, one allocated child and one shared child,
 * created on first run and kept in `demo-keys.json` beside the database, readable only by its
 * owner. They become the workbench's key profiles; nothing else ever prints them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { KeyAdmin } from './keys/key-admin';
import type { KeyRegistry } from './keys/key-registry';

export const DEMO_PROFILE_NAMES = [
  'demo-account',
  'demo-allocated-child',
  'demo-shared-child',
] as const;

const demoKeysSchema = z.record(z.string(), z.string().startsWith('sk-'));

export function demoKeysFile(databasePath: string): string {
  return path.join(path.dirname(databasePath), 'demo-keys.json');
}

/**
 * Returns the demo keys, creating the set (again) when the file is missing or its account key is
 * gone. A child rotated or revoked from the workbench leaves the set as it is: the workbench's
 * keys store holds a rotated child's new secret under the same profile name, and a revoked one
 * shows as revoked. Recreating the set then would add a second demo account beside the first.
 */
export async function ensureDemoKeys(
  admin: KeyAdmin,
  registry: KeyRegistry,
  file: string,
): Promise<Record<string, string>> {
  const existing = readDemoKeys(file);
  const complete = existing && DEMO_PROFILE_NAMES.every((name) => existing[name] !== undefined);
  if (complete && (await registry.findByKey(existing['demo-account']!))) return existing;
  const account = await admin.create(
    { kind: 'account', name: 'demo-account', limitUsd: 25, graceUsd: 0.05 },
    'system',
  );
  const allocated = await admin.create(
    { kind: 'allocated_child', parentId: account.id, name: 'demo-allocated-child', limitUsd: 5 },
    'system',
  );
  const shared = await admin.create(
    { kind: 'shared_child', parentId: account.id, name: 'demo-shared-child' },
    'system',
  );
  const keys = {
    'demo-account': account.key,
    'demo-allocated-child': allocated.key,
    'demo-shared-child': shared.key,
  };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  await registry.reload();
  return keys;
}

function readDemoKeys(file: string): Record<string, string> | null {
  try {
    const parsed = demoKeysSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
