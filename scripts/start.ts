/**
 * The workbench process (compiled to dist/start.js; `npm start` builds it first, see
 * scripts/build.mjs): unless GATEWAY_BASE_URL points at a real gateway, creates the demo keys on
 * first run and starts the embedded gateway as a child process, supervised and restarted when it
 * stops (gateway-supervisor.ts); then starts the workbench. `--dev` serves the UI through Vite
 * with hot reload instead of the build.
 *
 * This is the one place that wires the boxes together: the workbench reaches the gateway only
 * over HTTP, embedded or not.
 */
import net from 'node:net';
import path from 'node:path';
import { loadGatewayConfig } from '../gateway/config';
import {
  buildProfiles,
  createWorkbenchLogger,
  loadWorkbenchConfig,
  readKeysFile,
  startWorkbench,
} from '../server/index';
import { prepareDemoKeys } from './embedded-demo-keys';
import { superviseGateway, type GatewaySupervisor } from './gateway-supervisor';

const root = path.resolve(import.meta.dirname, '..');
const webBuild = path.join(root, 'dist', 'web');
// Compiled (dist/start.js), the child is dist/embedded-gateway.js; under tsx, its source, run
// with this process's Node options (tsx's loader).
const compiled = import.meta.filename.endsWith('.js');
const gatewayEntry = path.join(
  import.meta.dirname,
  compiled ? 'embedded-gateway.js' : 'embedded-gateway.ts',
);

/** A free loopback port, for GATEWAY_PORT=0: restarts must find the gateway where it was. */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function main(): Promise<void> {
  const dev = process.argv.includes('--dev');
  // Both configurations are read and validated before anything starts.
  const workbenchConfig = loadWorkbenchConfig();
  const gatewayConfig = workbenchConfig.gatewayBaseUrl === null ? loadGatewayConfig() : null;
  const logger = createWorkbenchLogger();

  let gateway: GatewaySupervisor | null = null;
  let demoKeys: Record<string, string> | undefined;
  if (gatewayConfig) {
    demoKeys = await prepareDemoKeys(gatewayConfig);
    const port = gatewayConfig.port || (await freePort(gatewayConfig.host));
    gateway = await superviseGateway({
      entry: gatewayEntry,
      execArgv: process.execArgv,
      env: { ...process.env, GATEWAY_PORT: String(port), GATEWAY_DB: gatewayConfig.databasePath },
      logger,
      pidFile: path.join(path.dirname(gatewayConfig.databasePath), 'embedded-gateway.pid'),
    });
  }

  try {
    const profiles = buildProfiles({
      fromKeysFile: workbenchConfig.keysFile
        ? await readKeysFile(workbenchConfig.keysFile)
        : undefined,
      gatewayApiKey: workbenchConfig.gatewayApiKey,
      demoKeys,
    });
    const supervised = gateway;
    const workbench = await startWorkbench({
      gatewayBaseUrl: workbenchConfig.gatewayBaseUrl ?? supervised!.url,
      mode: supervised ? 'embedded' : 'external',
      profiles,
      allowedHosts: workbenchConfig.allowedHosts,
      listenHost: workbenchConfig.host,
      listenPort: workbenchConfig.port,
      logger,
      dev,
      staticDir: webBuild,
      timeouts: workbenchConfig.timeouts,
      catalogTtlMs: workbenchConfig.catalogTtlMs,
      accessToken: workbenchConfig.accessToken,
      oidc: workbenchConfig.oidc,
      ...(supervised ? { embeddedGateway: () => supervised.status() } : {}),
    });
    logger.info(
      { profiles: Object.keys(profiles), node: process.version },
      `workbench ready at ${workbench.url}${supervised ? ` (embedded gateway at ${supervised.url}, process ${supervised.pid()})` : ''}`,
    );

    let stopping = false;
    const stop = async () => {
      if (stopping) return;
      stopping = true;
      await workbench.close();
      await supervised?.stop();
      process.exit(0);
    };
    process.on('SIGINT', () => void stop());
    process.on('SIGTERM', () => void stop());
  } catch (error) {
    await gateway?.stop();
    throw error;
  }
}

main().catch((error: unknown) => {
  // A bad variable or a taken port: one clear line, no stack trace.
  console.error(`npm start failed: ${(error as Error).message ?? String(error)}`);
  process.exit(1);
});
