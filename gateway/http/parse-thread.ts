/**
 * Parses large request bodies on one worker thread, so that decoding and parsing a tenant's
 * megabytes (tens of milliseconds each) never holds the event loop that answers everyone else.
 * The body's bytes go over and the parsed value comes back by structured clone, which for a body
 * that is mostly one long string (a prompt, an image) is a copy at memory speed. The thread
 * (parse-worker.ts) runs parse-body.ts's parser, so there is one parser; if the thread fails, the
 * body is parsed here instead: slower for others, never lost.
 */
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../shared/module-worker';
import { MAX_NESTING_DEPTH, parseBody, type ParsedBody } from './parse-body';

type Waiting = { resolve(parsed: ParsedBody): void; bytes: Uint8Array };

let worker: Worker | null = null;
const waiting = new Map<number, Waiting>();
let nextId = 0;
let parsedOffThread = 0;

function startWorker(): Worker {
  const started = startModuleWorker(new URL('./parse-worker.ts', import.meta.url));
  started.unref();
  started.on('message', ({ id, parsed }: { id: number; parsed: ParsedBody }) => {
    const entry = waiting.get(id);
    if (!entry) return;
    waiting.delete(id);
    parsedOffThread += 1;
    entry.resolve(parsed);
    if (waiting.size === 0) stopWhenIdle(started);
  });
  const failed = () => {
    // A thread ended for being idle held nothing, and was no longer the current one.
    if (worker !== started) return;
    worker = null;
    // Whatever it still held is parsed here; the next large body starts a new thread.
    for (const [id, entry] of waiting) {
      waiting.delete(id);
      entry.resolve(parseBody(entry.bytes, MAX_NESTING_DEPTH));
    }
  };
  started.on('error', failed);
  started.on('exit', failed);
  return started;
}

/**
 * A thread that parsed megabytes keeps the memory its heap grew to; a few seconds after its last
 * body it is ended, which gives that memory back, and the next large body starts a new one.
 */
const IDLE_MS = 5_000;
let idleTimer: NodeJS.Timeout | null = null;

function stopWhenIdle(running: Worker): void {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    idleTimer = null;
    if (worker !== running || waiting.size > 0) return;
    worker = null;
    void running.terminate();
  }, IDLE_MS);
  idleTimer.unref();
}

export function parseOffThread(body: Buffer): Promise<ParsedBody> {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = null;
  worker ??= startWorker();
  const running = worker;
  const id = (nextId += 1);
  return new Promise<ParsedBody>((resolve) => {
    // The bytes are copied to the thread (a fraction of a millisecond for megabytes), and kept
    // here for a fallback parse should the thread die meanwhile.
    waiting.set(id, { resolve, bytes: body });
    running.postMessage({ id, bytes: body });
  });
}

/** How many bodies the thread has parsed (for tests and the curious). */
export function offThreadParses(): number {
  return parsedOffThread;
}
