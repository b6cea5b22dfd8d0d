/**
 * Running an agent CLI as its users do, bounded and isolated, for the agent tests: its own HOME
 * and temp workspace, no proxy, telemetry off, a deadline, and only loopback addresses in its
 * environment. A recording proxy sits between the CLI and the gateway, so a test sees every
 * request the CLI sent (and a fixture can catch what a new release sends).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';

export type RecordedRequest = {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
};

export type RecordingProxy = {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
};

/** A loopback proxy that records each request and passes it on to `target`, streams included. */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body: unknown = null;
      if (raw.length > 0) {
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          body = raw.toString('utf8');
        }
      }
      requests.push({
        method: request.method!,
        path: request.url!,
        headers: request.headers,
        body,
      });
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (value === undefined || ['host', 'content-length', 'connection'].includes(name))
          continue;
        headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      void fetch(`${target}${request.url}`, {
        method: request.method,
        headers,
        body: raw.length > 0 ? raw : undefined,
      })
        .then((answer) => {
          response.writeHead(answer.status, Object.fromEntries(answer.headers));
          if (!answer.body) return response.end();
          Readable.fromWeb(answer.body as never).pipe(response);
        })
        .catch(() => {
          response.writeHead(502).end();
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type CliRun = { code: number | null; stdout: string; stderr: string; timedOut: boolean };

/** A fresh HOME and workspace for one run; removed by `cleanup`. */
export function isolatedHome(): { home: string; workspace: string; cleanup: () => void } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-cli-'));
  const workspace = path.join(home, 'workspace');
  fs.mkdirSync(workspace);
  return { home, workspace, cleanup: () => fs.rmSync(home, { recursive: true, force: true }) };
}

/**
 * Runs `command` with only the environment given (plus PATH), no proxies, killed at `timeoutMs`.
 * Proxy variables point nowhere so that a CLI which ignores its base URL cannot reach out.
 */
export function runCli(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; timeoutMs: number },
): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        TMPDIR: path.join(options.env.HOME ?? options.cwd, 'tmp'),
        NO_COLOR: '1',
        CI: '1',
        HTTP_PROXY: 'http://127.0.0.1:9',
        HTTPS_PROXY: 'http://127.0.0.1:9',
        ALL_PROXY: 'http://127.0.0.1:9',
        NO_PROXY: '127.0.0.1,localhost',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    fs.mkdirSync(path.join(options.env.HOME ?? options.cwd, 'tmp'), { recursive: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}

/**
 * The shape of a request, without its values: its top-level fields, tool kinds and item kinds.
 * What a fixture keeps, so a release that sends something new fails a test first.
 */
export function requestShape(body: Record<string, unknown>): Record<string, unknown> {
  const tools = (body.tools as Array<Record<string, unknown>> | undefined) ?? [];
  const input = Array.isArray(body.input) ? (body.input as Array<Record<string, unknown>>) : [];
  return {
    fields: Object.keys(body).sort(),
    toolTypes: [...new Set(tools.map((tool) => String(tool.type)))].sort(),
    inputItems: [
      ...new Set(
        input.map((item) => `${String(item.type ?? 'message')}:${String(item.role ?? '')}`),
      ),
    ].sort(),
    include: body.include ?? null,
    store: body.store ?? null,
    stream: body.stream ?? null,
  };
}
