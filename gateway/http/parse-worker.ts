/**
 * The body-parsing thread's entry (started by parse-thread.ts through shared/module-worker.ts):
 * parses each body it is sent with parse-body.ts's parser, the one the main thread falls back on.
 */
import { parentPort } from 'node:worker_threads';
import { MAX_NESTING_DEPTH, parseBody } from './parse-body';

const port = parentPort!;
port.on('message', ({ id, bytes }: { id: number; bytes: Uint8Array }) => {
  port.postMessage({ id, parsed: parseBody(new Uint8Array(bytes), MAX_NESTING_DEPTH) });
});
