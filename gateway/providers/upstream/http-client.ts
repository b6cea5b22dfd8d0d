/**
 * The HTTP side of every upstream provider: one pooled keep-alive undici Agent per provider, with
 * its connect, first-byte (headers) and idle (body) timeouts; each call bound to its deadlines
 * (call-deadlines.ts); and the translation of undici's failures into UpstreamErrors. Nothing here
 * knows a vendor's wire format.
 */
import { Agent, request, type Dispatcher } from 'undici';
import type { UpstreamCall } from './adapter';
import type { CallDeadline } from './call-deadlines';
import type { ProviderTimeouts } from './provider-config';
import { UpstreamError } from '../upstream-error';

export function createUpstreamAgent(timeouts: ProviderTimeouts): Agent {
  return new Agent({
    connect: { timeout: timeouts.connectMs },
    // No headers, no answer: the call's own deadlines bound this wait too.
    headersTimeout: Math.min(timeouts.firstByteMs, timeouts.firstEventMs, timeouts.totalMs),
    bodyTimeout: timeouts.idleMs,
    keepAliveTimeout: 30_000,
    // Upstreams close idle sockets on their own clock; a stale one is replaced, not reused.
    keepAliveTimeoutThreshold: 2_000,
  });
}

export type UpstreamAnswer = {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
};

/** An adapter's call sent through a provider's agent, with the signal that abandons it. */
export type UpstreamRequest = UpstreamCall & {
  agent: Agent;
  signal: AbortSignal;
  providerId: string;
  /** Ends the call when its first event or its end is late. */
  deadline?: CallDeadline;
};

/** Sends a request; resolves with the answer's headers and its body as a stream. */
export async function postJson({
  agent,
  url,
  headers,
  body,
  signal,
  providerId,
  deadline,
}: UpstreamRequest): Promise<UpstreamAnswer> {
  try {
    const answer = await request(url, {
      method: 'POST',
      ...jsonRequest(headers, body),
      dispatcher: agent,
      signal,
    });
    // A late answer is ended where it is read: its body fails with the deadline's error.
    deadline?.bind((reason) => answer.body.destroy(reason));
    return { status: answer.statusCode, headers: answer.headers, body: answer.body };
  } catch (error) {
    throw toUpstreamError(error, providerId, 'before');
  }
}

/** A JSON request's headers and body, as both ways of sending one take them. */
const jsonRequest = (headers: Record<string, string>, body: unknown) => ({
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/** An answer read whole: its text, cut at the limit for its status when longer. */
export type WholeAnswer = {
  status: number;
  headers: UpstreamAnswer['headers'];
  text: string;
  truncated: boolean;
};

/**
 * Sends a request whose answer is read whole, through undici's dispatch API: the bytes are
 * gathered as they arrive, without the body stream and async iteration `request` builds for each
 * answer (a tenth of a busy gateway's time went there). A body past its limit (`limitOf`, from
 * the status and headers: 0 reads nothing of it) is cut there and the connection dropped. Errors and the
 * abort signal behave as `postJson`'s, and a failure after the headers is a cut answer.
 */
export function postJsonWhole(
  { agent, url, headers, body, signal, providerId, deadline }: UpstreamRequest,
  limitOf: (status: number, headers: UpstreamAnswer['headers']) => number,
): Promise<WholeAnswer> {
  return new Promise<WholeAnswer>((resolve, reject) => {
    const target = new URL(url);
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
        deadline?.bind((reason) => started.abort(reason));
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
        reject(toUpstreamError(error, providerId, answer ? 'during' : 'before'));
      },
    };
    agent.dispatch(
      {
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        ...jsonRequest(headers, body),
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
  body: UpstreamAnswer['body'],
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

/** `Retry-After` in seconds (delta or HTTP date), or `retry-after-ms`; undefined when absent. */
export function retryAfterSeconds(headers: UpstreamAnswer['headers']): number | undefined {
  const milliseconds = Number(first(headers['retry-after-ms']));
  if (Number.isFinite(milliseconds) && milliseconds > 0) return Math.ceil(milliseconds / 1000);
  const value = first(headers['retry-after']);
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

export const first = (value: string | string[] | undefined) =>
  Array.isArray(value) ? value[0] : value;

/**
 * undici's failures → how the upstream failed. `phase` says whether the answer had begun: a reset
 * before the headers is a connection failure, after them a cut answer.
 */
export function toUpstreamError(
  error: unknown,
  providerId: string,
  phase: 'before' | 'during',
): UpstreamError {
  if (error instanceof UpstreamError) return error;
  const code = (error as { code?: string }).code ?? '';
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return new UpstreamError(
        'connect_timeout',
        providerId,
        'The provider did not accept a connection in time.',
      );
    case 'UND_ERR_HEADERS_TIMEOUT':
      return new UpstreamError(
        'first_byte_timeout',
        providerId,
        'The provider did not start answering in time.',
      );
    case 'UND_ERR_BODY_TIMEOUT':
      return new UpstreamError(
        'idle_timeout',
        providerId,
        'The provider stopped sending in the middle of its answer.',
      );
    default:
      return phase === 'before'
        ? new UpstreamError('connect', providerId, 'The provider could not be reached.')
        : new UpstreamError(
            'cut',
            providerId,
            'The provider closed the connection before its answer ended.',
          );
  }
}
