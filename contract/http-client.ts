/**
 * The one HTTP client of the gateway (calls to providers) and the workbench server (calls to the
 * gateway), over undici, with its deadlines in stages: connecting, the first byte (the response
 * headers) and the silence between two chunks are undici's timers, set on a pooled agent; the
 * first event and the whole call are `Deadline`s, swept by one timer for every call. Each caller
 * words the failures for its own readers: here they are only named (`HttpFailure`).
 * Node only: the browser never imports this file.
 * Why one timer: docs/decisions/0011-upstream-deadlines-on-one-timer.md
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import diagnosticsChannel from 'node:diagnostics_channel';
import { Agent, request, type Dispatcher } from 'undici';

/** The stages undici keeps for every call made through one agent. */
export type StagedTimeouts = {
  /** TCP (and TLS) connect. */
  connectMs: number;
  /** From sending the request to the response headers. */
  firstByteMs: number;
  /** Longest silence between two chunks of an answer. */
  idleMs: number;
};

/** A pooled keep-alive agent that keeps the three stages of `timeouts` for each call. */
export function createStagedAgent(timeouts: StagedTimeouts): Agent {
  return new Agent({
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.firstByteMs,
    bodyTimeout: timeouts.idleMs,
    keepAliveTimeout: 30_000,
    // Servers close idle sockets on their own clock; a stale one is replaced, not reused.
    keepAliveTimeoutThreshold: 2_000,
  });
}

/** Whether the answer's headers had arrived when a call failed. */
export type CallPhase = 'before' | 'during';

/** How a call failed, as far as HTTP can tell; each caller says it in its own words. */
export type HttpFailure =
  | 'connect_timeout'
  | 'first_byte_timeout'
  | 'idle_timeout'
  /** The peer answered with bytes that are not HTTP. */
  | 'not_http'
  /** No answer: refused, reset or closed before the headers. */
  | 'unanswered'
  /** The answer broke off after its headers. */
  | 'cut';

/** The first `code` along an error's causes (undici wraps some errors once or twice). */
export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** undici's failure → its name, given whether the answer had begun. */
export function failureOf(error: unknown, phase: CallPhase): HttpFailure {
  const code = errorCode(error) ?? '';
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'connect_timeout';
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return 'first_byte_timeout';
  if (code === 'UND_ERR_BODY_TIMEOUT') return 'idle_timeout';
  // undici's parser errors do not always carry their `HPE_` code.
  if (code.startsWith('HPE_') || (error as Error | null)?.name === 'HTTPParserError') {
    return 'not_http';
  }
  return phase === 'before' ? 'unanswered' : 'cut';
}

/** A call that failed: what undici (or the abort's reason) threw, and whether the answer had begun. */
export class HttpCallError extends Error {
  constructor(
    override readonly cause: unknown,
    readonly phase: CallPhase,
  ) {
    super('The HTTP call failed.', { cause });
    this.name = 'HttpCallError';
  }
}

export type HttpHeaders = Record<string, string | string[] | undefined>;

export type HttpAnswer = {
  status: number;
  headers: HttpHeaders;
  body: Dispatcher.ResponseData['body'];
};

export type HttpCall = {
  agent: Dispatcher;
  url: string | URL;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  headers: Record<string, string>;
  body?: string;
  /** Abandons the call; its reason is what the call fails with. */
  signal?: AbortSignal;
  /** This call's first-byte timeout, when it is not the agent's. */
  firstByteMs?: number;
  /** Told once the connection is up and carries the request. */
  onConnected?: () => void;
};

/**
 * Connection tracking: undici publishes `undici:request:create` (in the caller's async context)
 * and `undici:client:sendHeaders` (once a socket carries the request); an AsyncLocalStorage ties
 * the two to one call. Subscribed on first use: a subscriber makes undici publish every call.
 */
