/**
 * `npm start` and `npm run gateway` run the pinned Node even when the shell's `node` is another
 * (here the machine's, found by a PATH without the pinned one): the workbench server says its
 * version in its ready line, and each gateway in its metrics (`gateway_nodejs_version_info`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../testing/eventually';
import { freePort } from '../testing/gateway-process';
import { repositoryRoot } from '../testing/gateway-bundle';

const manifest = JSON.parse(fs.readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')) as {
  dependencies: { node: string };
};
const pinned = `v${manifest.dependencies.node}`;

/** The PATH of a shell outside npm: without node_modules/.bin and the pinned Node's folder. */
const shellPath = (process.env.PATH ?? '')
  .split(path.delimiter)
  .filter((folder) => !folder.includes('node_modules') && folder !== path.dirname(process.execPath))
  .join(path.delimiter);

const running: ChildProcess[] = [];
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(
    running.splice(0).map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          // npm's process group: npm, its shell and the Node it started.
          process.kill(-child.pid!, 'SIGTERM');
        }),
    ),
  );
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

function npm(args: string[], environment: Record<string, string>) {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'runtime-test-'));
  folders.push(folder);
  const child = spawn('npm', args, {
    cwd: repositoryRoot,
    env: {
      ...process.env,
      PATH: shellPath,
      GATEWAY_DB: path.join(folder, 'gateway.db'),
      ...environment,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  running.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // A start that stops (e.g. the version guard refusing the shell's Node) fails the wait at once.
  const exited = new Promise<never>((_resolve, reject) =>
    child.once('exit', (code) => reject(new Error(`npm ${args[0]} exited (${code}): ${output}`))),
  );
  exited.catch(() => {});
  const until = <T>(waiting: Promise<T>) => Promise.race([waiting, exited]);
  return { until, output: () => output };
}

/** The Node version a gateway's metrics name. */
async function gatewayNode(
  baseUrl: string,
  { until, output }: { until: <T>(waiting: Promise<T>) => Promise<T>; output: () => string },
): Promise<string> {
  const text = await until(
    eventually(
      async () => {
        const response = await fetch(`${baseUrl}/metrics`);
        return response.ok ? response.text() : undefined;
      },
      120_000,
      async () => output(),
    ),
  );
  const version = /^gateway_nodejs_version_info\{version="(v[\d.]+)"/m.exec(text)?.[1];
  expect(version, text.slice(0, 2_000)).toBeDefined();
  return version!;
}

describe('the runtime of what npm starts', () => {
  it("runs on another Node than the shell's", async () => {
    const spawned = spawn('node', ['--version'], { env: { PATH: shellPath } });
    let shellNode = '';
    spawned.stdout.on('data', (chunk: Buffer) => (shellNode += chunk.toString()));
    await new Promise((resolve) => spawned.once('close', resolve));
    // Without that, this file would prove nothing: the shell would find the pinned Node anyway.
    expect(shellNode.trim()).not.toBe(pinned);
    expect(process.version).toBe(pinned);
  });

  it('`npm run gateway -- serve` runs the pinned Node', async () => {
    const port = await freePort();
    const started = npm(
      ['run', '--silent', 'gateway', '--', 'serve', '--host', '127.0.0.1', '--port', String(port)],
      {},
    );
    expect(await gatewayNode(`http://127.0.0.1:${port}`, started)).toBe(pinned);
  });

  // The first `npm start` of a checkout builds the UI too (minutes on two busy cores).
  it(
    '`npm start` runs the workbench server and its embedded gateway on the pinned Node',
    {
      timeout: 600_000,
    },
    async () => {
      const [workbenchPort, gatewayPort] = [await freePort(), await freePort()];
      const started = npm(['start'], {
        WORKBENCH_PORT: String(workbenchPort),
        GATEWAY_PORT: String(gatewayPort),
      });
      const ready = await started.until(
        eventually(
          () =>
            started
              .output()
              .split('\n')
              .filter((line) => line.startsWith('{'))
              .map((line) => JSON.parse(line) as { msg?: string; node?: string })
              .find((line) => line.msg?.startsWith('workbench ready')),
          540_000,
          async () => started.output(),
        ),
      );
      expect(ready.node).toBe(pinned);
      expect(await gatewayNode(`http://127.0.0.1:${gatewayPort}`, started)).toBe(pinned);
    },
  );
});
