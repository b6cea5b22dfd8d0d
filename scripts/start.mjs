/** `npm start`: builds what is missing or stale, then runs the compiled workbench with plain node. */
import { ensureBuilt } from './build.mjs';

await ensureBuilt({ web: true });
await import('../dist/start.js');
