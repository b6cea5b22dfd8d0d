/** Noticing that the browser stopped or left, so the gateway call can stop with it. */
import type { Response } from 'express';

/**
 * Aborts when the browser stops or leaves. It listens on the response's `close`: the request's
 * `close` fires as soon as its body was read, long before the answer is done.
 */
export function abortOnClientClose(response: Response): AbortSignal {
  const controller = new AbortController();
  response.on('close', () => {
    if (!response.writableFinished) controller.abort();
  });
  return controller.signal;
}
