/**
 * The workbench process (compiled to dist/start.js; `npm start` builds it first, see
 * scripts/build.mjs): starts the embedded gateway unless
 * GATEWAY_BASE_URL points at a real one (creating the demo keys on first run), then starts the
 * workbench. `--dev` serves the UI through Vite with hot reload instead of the build.
 *
 * This is the one place that wires the boxes together: the workbench still reaches the gateway
 * only over HTTP, even when both run in this process.
 */
import path from 'node:path';
import { loadGatewayConfig } from '../gateway/config';
import { demoKeysFile, ensureDemoKeys } from '../gateway/demo-keys';
import { startGateway, type RunningGateway } from '../gateway/index';
import { buildProfiles, createWorkbenchLogger, loadWorkbenchConfig, readKeysFile, startWorkbench } from '../server/index';

const root = path.resolve(import.meta.dirname, '..');
const webBuild = path.join(root, 'dist', 'web');

async function main(): Promise<void> {
  const dev = process.argv.includes('--dev');
  // Both configurations are read and validated before anything starts.
  const workbenchConfig = loadWorkbenchConfig();
  const gatewayConfig = workbenchConfig.gatewayBaseUrl === null ? loadGatewayConfig() : null;
  const logger = createWorkbenchLogger();


  let gateway: RunningGateway | null = null;
  let demoKeys: Record<string, string> | undefined;
  if (gatewayConfig) {
    gateway = await startGateway(gatewayConfig);
    const { admin, parts } = gateway.gateway;
    demoKeys = ensureDemoKeys(admin, parts.registry, demoKeysFile(gatewayConfig.databasePath));
  }

  const profiles = buildProfiles({
    fromKeysFile: workbenchConfig.keysFile ? await readKeysFile(workbenchConfig.keysFile) : undefined,
    gatewayApiKey: workbenchConfig.gatewayApiKey,
    demoKeys,
  });
  const workbench = await startWorkbench({
    gatewayBaseUrl: workbenchConfig.gatewayBaseUrl ?? gateway!.url,
    mode: gateway ? 'embedded' : 'external',
    profiles,
    allowedHosts: workbenchConfig.allowedHosts,
    listenHost: workbenchConfig.host,
    listenPort: workbenchConfig.port,
    logger,
    dev,
    staticDir: webBuild,
    timeouts: workbenchConfig.timeouts,
    catalogTtlMs: workbenchConfig.catalogTtlMs,
  });
  logger.info(
    { profiles: Object.keys(profiles) },
    `workbench ready at ${workbench.url}${gateway ? ` (embedded gateway at ${gateway.url})` : ''}`,
  );

  const stop = async () => {
    await workbench.close();
    await gateway?.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  // A bad variable or a taken port: one clear line, no stack trace.
  console.error(`npm start failed: ${(error as Error).message ?? String(error)}`);
  process.exit(1);
});
