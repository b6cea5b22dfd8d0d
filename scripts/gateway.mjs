/**
 * `npm run gateway -- …`: the gateway's command line, compiled. Builds first when its sources
 * changed; build messages go to standard error, so `--json` output stays one object.
 */
// First: an older Node stops here with what to run instead (imports run in order).
import './require-node.mjs';
import { ensureBuilt } from './build.mjs';

await ensureBuilt({ web: false });
await import('../dist/gateway.js');
