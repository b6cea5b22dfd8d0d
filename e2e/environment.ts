/**
 * Ports, data folder and settlement interval of the workbench that the end-to-end tests start.
 * Each Playwright worker has a workbench and an embedded gateway of its own (its slot), so the
 * workers never share a key, a balance or a database. E2E_WORKBENCH_PORT, E2E_GATEWAY_PORT and
 * E2E_DATA_DIR move slot 0; slot N sits N×10 ports above it, so two runs on one machine do not meet.
 */
import path from 'node:path';

/** How many workers, hence workbenches, a run has: one per core is what this machine affords. */
export const e2eSlots = Number(process.env.E2E_WORKERS ?? 2);

export type E2eSlot = {
  dataDir: string;
  database: string;
  workbenchPort: number;
  gatewayPort: number;
  workbenchUrl: string;
  /** Where the workbench writes its embedded gateway's process id (beside the database). */
  gatewayPidFile: string;
  environment: Record<string, string>;
};

export function e2eSlot(index: number): E2eSlot {
  const dataDir = path.resolve(`${process.env.E2E_DATA_DIR ?? '.tmp/e2e-data'}-${index}`);
  const workbenchPort = Number(process.env.E2E_WORKBENCH_PORT ?? 5291) + index * 10;
  const gatewayPort = Number(process.env.E2E_GATEWAY_PORT ?? 8891) + index * 10;
  const database = path.join(dataDir, 'gateway.db');
  return {
    dataDir,
    database,
    workbenchPort,
    gatewayPort,
    workbenchUrl: `http://127.0.0.1:${workbenchPort}`,
    gatewayPidFile: path.join(dataDir, 'embedded-gateway.pid'),
    environment: {
      WORKBENCH_PORT: String(workbenchPort),
      GATEWAY_PORT: String(gatewayPort),
      GATEWAY_DB: database,
      GATEWAY_SETTLE_INTERVAL_MS: '200',
      // The Notifications test sends webhooks to a receiver on loopback: allowed here only,
      // never by default (the gateway refuses http and private addresses without it).
      GATEWAY_WEBHOOK_ALLOW_PRIVATE: 'true',
    },
  };
}

// In a worker, Playwright names its slot; the runner itself (the config) is slot 0.
const current = e2eSlot(Number(process.env.TEST_PARALLEL_INDEX ?? 0));

export const e2eDataDir = current.dataDir;
export const e2eDatabase = current.database;
export const e2eWorkbenchPort = current.workbenchPort;
export const e2eGatewayPort = current.gatewayPort;
export const e2eWorkbenchUrl = current.workbenchUrl;
export const e2eGatewayPidFile = current.gatewayPidFile;
export const e2eEnvironment = current.environment;
