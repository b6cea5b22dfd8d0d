/**
 * The gateway's compiled command line (dist/gateway.js), as `npm run gateway` and `npm start` run
 * it. Tests spawn it with plain node rather than under tsx: a start costs a fraction as much, and
 * it is what ships. `testing/build-once.ts` builds it once per test run.
 */
import path from 'node:path';

export const repositoryRoot = path.resolve(import.meta.dirname, '..');
export const gatewayBundle = path.join(repositoryRoot, 'dist', 'gateway.js');
export const embeddedGatewayBundle = path.join(repositoryRoot, 'dist', 'embedded-gateway.js');

/** Node's arguments that run the gateway's command line with `args`. */
export const gatewayArgs = (args: string[]): string[] => [gatewayBundle, ...args];
