/**
 * The workbench's BFF for the benchmark, in a process of its own: `startWorkbench` as
 * scripts/start.ts calls it for an external gateway, holding one key profile, `bench`, on a free
 * port of 127.0.0.1. No UI is served (the benchmark calls `/api` only), so nothing is built.
 *
 * Usage: BENCH_GATEWAY_URL=http://127.0.0.1:N BENCH_GATEWAY_KEY=sk-… tsx bench/bff-server.ts
 * (the key comes from the environment, never the command line). Prints `{"port": N}` once it
 * listens. Logs at `warn`, like the gateway under benchmark.
 */
import os from 'node:os';
import path from 'node:path';
import { createWorkbenchLogger, startWorkbench } from '../server/index';

const gatewayBaseUrl = process.env.BENCH_GATEWAY_URL;
const key = process.env.BENCH_GATEWAY_KEY;
if (!gatewayBaseUrl || !key) throw new Error('BENCH_GATEWAY_URL and BENCH_GATEWAY_KEY must be set');

const workbench = await startWorkbench({
  gatewayBaseUrl,
  mode: 'external',
  profiles: { bench: key },
  listenHost: '127.0.0.1',
  listenPort: 0,
  logger: createWorkbenchLogger({ level: 'warn' }),
  // A folder that does not exist: page requests get the "not built" answer, /api is unaffected.
  staticDir: path.join(os.tmpdir(), 'bench-bff-no-ui'),
});
process.stdout.write(`${JSON.stringify({ port: workbench.port })}\n`);
process.once('SIGTERM', () => {
  void workbench.close().then(() => process.exit(0));
});
