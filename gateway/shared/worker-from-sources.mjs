/**
 * A worker thread's first module when the gateway runs from its sources (module-worker.ts): gives
 * the thread tsx's loader, then runs the TypeScript entry named last on its command line. Plain
 * JavaScript, since nothing can load TypeScript before it.
 */
import { register } from 'tsx/esm/api';

register();
await import(process.argv.at(-1));
