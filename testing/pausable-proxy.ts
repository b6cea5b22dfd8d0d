/**
 * A TCP proxy on loopback that can stop passing bytes and start again, for tests of an instance
 * cut off from its database: its connections stay open (as in a network partition or a stalled
 * server), nothing reaches either side while paused, and what was held back goes through, in
 * order, on resume.
 */
import net from 'node:net';

export type PausableProxy = {
  port: number;
  pause(): void;
  resume(): void;
  close(): Promise<void>;
};

export async function startPausableProxy(target: {
  host: string;
  port: number;
}): Promise<PausableProxy> {
  let paused = false;
  const held: Array<{ to: net.Socket; chunk: Buffer }> = [];
  const sockets = new Set<net.Socket>();
  const forward = (from: net.Socket, to: net.Socket) => {
    from.on('data', (chunk: Buffer) => {
      if (paused) held.push({ to, chunk });
      else to.write(chunk);
    });
    from.on('end', () => to.end());
    from.on('error', () => to.destroy());
    from.on('close', () => to.destroy());
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
      for (const { to, chunk } of held.splice(0)) if (!to.destroyed) to.write(chunk);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
