/**
 * Starts the workbench: binds the app of app.ts to its address and closes it gracefully.
 * The start script (scripts/start.ts) reads the configuration and calls `startWorkbench`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkListenAddress } from './sign-in/access';
import { createWorkbenchApp, type WorkbenchOptions } from './app';
import { openKeysStore, type OpenedKeysStore } from './keys/keys-store';
import { ConfigError } from './core/config';
import { loadGroupPolicies } from './people/people';
import { AuditLog, PeopleStore } from './people/people-store';

export type StartWorkbenchOptions = Omit<WorkbenchOptions, 'httpServer'>;

export interface RunningWorkbench {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** How long open streams may run on after close() before their connections are cut. */
const closeGraceMs = 3_000;

export { loadWorkbenchConfig, normalizeGatewayBaseUrl, type WorkbenchConfig } from './core/config';
export { createWorkbenchLogger } from './core/logging';
export { buildProfiles } from './keys/profiles';
export { readKeysFile } from './keys/keys-file';
export { KeysStore, keysStoreLocation } from './keys/keys-store';
export { createWorkbenchApp, type WorkbenchOptions } from './app';

/**
 * The people, the audit log and the group policies, beside the keys store; checks that people's
 * keys have a team profile to be made under and somewhere to be kept.
 */
async function openPeople(
  options: StartWorkbenchOptions,
  keys: OpenedKeysStore,
): Promise<Pick<WorkbenchOptions, 'peopleStore' | 'auditLog' | 'groupPolicies'>> {
  const oidc = options.oidc ?? null;
  if (oidc?.teamProfile) {
    if (keys.profiles[oidc.teamProfile] === undefined) {
      throw new ConfigError(
        'WORKBENCH_TEAM_PROFILE',
        `names no key profile the workbench holds ("${oidc.teamProfile}"); it holds: ${Object.keys(keys.profiles).join(', ') || 'none'}`,
      );
    }
    if (keys.keysStore === null) {
      throw new ConfigError(
        'WORKBENCH_TEAM_PROFILE',
        "needs a keys store to keep people's keys in: set WORKBENCH_KEYS_FILE",
      );
    }
  }
  return {
    peopleStore: options.peopleStore ?? (await PeopleStore.open(keys.keysStore)),
    auditLog: options.auditLog ?? (await AuditLog.open(keys.keysStore)),
    groupPolicies:
      options.groupPolicies ??
      (oidc ? await loadGroupPolicies(oidc.policyFile, oidc.defaultPolicy) : []),
  };
}

export async function startWorkbench(options: StartWorkbenchOptions): Promise<RunningWorkbench> {
  // Off loopback, a workbench without sign-in would hand its keys to anyone who can reach it.
  checkListenAddress(options.listenHost, options.accessToken, Boolean(options.oidc));
  // The keys store's profiles (keys created or rotated before a restart) join the given ones.
  const keys = await openKeysStore(options);
  const people = await openPeople(options, keys);
  const server = createServer();
  const workbench = createWorkbenchApp({ ...options, ...keys, ...people, httpServer: server });
  server.on('request', workbench.app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.listenPort, options.listenHost, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  workbench.setListenPort(port);
  const host = options.listenHost.includes(':') ? `[${options.listenHost}]` : options.listenHost;
  const url = `http://${host}:${port}`;
  options.logger.info(
    {
      url,
      mode: options.mode,
      gateway: options.gatewayBaseUrl,
      keys_store: keys.keysStore?.description ?? null,
    },
    'workbench listening',
  );

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Streams keep their connections open; after a grace period they are cut, which aborts
      // their gateway calls through the responses' `close`.
      const cut = setTimeout(() => server.closeAllConnections(), closeGraceMs);
      cut.unref();
      await closed;
      clearTimeout(cut);
      await workbench.close();
    })();
    return closing;
  };
  return { url, port, close };
}
