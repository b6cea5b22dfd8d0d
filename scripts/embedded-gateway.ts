/**
 * The embedded gateway's own process (compiled to dist/embedded-gateway.js). The start script
 * runs it as a child and restarts it when it stops, so the workbench outlives its gateway and
 * can say what happened. It tells its parent over the IPC channel when it listens, and stops
 * with its parent: on SIGTERM, and when the channel closes (the parent died, even by SIGKILL),
 * so it is never left running alone.
 */
import { loadGatewayConfig } from '../gateway/config';
import { startGateway } from '../gateway/index';
import type { ChildMessage } from './gateway-supervisor';

function tell(message: ChildMessage): void {
  process.send?.(message);
}

async function main(): Promise<void> {
  const running = await startGateway(loadGatewayConfig());
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    // In-flight requests finish and charges settle; a hung close still ends in time.
    setTimeout(() => process.exit(0), 10_000).unref();
    void running.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  // Ctrl+C reaches the whole process group; the parent decides when its gateway stops.
  process.on('SIGINT', () => undefined);
  process.on('disconnect', stop);
  tell({ type: 'ready', url: running.url });
}

main().catch((error: unknown) => {
  const message = (error as Error).message ?? String(error);
  tell({ type: 'failed', message });
  console.error(`embedded gateway failed: ${message}`);
  process.exit(1);
});
