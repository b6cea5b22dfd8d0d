/**
 * Starts a real gateway process for tests, on a port and database of its own, and mints keys with
 * the gateway's command line, as a user would. Used by tests outside gateway/ (the BFF's, the
 * benchmarks), which must reach the gateway only over HTTP and the command line.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gatewayArgs, repositoryRoot } from './gateway-bundle';

const run = promisify(execFile);
const root = repositoryRoot;

export type IssuedKey = { id: string; key: string; kind: string; parent_id: string | null };

export type GatewayProcess = {
  baseUrl: string;
  dbPath: string;
  /** The gateway process's id, e.g. to read its memory use. */
  pid: number;
  cli(args: string[]): Promise<{ stdout: string; stderr: string; code: number }>;
  createKey(args: string[]): Promise<IssuedKey>;
  /** Kills the process with a signal (SIGKILL: no shutdown, as a crash) and waits for its exit. */
  kill(signal: NodeJS.Signals): Promise<void>;
  stop(): Promise<void>;
};

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function startGatewayProcess(
  options: {
    environment?: Record<string, string>;
    dbPath?: string;
    /** Run this compiled bundle instead of dist/gateway.js (another build, e.g. an earlier commit's). */
    bundle?: string;
    /** More arguments for `serve` (e.g. `--workers 2`). */
    serveArgs?: string[];
    /** Node's own flags (e.g. `--cpu-prof`), given before the entry script. */
    nodeArgs?: string[];
  } = {},
): Promise<GatewayProcess> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-test-'));
  const dbPath = options.dbPath ?? path.join(folder, 'gateway.db');
  const port = await freePort();
  const environment = {
    ...process.env,
    GATEWAY_SETTLE_INTERVAL_MS: '200',
    GATEWAY_SIM_TOKENS_PER_SECOND: '0',
    GATEWAY_LOG_LEVEL: 'warn',
    ...options.environment,
    GATEWAY_DB: dbPath,
  };

  const cli = async (args: string[]) => {
    try {
      const { stdout, stderr } = await run(
        process.execPath,
        gatewayArgs([...args, '--db', dbPath]),
        {
          env: environment,
          cwd: root,
        },
      );
      return { stdout, stderr, code: 0 };
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string; code?: number };
      return { stdout: failed.stdout ?? '', stderr: failed.stderr ?? '', code: failed.code ?? 1 };
    }
  };

  // A no-op when testing/build-once.ts (or an earlier start) built it already.
  if (!options.bundle) {
    const { ensureBuilt } = (await import(path.join(root, 'scripts', 'build.mjs'))) as {
      ensureBuilt(options: { web: boolean }): Promise<void>;
    };
    await ensureBuilt({ web: false });
  }
  const entry = options.bundle ? [options.bundle] : gatewayArgs([]);
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...(options.nodeArgs ?? []),
      ...entry,
      'serve',
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      ...(options.serveArgs ?? []),
    ],
    {
      env: environment,
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitUntilUp(baseUrl, child, () => stderr);

  return {
    baseUrl,
    dbPath,
    pid: child.pid!,
    cli,
    async createKey(args) {
      const result = await cli(['keys', 'create', ...args, '--json']);
      if (result.code !== 0) throw new Error(`keys create failed: ${result.stderr}`);
      return JSON.parse(result.stdout) as IssuedKey;
    },
    kill: (signal) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          fs.rmSync(folder, { recursive: true, force: true });
          return resolve();
        }
        child.once('exit', () => {
          fs.rmSync(folder, { recursive: true, force: true });
          resolve();
        });
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 8_000).unref();
      }),
  };
}

async function waitUntilUp(
  baseUrl: string,
  child: ChildProcess,
  stderr: () => string,
): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`gateway exited (${child.exitCode}): ${stderr()}`);
    try {
      const response = await fetch(`${baseUrl}/v1/models`);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`gateway did not start within 30 s: ${stderr()}`);
}
