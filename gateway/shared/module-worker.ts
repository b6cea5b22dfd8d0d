/**
 * Starts a worker thread on one of the gateway's own entry files (a TypeScript module, type-checked
 * and linted like the rest), wherever the gateway runs from:
 *
 * - from the compiled bundle (dist/gateway.js and its siblings), the entry is the bundle
 *   scripts/build.mjs writes beside them: `gateway/store/generation-writer-worker.ts` runs as
 *   `dist/generation-writer-worker.js`, so each worker entry is also an entry of that build, under
 *   its file's base name;
 * - from the sources (tsx, Vitest), the TypeScript file itself, through worker-from-sources.mjs,
 *   which gives the thread tsx's loader first: Node 20 runs no `--import` given to a worker, and
 *   the parent's loader does not reach it.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** Whether this module runs from its TypeScript source rather than from a bundle in dist/. */
const fromSources = fileURLToPath(import.meta.url).endsWith('.ts');

/**
 * The worker on `entry`, a TypeScript entry file named the way its caller sees it in the sources:
 * `new URL('./generation-writer-worker.ts', import.meta.url)`.
 */
export function startModuleWorker(entry: URL, options: WorkerOptions = {}): Worker {
  // Whatever flags started this process (tsx's own, `--input-type`), the thread runs plain files.
  const settings: WorkerOptions = { execArgv: [], ...options };
  if (fromSources) {
    return new Worker(new URL('./worker-from-sources.mjs', import.meta.url), {
      ...settings,
      argv: [entry.href],
    });
  }
  const bundled = `${path.basename(fileURLToPath(entry), '.ts')}.js`;
  return new Worker(new URL(`./${bundled}`, import.meta.url), settings);
}
