/**
 * Ports, data folder and settlement interval of the workbench that the end-to-end tests start.
 * E2E_WORKBENCH_PORT, E2E_GATEWAY_PORT and E2E_DATA_DIR move them, so two runs on one machine
 * do not meet.
 */
import path from 'node:path';

export const e2eDataDir = path.resolve(process.env.E2E_DATA_DIR ?? '.tmp/e2e-data');
export const e2eDatabase = path.join(e2eDataDir, 'gateway.db');
export const e2eWorkbenchPort = Number(process.env.E2E_WORKBENCH_PORT ?? 5291);
export const e2eGatewayPort = Number(process.env.E2E_GATEWAY_PORT ?? 8891);
export const e2eWorkbenchUrl = `http://127.0.0.1:${e2eWorkbenchPort}`;
/** Where the workbench writes its embedded gateway's process id (beside the database). */
export const e2eGatewayPidFile = path.join(e2eDataDir, 'embedded-gateway.pid');

export const e2eEnvironment: Record<string, string> = {
  WORKBENCH_PORT: String(e2eWorkbenchPort),
  GATEWAY_PORT: String(e2eGatewayPort),
  GATEWAY_DB: e2eDatabase,
  GATEWAY_SETTLE_INTERVAL_MS: '200',
};
