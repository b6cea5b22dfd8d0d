/** Writing answers: JSON bodies and the headers of an event stream. */
import type { ServerResponse } from 'node:http';
import { gatewayOverheadHeader } from '../../contract/gateway';
import { writeWithBackpressure } from '../../contract/write-with-backpressure';
import type { RequestTiming } from '../shared/request-timing';

const answerTimings = new WeakMap<ServerResponse, RequestTiming>();

/**
 * Marks `response` as an inference answer: its headers, whenever written, carry the gateway's own
 * time so far, and the waits for a slow client to read its stream are not counted in it.
 */
export function timeAnswer(response: ServerResponse, timing: RequestTiming): void {
  answerTimings.set(response, timing);
}

/** The overhead header of an answer marked by `timeAnswer`, measured now; none for others. */
function overheadHeader(response: ServerResponse): Record<string, string> {
  const timing = answerTimings.get(response);
  return timing ? { [gatewayOverheadHeader]: timing.overheadMs().toFixed(2) } : {};
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
    ...overheadHeader(response),
  });
  response.end(text);
}

/**
 * Starts a streamed answer. Proxies must neither buffer nor compress it, or the tokens arrive in
 * one lump at the end.
 *
 * It starts once the provider's first event is here, so the headers and the events written from
 * it in this turn of the event loop (an opening chunk, the first token) leave in one write at the
 * end of the turn: one packet for the client to wait for instead of three. Every later event is
 * written as it arrives.
 */
export function startStreamedAnswer(response: ServerResponse, contentType: string): void {
  response.writeHead(200, {
    'content-type': contentType,
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
    // Measured as the stream starts: no header can follow a body; the record has the whole figure.
    ...overheadHeader(response),
  });
  response.cork();
  setImmediate(() => response.uncork());
}

/** Starts a server-sent event stream (`startStreamedAnswer`). */
export function startEventStream(response: ServerResponse): void {
  response.setHeader('connection', 'keep-alive');
  startStreamedAnswer(response, 'text/event-stream; charset=utf-8');
}

/** Writes one server-sent event (see `writeChunk`). */
export function writeEvent(
  response: ServerResponse,
  data: string,
  event?: string,
): Promise<boolean> {
  return writeChunk(response, event ? `event: ${event}\ndata: ${data}\n\n` : `data: ${data}\n\n`);
}

/**
 * How long a client may leave a streamed answer unread before it is dropped, as nginx's
 * `send_timeout`: a client that reads nothing for this long would otherwise hold its request (the
 * key's slot, its reservation) for as long as its socket stays open.
 */
export const DEFAULT_CLIENT_SEND_TIMEOUT_MS = 60_000;

const sendTimeouts = new WeakMap<ServerResponse, number>();

/** A send timeout other than the default for one response (`GATEWAY_CLIENT_SEND_TIMEOUT_MS`). */
export function setClientSendTimeout(response: ServerResponse, milliseconds: number): void {
  sendTimeouts.set(response, milliseconds);
}

/**
 * Writes a piece of a streamed answer with backpressure (contract/write-with-backpressure.ts): the
 * next provider event is not pulled (nor generated) until this one is on its way, and a client that
 * reads nothing within the send timeout is dropped. Resolves false once the client is gone.
 */
export function writeChunk(response: ServerResponse, text: string): Promise<boolean> {
  const written = writeWithBackpressure(
    response,
    text,
    sendTimeouts.get(response) ?? DEFAULT_CLIENT_SEND_TIMEOUT_MS,
  );
  // Only a write the socket could not take at once waits on the client.
  const timing = response.writableNeedDrain ? answerTimings.get(response) : undefined;
  if (!timing) return written;
  const began = performance.now();
  return written.finally(() => timing.waitedOnClient(began));
}
