/**
 * One piece of a streamed answer, written the way a proxy must write to a client that may read
 * slowly: when the socket's buffer is full, wait for `drain` before the caller pulls the next piece
 * from its own source, so a slow reader slows only its own stream and nothing is held in memory on
 * its behalf. A client that takes nothing for `sendTimeoutMs` is dropped (as nginx's
 * `send_timeout` does), since it would otherwise hold its request for as long as its socket stays
 * open. Used by the gateway for every streamed answer and by the workbench server for the streams
 * it passes on to the browser.
 */
import type { ServerResponse } from 'node:http';

/** Resolves true once `text` is on its way, false if the client is gone (or was dropped). */
export async function writeWithBackpressure(
  response: ServerResponse,
  text: string,
  sendTimeoutMs: number,
): Promise<boolean> {
  if (response.destroyed || response.writableEnded) return false;
  if (!response.write(text)) {
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        response.off('drain', done);
        response.off('close', done);
        resolve();
      };
      // Armed only while the client is behind, so a fast reader costs no timer.
      const timer = setTimeout(() => {
        response.destroy();
        done();
      }, sendTimeoutMs);
      response.on('drain', done);
      response.on('close', done);
    });
  }
  return !response.destroyed;
}
