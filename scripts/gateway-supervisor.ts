/**
 * Runs the embedded gateway as a child process and keeps it running: when it stops without
 * being asked to, it is started again after a delay that doubles with each attempt in a row
 * (2 s, 4 s, 8 s … up to 30 s; a process that ran a minute counts as stable and starts the count
 * again). Its state (`running`, or `restarting` with the attempt) is what `/api/health` shows.
 * The child stops with the workbench: `stop()` sends SIGTERM (SIGKILL after a grace period), and
 * the child also stops when its IPC channel to this process closes, so it is never orphaned.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { EmbeddedGatewayStatus } from '../contract/workbench-api';

/** What the child tells its parent over the IPC channel. */
export type ChildMessage = { type: 'ready'; url: string } | { type: 'failed'; message: string };

export interface SupervisorLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface SupervisorOptions {
  /** The child's module (dist/embedded-gateway.js, or scripts/embedded-gateway.ts under tsx). */
  entry: string;
  /** Node options for the child, e.g. the tsx loader in development. */
  execArgv: string[];
  env: NodeJS.ProcessEnv;
  logger: SupervisorLogger;
  /** Where the running child's process id is written (removed on stop); none when null. */
  pidFile?: string | null;
  /** Delay before restart attempt `attempt` (1, 2, …). */
  restartDelayMs?: (attempt: number) => number;
  /** A process that ran at least this long resets the attempt count. */
  stableAfterMs?: number;
  /** How long a start may take before it counts as failed. */
  startTimeoutMs?: number;
  /** How long the child may take to stop after SIGTERM before it is killed. */
  stopGraceMs?: number;
}

export interface GatewaySupervisor {
  /** The gateway's root URL; the same across restarts. */
  readonly url: string;
  status(): EmbeddedGatewayStatus;
  /** The running child's process id; null while it is being restarted. */
  pid(): number | null;
  /** Stops the child and ends supervision. */
  stop(): Promise<void>;
}

/** 2 s, 4 s, 8 s, 16 s, then 30 s: long enough to be seen, short enough not to be waited on. */
export const defaultRestartDelayMs = (attempt: number) =>
  Math.min(2_000 * 2 ** Math.max(0, attempt - 1), 30_000);

function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal) return `signal ${signal}`;
  return `exit code ${code ?? 'unknown'}`;
}

/** Starts the child and waits for its `ready`; rejects with its reason when it fails. */
function launch(
  options: SupervisorOptions,
): Promise<{ child: ChildProcess; url: string; startedAt: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...options.execArgv, options.entry], {
      env: options.env,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let failure: string | null = null;
    const timer = setTimeout(() => {
      failure = `it did not start within ${options.startTimeoutMs ?? 30_000} ms`;
      child.kill('SIGKILL');
    }, options.startTimeoutMs ?? 30_000);
    const settle = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      child.off('error', onError);
    };
    const onMessage = (message: ChildMessage) => {
      if (message?.type === 'ready') {
        settle();
        resolve({ child, url: message.url, startedAt: Date.now() });
      } else if (message?.type === 'failed') {
        failure = message.message;
      }
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      settle();
      reject(new Error(failure ?? `it stopped while starting (${describeExit(code, signal)})`));
    };
    const onError = (error: Error) => {
      settle();
      child.kill('SIGKILL');
      reject(error);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
    child.on('error', onError);
  });
}

/** Starts the gateway child and supervises it; rejects when the first start fails. */
export async function superviseGateway(options: SupervisorOptions): Promise<GatewaySupervisor> {
  const restartDelayMs = options.restartDelayMs ?? defaultRestartDelayMs;
  const stableAfterMs = options.stableAfterMs ?? 60_000;
  const { logger } = options;

  let current: ChildProcess | null = null;
  let state: EmbeddedGatewayStatus['state'] = 'running';
  let attempt = 0;
  let restarts = 0;
  let lastExit: string | null = null;
  let nextStartAt: number | null = null;
  let restartTimer: NodeJS.Timeout | null = null;
  let stopping = false;

  const writePid = (pid: number | undefined) => {
    if (!options.pidFile || pid === undefined) return;
    try {
      fs.writeFileSync(options.pidFile, `${pid}\n`);
    } catch (error) {
      logger.warn({ err: error, file: options.pidFile }, 'could not write the gateway pid file');
    }
  };
  const removePid = () => {
    if (options.pidFile) fs.rmSync(options.pidFile, { force: true });
  };

  const first = await launch(options);
  const url = first.url;

  const adopt = (started: { child: ChildProcess; url: string; startedAt: number }) => {
    current = started.child;
    state = 'running';
    nextStartAt = null;
    writePid(started.child.pid);
    if (started.url !== url) {
      logger.warn({ expected: url, got: started.url }, 'the restarted gateway listens elsewhere');
    }
    started.child.once('exit', (code, signal) => {
      current = null;
      if (stopping) return;
      lastExit = describeExit(code, signal);
      // A process that ran a while was healthy: this stop starts a new count of attempts.
      if (Date.now() - started.startedAt >= stableAfterMs) attempt = 0;
      logger.error({ exit: lastExit }, 'the embedded gateway stopped; restarting it');
      scheduleRestart();
    });
  };

  const scheduleRestart = () => {
    attempt += 1;
    state = 'restarting';
    const delay = restartDelayMs(attempt);
    nextStartAt = Date.now() + delay;
    restartTimer = setTimeout(() => {
      restartTimer = null;
      if (stopping) return;
      launch(options).then(
        (started) => {
          if (stopping) {
            started.child.kill('SIGTERM');
            return;
          }
          restarts += 1;
          logger.info({ attempt, url: started.url }, 'the embedded gateway is running again');
          adopt(started);
        },
        (error: unknown) => {
          if (stopping) return;
          lastExit = `failed to start: ${(error as Error).message}`;
          logger.error({ attempt, err: error }, 'the embedded gateway did not start; trying again');
          scheduleRestart();
        },
      );
    }, delay);
  };

  adopt(first);

  return {
    url,
    status: () => ({
      state: stopping ? 'stopped' : state,
      attempt: state === 'restarting' ? attempt : 0,
      restarts,
      last_exit: lastExit,
      retry_in_ms:
        state === 'restarting' && nextStartAt !== null
          ? Math.max(0, nextStartAt - Date.now())
          : null,
    }),
    pid: () => current?.pid ?? null,
    stop: async () => {
      stopping = true;
      if (restartTimer) clearTimeout(restartTimer);
      const child = current;
      if (child && child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), options.stopGraceMs ?? 8_000);
        await exited;
        clearTimeout(killer);
      }
      removePid();
    },
  };
}