const connectedStorage = new AsyncLocalStorage<() => void>();
const onConnectedByRequest = new WeakMap<object, () => void>();
let trackingConnections = false;
function trackConnections(): void {
  if (trackingConnections) return;
  trackingConnections = true;
  diagnosticsChannel.subscribe('undici:request:create', (message) => {
    const onConnected = connectedStorage.getStore();
    const pending = (message as { request?: object }).request;
    if (onConnected && pending) onConnectedByRequest.set(pending, onConnected);
  });
  diagnosticsChannel.subscribe('undici:client:sendHeaders', (message) => {
    const sent = (message as { request?: object }).request;
    const onConnected = sent ? onConnectedByRequest.get(sent) : undefined;
    if (!sent || !onConnected) return;
    onConnectedByRequest.delete(sent);
    onConnected();
  });
}

/**
 * Sends a request; resolves with the answer's headers and its body as a stream. Fails with an
 * `HttpCallError` in phase `before`.
 */
export async function send(call: HttpCall): Promise<HttpAnswer> {
  const options = {
    method: call.method,
    headers: call.headers,
    body: call.body,
    dispatcher: call.agent,
    signal: call.signal,
    ...(call.firstByteMs !== undefined && { headersTimeout: call.firstByteMs }),
  };
  try {
    let answer;
    if (call.onConnected) {
      trackConnections();
      answer = await connectedStorage.run(call.onConnected, () => request(call.url, options));
    } else answer = await request(call.url, options);
    return { status: answer.statusCode, headers: answer.headers, body: answer.body };
  } catch (error) {
    throw new HttpCallError(error, 'before');
  }
}

/** An answer read whole: its text, cut at the limit for its status when longer. */
export type WholeAnswer = {
  status: number;
  headers: HttpHeaders;
  text: string;
  truncated: boolean;
};

/**
 * Sends a request whose answer is read whole, through undici's dispatch API: the bytes are
 * gathered as they arrive, without the body stream and async iteration `request` builds for each
 * answer (a tenth of a busy gateway's time went there). A body past its limit (`limitOf`, from
 * the status and headers: 0 reads nothing of it) is cut there and the connection dropped.
 * `bindAbort` is given what abandons the call once it is under way (a deadline's cancel). Fails
 * with an `HttpCallError`; a failure after the headers is phase `during`.
 */
export function sendWhole(
  call: Omit<HttpCall, 'firstByteMs' | 'onConnected' | 'signal'> & {
    signal: AbortSignal;
    bindAbort?: (abort: (reason: Error) => void) => void;
  },
  limitOf: (status: number, headers: HttpHeaders) => number,
): Promise<WholeAnswer> {
  const { signal } = call;
  return new Promise<WholeAnswer>((resolve, reject) => {
    const target = new URL(call.url);
    const chunks: Buffer[] = [];
    let size = 0;
    let limit = 0;
    let answer: Omit<WholeAnswer, 'text' | 'truncated'> | null = null;
    let truncated = false;
    let controller: Dispatcher.DispatchController | null = null;
    const abort = () => controller?.abort(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    const finish = () => {
      signal.removeEventListener('abort', abort);
      resolve({
        ...answer!,
        text: Buffer.concat(chunks, size).toString('utf8'),
        truncated,
      });
    };
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart: (started) => {
        controller = started;
        if (signal.aborted) started.abort(signal.reason);
        call.bindAbort?.((reason) => started.abort(reason));
      },
      onResponseStart: (_controller, status, responseHeaders) => {
        // 1xx answers (100 Continue) come before the real one.
        if (status < 200) return;
        answer = { status, headers: responseHeaders };
        limit = limitOf(status, responseHeaders);
      },
      onResponseData: (started, chunk) => {
        if (size + chunk.length > limit) {
          chunks.push(chunk.subarray(0, limit - size));
          size = limit;
          truncated = true;
          started.abort(new Error('answer cut at its limit'));
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      },
      onResponseEnd: () => finish(),
      onResponseError: (_controller, error) => {
        if (truncated) {
          finish();
          return;
        }
        signal.removeEventListener('abort', abort);
        reject(new HttpCallError(error, answer ? 'during' : 'before'));
      },
    };
    call.agent.dispatch(
      {
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: call.method,
        headers: call.headers,
        body: call.body,
      },
      handler,
    );
  });
}

/**
 * Drops an answer's body that will not be read (further). undici's body stream reports the drop
 * as an `error` event; without a listener that event would be an uncaught exception and end the
 * process, so the listener is attached first.
 */
export function discardBody(body: {
  readableEnded: boolean;
  on(event: 'error', listener: () => void): unknown;
  destroy(): unknown;
}): void {
  if (body.readableEnded) return;
  body.on('error', () => undefined);
  body.destroy();
}

/** Reads a body up to `maxBytes`; past that it is cut and the rest discarded. */
export async function readText(
  body: HttpAnswer['body'],
  maxBytes: number,
): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    if (size + buffer.length > maxBytes) {
      chunks.push(buffer.subarray(0, maxBytes - size));
      discardBody(body);
      return { text: Buffer.concat(chunks).toString('utf8'), truncated: true };
    }
    chunks.push(buffer);
    size += buffer.length;
  }
  return { text: Buffer.concat(chunks).toString('utf8'), truncated: false };
}

