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
  // A chunk to pass on, or (null) the end of its side: a partition holds back both.
  const held: Array<{ to: net.Socket; chunk: Buffer | null }> = [];
  const pass = (to: net.Socket, chunk: Buffer | null) => {
    if (to.destroyed) return;
    if (chunk) to.write(chunk);
    else to.end();
  };
  const sockets = new Set<net.Socket>();
  const forward = (from: net.Socket, to: net.Socket) => {
    const send = (chunk: Buffer | null) => {
      if (paused) held.push({ to, chunk });
      else pass(to, chunk);
    };
    from.on('data', (chunk: Buffer) => send(chunk));
    from.on('end', () => send(null));
    from.on('error', () => to.destroy());
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
      for (const { to, chunk } of held.splice(0)) pass(to, chunk);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
