/**
 * A real gateway process with an account key and one allocated child named `ci`, and the BFF in
 * embedded mode in front of it holding both as profiles (`team`, `ci`) in a keys store of its
 * own: what the child-key and rotation tests start from. `stop` ends both and removes the store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startGatewayProcess, type GatewayProcess } from '../../testing/gateway-process';
import { KeysStore } from '../keys/keys-store';
import { startTestBff, type TestBff } from './harness';

export type RealGatewayTeam = {
  gateway: GatewayProcess;
  bff: TestBff;
  account: { id: string; key: string };
  child: { id: string; key: string };
  /** The BFF's keys store (a JSON file). */
  storePath: string;
  stop(): Promise<void>;
};

export async function startRealGatewayTeam(options: {
  childLimitUsd: string;
  gatewayEnvironment?: Record<string, string>;
}): Promise<RealGatewayTeam> {
  const gateway = await startGatewayProcess({ environment: options.gatewayEnvironment });
  const account = await gateway.createKey(['--kind', 'account', '--limit-usd', '5']);
  const child = await gateway.createKey([
    '--kind',
    'allocated_child',
    '--parent',
    account.id,
    '--limit-usd',
    options.childLimitUsd,
    '--name',
    'ci',
  ]);
  // Embedded mode's own store, beside the gateway's database.
  const storePath = path.join(mkdtempSync(path.join(tmpdir(), 'bff-data-')), 'workbench-keys.json');
  const bff = await startTestBff({
    gatewayBaseUrl: gateway.baseUrl,
    mode: 'embedded',
    profiles: { team: account.key, ci: child.key },
    keysStore: new KeysStore({ path: storePath, origin: 'embedded' }),
  });
  return {
    gateway,
    bff,
    account,
    child,
    storePath,
    stop: async () => {
      await bff.close();
      await gateway.stop();
      rmSync(path.dirname(storePath), { recursive: true, force: true });
    },
  };
}
