/** Ports, data folder and settlement interval of the workbench that the end-to-end tests start. */
import path from 'node:path';

export const e2eDataDir = path.resolve('.tmp/e2e-data');
export const e2eDatabase = path.join(e2eDataDir, 'gateway.db');
export const e2eWorkbenchPort = 5291;
export const e2eGatewayPort = 8891;
export const e2eWorkbenchUrl = `http://127.0.0.1:${e2eWorkbenchPort}`;

export const e2eEnvironment: Record<string, string> = {
  WORKBENCH_PORT: String(e2eWorkbenchPort),
  GATEWAY_PORT: String(e2eGatewayPort),
  GATEWAY_DB: e2eDatabase,
  GATEWAY_SETTLE_INTERVAL_MS: '200',
};
