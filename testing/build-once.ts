/**
 * Vitest global setup: builds the compiled gateway (when its sources are newer than the last
 * build) before any test spawns it, so no test pays for a build or races another one.
 */
import path from 'node:path';
import { repositoryRoot } from './gateway-bundle';

export default async function buildOnce(): Promise<void> {
  const { ensureBuilt } = (await import(path.join(repositoryRoot, 'scripts', 'build.mjs'))) as {
    ensureBuilt(options: { web: boolean }): Promise<void>;
  };
  await ensureBuilt({ web: false });
}