export const first = (value: string | string[] | undefined) =>
  Array.isArray(value) ? value[0] : value;

/** Which of a call's deadlines passed: `slow_reader` is the total one, missed by the reader. */
export type PassedDeadline =
  { kind: 'first_event' } | { kind: 'total' } | { kind: 'slow_reader'; heldMs: number };

/** How often the running calls are looked at; the most a deadline is kept late by. */
const SWEEP_MS = 100;

/**
 * The deadlines of one call that undici's timers cannot keep: to its first event (some part of
 * the answer the caller counts as one) and to its end, however steadily it keeps sending. Time
 * the reader holds an event it was handed is the reader's, not the sender's; a slow reader is
 * still cut, at twice the total deadline.
 */
export class Deadline<Reason> {
  /** What ended the call, once a deadline has. */
  expired: Reason | null = null;
  private started = false;
  private cancel: ((reason: Reason) => void) | null = null;
  private readonly firstEventAt: number;
  private readonly endAt: number;
  /** Since when the event last handed over has been held, or null when the call is being read. */
  private heldSince: number | null = null;
  private heldMs = 0;
  private readonly totalMs: number;

  constructor(
    limits: { firstEventMs?: number; totalMs: number },
    private readonly reasonFor: (passed: PassedDeadline) => Reason,
    now = performance.now(),
  ) {
    this.firstEventAt = now + (limits.firstEventMs ?? Number.POSITIVE_INFINITY);
    this.endAt = now + limits.totalMs;
    this.totalMs = limits.totalMs;
    running.add(this as Deadline<unknown>);
    sweeper ??= setInterval(sweep, SWEEP_MS).unref();
  }

  /** The answer's first event has arrived: only the total deadline remains. */
  answerStarted(): void {
    this.started = true;
  }

  /** An event was handed to the reader: until it asks for the next, the wait is not the sender's. */
  handedOver(now = performance.now()): void {
    this.heldSince = now;
  }

  /** The reader asks for the next event. */
  takenBack(now = performance.now()): void {
    if (this.heldSince === null) return;
    this.heldMs += now - this.heldSince;
    this.heldSince = null;
  }

  /** What ends the call when a deadline passes (called again as the call moves on). */
  bind(cancel: (reason: Reason) => void): void {
    this.cancel = cancel;
    if (this.expired !== null) cancel(this.expired);
  }

  /** The call is over. */
  clear(): void {
    running.delete(this as Deadline<unknown>);
  }

  /** Expires the call if a deadline has passed at `now`. */
  check(now: number): void {
    if (this.expired !== null) return;
    if (!this.started && now >= this.firstEventAt) {
      this.expire({ kind: 'first_event' });
    } else if (now >= this.endAt) {
      const held = this.heldMs + (this.heldSince === null ? 0 : now - this.heldSince);
      if (now - held >= this.endAt) this.expire({ kind: 'total' });
      else if (now >= this.endAt + this.totalMs) this.expire({ kind: 'slow_reader', heldMs: held });
    }
  }

  private expire(passed: PassedDeadline): void {
    this.expired = this.reasonFor(passed);
    running.delete(this as Deadline<unknown>);
    this.cancel?.(this.expired);
  }
}

const running = new Set<Deadline<unknown>>();
let sweeper: NodeJS.Timeout | null = null;

function sweep(): void {
  const now = performance.now();
  for (const deadline of running) deadline.check(now);
}
