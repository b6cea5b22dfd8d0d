/** Writing answers: JSON bodies and the headers of an event stream. */
import type { ServerResponse } from 'node:http';

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

/**
 * Starts a server-sent event stream. Proxies must neither buffer nor compress it, or the
 * tokens arrive in one lump at the end.
 */
export function startEventStream(response: ServerResponse): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  response.flushHeaders();
}

/** Writes one event; returns false once the client is gone, so the caller can stop. */
export function writeEvent(response: ServerResponse, data: string, event?: string): boolean {
  if (response.destroyed || response.writableEnded) return false;
  response.write(event ? `event: ${event}\ndata: ${data}\n\n` : `data: ${data}\n\n`);
  return true;
}
