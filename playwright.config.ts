import { defineConfig } from '@playwright/test';
import { e2eDataDir, e2eEnvironment, e2eWorkbenchUrl } from './e2e/environment';

/**
 * End-to-end tests run Debian's Chromium (never a downloaded browser) against the real BFF and
 * the embedded gateway, started by `npm start` on ports and a database of their own.
 */
export default defineConfig({
  testDir: 'e2e',
  timeout: 60_000,
  workers: 1,
  reporter: [['list']],
  use: {
    baseURL: e2eWorkbenchUrl,
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
  webServer: {
    // A fresh build of the UI and the compiled server (what `npm start` runs), and a fresh
    // database each run: the start script creates the demo keys on it.
    command: `rm -rf '${e2eDataDir}' && node scripts/build.mjs && node scripts/start.mjs`,
    url: `${e2eWorkbenchUrl}/api/health`,
    env: e2eEnvironment,
    reuseExistingServer: false,
    timeout: 180_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
