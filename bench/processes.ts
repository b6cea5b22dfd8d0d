/**
 * The benchmark's child processes: the mock upstream, Portkey, the BFF and the load worker, each
 * on 127.0.0.1 and a port of its own, each stopped at the end whatever happens. Memory is read
 * from /proc (VmRSS), so it is the process's own, not its parent's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { LoadJob, LoadResult, WorkerAnswer } from './load-protocol';

export const root = path.resolve(import.meta.dirname, '..');

export type Service = {
  name: string;
  pid: number;
  url: string;
  stop(): Promise<void>;
};

/** Keeps the last few kilobytes a child wrote on standard error, for a failure message. */
function tail(child: ChildProcess): () => string {
  let text = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    text = (text + chunk.toString()).slice(-4096);
  });
  return () => text.trim();
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.kill('SIGTERM');
    });
}

/** A TypeScript entry run by Node with tsx's loader: one process, so its pid is the service's. */
export function spawnTypeScript(
  entry: string,
  args: string[],
  environment: NodeJS.ProcessEnv = process.env,
): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(root, entry), ...args], {
    cwd: root,
    env: environment,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Starts a child that prints `{"port": N}` on its first line once it listens. */
export async function startAnnouncingService(
  name: string,
  child: ChildProcess,
  timeoutMs = 30_000,
): Promise<Service> {
  const stderr = tail(child);
  const stop = stopper(child);
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let text = '';
      const timer = setTimeout(
        () => reject(new Error(`${name} did not start within ${timeoutMs} ms`)),
        timeoutMs,
      );
      child.stdout!.on('data', (chunk: Buffer) => {
        text += chunk.toString();
        const line = text.split('\n')[0];
        if (text.includes('\n') && line) {
          clearTimeout(timer);
          resolve((JSON.parse(line) as { port: number }).port);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${name} exited (${code}): ${stderr()}`));
      });
    });
    // Nothing else is read from it; a full pipe must never block the child.
    child.stdout!.resume();
    return { name, pid: child.pid!, url: `http://127.0.0.1:${port}`, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Portkey's open-source gateway from node_modules, headless (no console UI, no log stream), run
 * with plain `node` as its package's bin does. It binds every interface and takes no host
 * option, so a preload keeps it on 127.0.0.1 (bench/listen-on-loopback.mjs).
 */
export async function startPortkey(port: number): Promise<Service> {
  const entry = path.join(
    root,
    'node_modules',
    '@portkey-ai',
    'gateway',
    'build',
    'start-server.js',
  );
  const preload = path.join(root, 'bench', 'listen-on-loopback.mjs');
  const child = spawn(
    process.execPath,
    ['--import', preload, entry, `--port=${port}`, '--headless'],
    {
      cwd: root,
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const stderr = tail(child);
  const stop = stopper(child);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`Portkey exited (${child.exitCode}): ${stderr()}`);
    try {
      await fetch(url);
      return { name: 'portkey', pid: child.pid!, url, stop };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  await stop();
  throw new Error(`Portkey did not start within 30 s: ${stderr()}`);
}

/** Resident memory of a process in MB, or null once it is gone. */
export function residentMegabytes(pid: number): number | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kilobytes = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
    return Number.isFinite(kilobytes) ? Math.round((kilobytes / 1024) * 10) / 10 : null;
  } catch {
    return null;
  }
}

/** Samples the processes' memory every 200 ms while `during` runs; the highest value each. */
export async function peakMemory<T>(
  pids: Record<string, number>,
  during: () => Promise<T>,
): Promise<{ value: T; peakMb: Record<string, number | null> }> {
  const peakMb: Record<string, number | null> = Object.fromEntries(
    Object.keys(pids).map((name) => [name, null]),
  );
  const sample = () => {
    for (const [name, pid] of Object.entries(pids)) {
      const megabytes = residentMegabytes(pid);
      if (megabytes !== null) peakMb[name] = Math.max(peakMb[name] ?? 0, megabytes);
    }
  };
  sample();
  const timer = setInterval(sample, 200);
  try {
    const value = await during();
    sample();
    return { value, peakMb };
  } finally {
    clearInterval(timer);
  }
}

export type LoadWorker = {
  pid: number;
  run<Result extends LoadResult>(job: LoadJob): Promise<Result>;
  stop(): Promise<void>;
};

/** The load generator's process (bench/load-worker.ts): one job at a time, over stdin/stdout. */
export async function startLoadWorker(): Promise<LoadWorker> {
  const child = spawnTypeScript('bench/load-worker.ts', []);
  const stderr = tail(child);
  const waiting: Array<{ resolve(answer: WorkerAnswer): void; reject(error: Error): void }> = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    waiting.shift()?.resolve(JSON.parse(line) as WorkerAnswer);
  });
  child.once('exit', (code) => {
    for (const pending of waiting.splice(0)) {
      pending.reject(new Error(`the load worker exited (${code}): ${stderr()}`));
    }
  });
  return {
    pid: child.pid!,
    async run<Result extends LoadResult>(job: LoadJob) {
      const answer = await new Promise<WorkerAnswer>((resolve, reject) => {
        waiting.push({ resolve, reject });
        child.stdin!.write(`${JSON.stringify(job)}\n`);
      });
      if (!answer.ok) throw new Error(`load worker: ${answer.error}`);
      if (answer.result.kind !== job.kind)
        throw new Error(`load worker answered a ${answer.result.kind} job`);
      return answer.result as Result;
    },
    stop: stopper(child),
  };
}

/**
 * Stops every process the benchmark started and removes its scratch folder, once; Ctrl-C (or a
 * SIGTERM) does the same before the process ends. `children` is read when stopping, so processes
 * started later are included.
 */
export function stopperOf(
  folder: string,
  children: () => Array<{ stop(): Promise<void> } | null>,
  before: () => void = () => undefined,
): () => Promise<void> {
  const interrupted = () => void stopAll().finally(() => process.exit(130));
  const stopAll = async () => {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    before();
    await Promise.allSettled(children().map((child) => child?.stop()));
    fs.rmSync(folder, { recursive: true, force: true });
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  return stopAll;
}
