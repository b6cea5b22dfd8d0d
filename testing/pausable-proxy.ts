/**
 * A TCP proxy on loopback between the gateway and PostgreSQL or Redis, for tests and the
 * benchmark (docs/tests.md, "A network between the parts"):
 * - it can stop passing bytes and start again, as in a network partition or a stalled server:
 *   its connections stay open, nothing reaches either side while paused, and what was held back
 *   goes through, in order, on resume;
 * - it can delay each direction, as a network between machines would (kernel traffic shaping is
 *   not available here);
 * - it can record the round trips it carries: a client write after a server reply starts one.
 */
import net from 'node:net';
import { performance } from 'node:perf_hooks';

/** Milliseconds each byte waits in each direction; a round trip costs their sum. */
export type ProxyDelay = { toServerMs: number; toClientMs: number };

/**
 * One request/response turn on one connection: from the first client byte after a reply (or the
 * connection's start) to the last server byte before the next client write. Times are
 * `performance.now()` when the bytes reached the proxy, before any delay.
 */
export type RoundTrip = {
  connection: number;
  startedAt: number;
  endedAt: number | undefined;
  /** The first bytes the client sent in this turn, to name it in a failure message. */
  sent: Buffer;
};

export type PausableProxy = {
  port: number;
  pause(): void;
  resume(): void;
  setDelay(delay: ProxyDelay): void;
  /** Starts recording round trips; the returned function stops and returns them. */
  record(): () => RoundTrip[];
  /** Resolves once no connection waits for a reply. */
  idle(): Promise<void>;
  close(): Promise<void>;
};

/** Splits a round trip of `rttMs` into two equal directions. */
export const symmetricDelay = (rttMs: number): ProxyDelay => ({
  toServerMs: rttMs / 2,
  toClientMs: rttMs / 2,
});

const SENT_BYTES_KEPT = 200;
/** Up to this many chunks waiting, a wait under a millisecond is polled. */
const POLLED_CHUNKS = 4;

/**
 * Chunks waiting out a delay, one queue per direction: each direction's delay is the same for
 * every chunk, so each queue is in order of release. Under a millisecond (timers' resolution) the
 * wait is polled with `setImmediate`, which costs CPU only while something waits, and only while
 * few chunks wait.
 */
class DelayLine {
  private readonly queues = {
    toServer: [] as Array<{ at: number; pass: () => void }>,
    toClient: [] as Array<{ at: number; pass: () => void }>,
  };
  private scheduled = false;
  delay: ProxyDelay = { toServerMs: 0, toClientMs: 0 };

  push(direction: 'toServer' | 'toClient', pass: () => void): void {
    const queue = this.queues[direction];
    const ms = direction === 'toServer' ? this.delay.toServerMs : this.delay.toClientMs;
    // Behind a queued chunk it waits its turn even without a delay: bytes stay in order.
    if (ms <= 0 && queue.length === 0) return pass();
    queue.push({ at: performance.now() + ms, pass });
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    const heads = [this.queues.toServer[0], this.queues.toClient[0]].flatMap((head) =>
      head ? [head.at] : [],
    );
    if (heads.length === 0) return;
    this.scheduled = true;
    const wait = Math.min(...heads) - performance.now();
    const tick = () => {
      this.scheduled = false;
      this.release();
    };
    const queued = this.queues.toServer.length + this.queues.toClient.length;
    if (wait > 1.5) setTimeout(tick, wait - 1);
    // Under load the polling would take a core from what is measured: timers (a millisecond's
    // resolution) overshoot instead.
    else if (queued > POLLED_CHUNKS && wait > 0) setTimeout(tick, wait);
    else setImmediate(tick);
  }

  private release(): void {
    const now = performance.now();
    for (const queue of [this.queues.toServer, this.queues.toClient]) {
      while (queue.length > 0 && queue[0]!.at <= now) queue.shift()!.pass();
    }
    this.schedule();
  }
}

export async function startPausableProxy(
  target: { host: string; port: number },
  options: { delay?: ProxyDelay } = {},
): Promise<PausableProxy> {
  let paused = false;
  const line = new DelayLine();
  if (options.delay) line.delay = options.delay;
  // A chunk to pass on, or (null) the end of its side: a partition holds back both.
  const held: Array<{ to: net.Socket; chunk: Buffer | null; direction: Direction }> = [];
  const pass = (to: net.Socket, chunk: Buffer | null) => {
    if (to.destroyed) return;
    if (chunk) to.write(chunk);
    else to.end();
  };
  type Direction = 'toServer' | 'toClient';
  const deliver = (to: net.Socket, chunk: Buffer | null, direction: Direction) =>
    line.push(direction, () => pass(to, chunk));

  let recording: RoundTrip[] | undefined;
  let connections = 0;
  const waiting = new Set<Turns>();
  const onIdle: Array<() => void> = [];
  const waitingChanged = (turns: Turns, open: boolean) => {
    if (open) waiting.add(turns);
    else waiting.delete(turns);
    if (waiting.size === 0) for (const resolve of onIdle.splice(0)) resolve();
  };
  const sockets = new Set<net.Socket>();
  const forward = (from: net.Socket, to: net.Socket, direction: Direction, turns: Turns) => {
    const send = (chunk: Buffer | null) => {
      if (paused) held.push({ to, chunk, direction });
      else deliver(to, chunk, direction);
    };
    from.on('data', (chunk: Buffer) => {
      turns.saw(direction, chunk);
      send(chunk);
    });
    from.on('end', () => send(null));
    from.on('error', () => to.destroy());
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      // Each chunk goes out when it is due: Nagle's algorithm would hold small ones back for an
      // acknowledgement, up to 40 ms with delayed ACKs.
      socket.setNoDelay(true);
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    }
    const turns = new Turns((connections += 1), () => recording, waitingChanged);
    client.on('close', () => waitingChanged(turns, false));
    forward(client, upstream, 'toServer', turns);
    forward(upstream, client, 'toClient', turns);
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
      for (const { to, chunk, direction } of held.splice(0)) deliver(to, chunk, direction);
    },
    setDelay: (delay) => {
      line.delay = delay;
    },
    record: () => {
      const recorded: RoundTrip[] = [];
      recording = recorded;
      return () => {
        if (recording === recorded) recording = undefined;
        return recorded;
      };
    },
    idle: () =>
      waiting.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => onIdle.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The turns of one connection, written to the recording when there is one. */
class Turns {
  private current: RoundTrip | undefined;
  private replied = true;

  constructor(
    private readonly connection: number,
    private readonly recording: () => RoundTrip[] | undefined,
    private readonly waiting: (turns: Turns, open: boolean) => void,
  ) {}

  saw(direction: 'toServer' | 'toClient', chunk: Buffer): void {
    const now = performance.now();
    if (direction === 'toClient') {
      // Bytes nobody asked for (a notification) start no turn.
      if (this.current) this.current.endedAt = now;
      this.replied = true;
      this.waiting(this, false);
      return;
    }
    if (this.replied || !this.current) {
      this.current = {
        connection: this.connection,
        startedAt: now,
        endedAt: undefined,
        sent: chunk,
      };
      this.replied = false;
      this.waiting(this, true);
      this.recording()?.push(this.current);
    } else if (this.current.sent.length < SENT_BYTES_KEPT) {
      this.current.sent = Buffer.concat([this.current.sent, chunk]).subarray(0, SENT_BYTES_KEPT);
    }
  }
}
