import { defineConfig } from '@playwright/test';
// An older Node stops the run here, saying which to use (the pinned one, through npm).
import './scripts/require-node.mjs';
import { e2eSlot, e2eSlots } from './e2e/environment';

/**
 * End-to-end tests run Debian's Chromium (never a downloaded browser) against the real BFF and
 * the embedded gateway, started by `npm start`: one workbench per worker, on ports and a database
 * of its own (e2e/environment.ts), so the workers run side by side without meeting.
 */
const slots = Array.from({ length: e2eSlots }, (_, index) => e2eSlot(index));

export default defineConfig({
  testDir: 'e2e',
  timeout: 60_000,
  // Twice Playwright's 5 s: with another run on the 2 cores, a page's first data took over 5 s.
  // Checks of how soon something shows keep their own timeouts.
  expect: { timeout: 10_000 },
  workers: e2eSlots,
  reporter: [['list']],
  use: {
    baseURL: slots[0]!.workbenchUrl,
    browserName: 'chromium',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    },
    trace: 'off',
  },
  // A fresh database for each workbench each run (the start script creates the demo keys on it).
  // The servers start one after the other: the first builds the UI and the server bundles (only
  // what is stale), the others find them built.
  webServer: slots.map((slot) => ({
    // The runner's own Node (the pinned one), whatever `node` the shell would find.
    command: `rm -rf '${slot.dataDir}' && '${process.execPath}' scripts/start.mjs`,
    url: `${slot.workbenchUrl}/api/health`,
    env: slot.environment,
    reuseExistingServer: false,
    timeout: 180_000,
    stdout: 'ignore' as const,
    stderr: 'pipe' as const,
  })),
});
