/**
 * For specs that run a gateway and a workbench of their own (outside the suite's slots): a free
 * loopback port, and a wait for a process to answer.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

/** A loopback port free now; once returned, nothing listens on it (a closed port). */
export { freePort } from '../testing/gateway-process';
import { freePort } from '../testing/gateway-process';

/** Waits until `check` says yes (errors count as no), for at most 30 s. */
export async function waitUntil(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} did not come up within 30 s`);
}

export type ExternalWorkbench = { url: string; stop(): Promise<void> };

/**
 * Starts the built workbench (dist/start.js) in external mode, pointed at `gatewayUrl` with
 * `key` as its one profile, and waits until it answers.
 */
export async function startExternalWorkbench(
  gatewayUrl: string,
  key: string,
): Promise<ExternalWorkbench> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [path.join(root, 'dist', 'start.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      WORKBENCH_PORT: String(port),
      GATEWAY_BASE_URL: gatewayUrl,
      GATEWAY_API_KEY: key,
    },
    cwd: root,
    stdio: 'ignore',
  });
  await waitUntil(async () => (await fetch(`${url}/api/health`)).ok, 'the workbench');
  return {
    url,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
