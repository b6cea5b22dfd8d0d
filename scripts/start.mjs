/** `npm start`: builds what is missing or stale, then runs the compiled workbench with plain node. */
// First: an older Node stops here with what to run instead (imports run in order).
import './require-node.mjs';
import { ensureBuilt } from './build.mjs';

await ensureBuilt({ web: true });
await import('../dist/start.js');
