/** Listens for the gateway and shuts it down gracefully: in-flight requests finish, charges settle. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGateway, type Gateway } from './app';
import type { GatewayConfig } from './config';

export type RunningGateway = { url: string; gateway: Gateway; close(): Promise<void> };

export async function startGateway(
  config: GatewayConfig,
  options: Parameters<typeof createGateway>[1] = {},
): Promise<RunningGateway> {
  const gateway = await createGateway(config, options);
  const server = http.createServer(
    {
      keepAliveTimeout: 65_000,
      // Only a WebSocket upgrade leaves HTTP; any other (`Upgrade: h2c`) is served as HTTP/1.1.
      shouldUpgradeCallback: (request) => request.headers.upgrade?.toLowerCase() === 'websocket',
    },
    gateway.handle,
  );
  server.on('clientError', gateway.handleClientError);
  server.on('upgrade', gateway.handleUpgrade);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  gateway.parts.logger.info({ host: address.address, port: address.port }, 'gateway listening');
  return {
    url: `http://${host}:${address.port}`,
    gateway,
    close: () =>
      new Promise<void>((resolve) => {
        // Upgraded sockets are the server's connections too: its close waits for them.
        gateway.closeSockets();
        server.close(() => {
          // A cut stream writes its record a moment after its socket closes: wait for it (for a
          // provider slow to stop, not forever) before the database closes.
          const idle = gateway.parts.pipeline.whenIdle();
          const bounded = new Promise<void>((done) => setTimeout(done, 5_000).unref());
          void Promise.race([idle, bounded])
            .then(() => gateway.close())
            .catch((error: unknown) => {
              gateway.parts.logger.error({ err: error }, 'gateway did not close cleanly');
            })
            .finally(resolve);
        });
        server.closeIdleConnections();
        // Streams still open after a grace period are cut; their records are written as ended early.
        setTimeout(() => server.closeAllConnections(), 5_000).unref();
      }),
  };
}
