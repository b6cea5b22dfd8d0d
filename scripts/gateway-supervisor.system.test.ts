import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChildMessage, GatewaySupervisor, SupervisorLogger } from './gateway-supervisor';
import { defaultRestartDelayMs, superviseGateway } from './gateway-supervisor';
import { embeddedGatewayBundle } from '../testing/gateway-bundle';

const fakeChild = path.join(import.meta.dirname, '__fixtures__', 'fake-gateway-child.mjs');
const quietLogger: SupervisorLogger = { info: () => {}, warn: () => {}, error: () => {} };

const running: GatewaySupervisor[] = [];
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((supervisor) => supervisor.stop()));
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

function temporaryFolder(): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'supervisor-test-'));
  folders.push(folder);
  return folder;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function supervise(
  env: Record<string, string> = {},
  options: { pidFile?: string; delays?: number[] } = {},
): Promise<GatewaySupervisor> {
  const delays: number[] = options.delays ?? [];
  const supervisor = await superviseGateway({
    entry: fakeChild,
    execArgv: [],
    env: { ...process.env, ...env },
    logger: quietLogger,
    pidFile: options.pidFile ?? null,
    restartDelayMs: (attempt) => {
      delays.push(attempt);
      return 30;
    },
  });
  running.push(supervisor);
  return supervisor;
}

describe('the embedded gateway supervisor', () => {
  it('backs off 2 s, 4 s, 8 s … up to 30 s', () => {
    expect([1, 2, 3, 4, 5, 6, 10].map(defaultRestartDelayMs)).toEqual([
      2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000,
    ]);
  });

  it('restarts a child that dies, saying so meanwhile, and writes its pid', async () => {
    const folder = temporaryFolder();
    const pidFile = path.join(folder, 'gateway.pid');
    const supervisor = await supervise({}, { pidFile });
    expect(supervisor.url).toBe('http://127.0.0.1:9');
    expect(supervisor.status()).toMatchObject({ state: 'running', attempt: 0, restarts: 0 });
    const firstPid = supervisor.pid()!;
    expect(fs.readFileSync(pidFile, 'utf8').trim()).toBe(String(firstPid));

    process.kill(firstPid, 'SIGKILL');
    await expect.poll(() => supervisor.status().state).toBe('restarting');
    expect(supervisor.status()).toMatchObject({ attempt: 1, last_exit: 'signal SIGKILL' });

    await expect.poll(() => supervisor.status().state).toBe('running');
    expect(supervisor.status()).toMatchObject({ attempt: 0, restarts: 1 });
    const secondPid = supervisor.pid()!;
    expect(secondPid).not.toBe(firstPid);
    expect(fs.readFileSync(pidFile, 'utf8').trim()).toBe(String(secondPid));

    await supervisor.stop();
    expect(isAlive(secondPid)).toBe(false);
    expect(fs.existsSync(pidFile)).toBe(false);
    expect(supervisor.status().state).toBe('stopped');
  });

  it('counts attempts in a row while the child keeps failing to start', async () => {
    const folder = temporaryFolder();
    const delays: number[] = [];
    const supervisor = await supervise(
      { FAKE_CHILD_COUNTER: path.join(folder, 'runs'), FAKE_CHILD_FAIL_RUNS: '2,3' },
      { delays },
    );
    process.kill(supervisor.pid()!, 'SIGTERM');
    await expect.poll(() => supervisor.status().restarts, { timeout: 5_000 }).toBe(1);
    expect(supervisor.status().state).toBe('running');
    // Runs 2 and 3 failed, run 4 started: three attempts, each waiting longer.
    expect(delays).toEqual([1, 2, 3]);
    expect(supervisor.status().last_exit).toMatch(/run 3 fails on purpose/);
  });

  it('fails at once when the first start fails', async () => {
    const folder = temporaryFolder();
    await expect(
      superviseGateway({
        entry: fakeChild,
        execArgv: [],
        env: {
          ...process.env,
          FAKE_CHILD_COUNTER: path.join(folder, 'runs'),
          FAKE_CHILD_FAIL_RUNS: '1',
        },
        logger: quietLogger,
      }),
    ).rejects.toThrow(/run 1 fails on purpose/);
  });
});

describe('the embedded gateway process', () => {
  it('serves, ignores Ctrl+C meant for its parent, and stops when its parent goes away', async () => {
    const folder = temporaryFolder();
    const child = spawn(process.execPath, [embeddedGatewayBundle], {
      env: {
        ...process.env,
        GATEWAY_PORT: '0',
        GATEWAY_DB: path.join(folder, 'gateway.db'),
        GATEWAY_LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const message = await new Promise<ChildMessage>((resolve) => child.once('message', resolve));
      expect(message.type).toBe('ready');
      const url = (message as { url: string }).url;
      expect((await fetch(`${url}/v1/models`)).status).toBe(200);

      child.kill('SIGINT');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await fetch(`${url}/v1/models`)).status).toBe(200);

      // The parent dying (even by SIGKILL) closes the IPC channel; the gateway stops with it.
      child.disconnect();
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
