/**
 * `npm run gateway -- …`: the gateway's command line, compiled. Builds first when its sources
 * changed; build messages go to standard error, so `--json` output stays one object.
 */
import { ensureBuilt } from './build.mjs';

await ensureBuilt({ web: false });
await import('../dist/gateway.js');
