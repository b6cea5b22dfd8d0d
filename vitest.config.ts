import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';
// An older Node stops the run here, saying which to use (the pinned one, through npm).
import './scripts/require-node.mjs';

/**
 * Three suites, named by the file: `*.test.ts` is a unit test (in-process, no socket, no file),
 * `*.integration.test.ts` talks to loopback servers, SQLite, PostgreSQL or Redis, and
 * `*.system.test.ts` spawns processes (the compiled gateway, the agent CLIs). `npm test` runs all
 * three; `npm run test:unit`, `test:integration` and `test:system` run one. docs/tests.md says more.
 */
const nodeFolders = '{contract,gateway,server,scripts,bench,testing}';
const integration = '**/*.integration.test.{ts,tsx}';
const system = '**/*.system.test.{ts,tsx}';

export default defineConfig({
  test: {
    globals: true,
    // Loopback servers and SQLite files make tests slower than pure functions; keep it generous.
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // One per core. Tests that share a server pick their own ports, schemas and Redis prefixes.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          // The UI's logic too (web/**/*.test.ts): it needs no DOM. docs/tests.md says more.
          environment: 'node',
          include: [`${nodeFolders}/**/*.test.ts`, 'web/**/*.test.ts'],
          exclude: [integration, system, '**/node_modules/**'],
          setupFiles: ['testing/unit-guard.ts'],
        },
      },
      {
        extends: true,
        plugins: [react()],
        test: {
          name: 'unit-web',
          // Faster than jsdom (62 s against 97 s); files it gets wrong ask for jsdom (docs/tests.md).
          environment: 'happy-dom',
          include: ['web/**/*.test.tsx'],
          exclude: [integration, system, '**/node_modules/**'],
          setupFiles: ['testing/unit-guard.ts', 'web/test/setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          environment: 'node',
          include: [`${nodeFolders}/${integration}`],
          exclude: [`server/${integration}`, '**/node_modules/**'],
          setupFiles: ['testing/loopback-only.ts'],
          // The gateway's files share loaded modules: each starts servers and stores of its own
          // and holds no module state, and the time to load them went on every file.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          // The BFF's files keep a process each. They were split out when its gateway client used
          // Node's process-wide fetch pool; each client now has an agent of its own
          // (contract/http-client.ts), so whether they can share one has not been tried yet.
          name: 'integration-server',
          environment: 'node',
          include: [`server/${integration}`],
          setupFiles: ['testing/loopback-only.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'system',
          environment: 'node',
          include: [`${nodeFolders}/${system}`],
          // The compiled gateway, built once before any test spawns it.
          globalSetup: ['testing/build-once.ts'],
          setupFiles: ['testing/loopback-only.ts'],
        },
      },
    ],
  },
});
