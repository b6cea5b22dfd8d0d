/**
 * Running the pinned agent CLIs (Claude Code, Gemini CLI) against a gateway on loopback: each run
 * gets its own HOME and workspace, an environment with nothing but loopback addresses and
 * telemetry off, and a time bound. A recording proxy in front of the gateway keeps what the CLI
 * sent, so its requests can be compared with the recorded fixture field by field.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..', '..');
export const CLAUDE_BIN = path.join(root, 'node_modules', '.bin', 'claude');
export const GEMINI_BIN = path.join(root, 'node_modules', '.bin', 'gemini');

/** What a CLI sent, as the gateway received it. */
export type SentRequest = {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  /** The gateway's answer headers (the proxy's recording only; never in a fixture). */
  answerHeaders?: Record<string, string>;
};

export type RecordingProxy = {
  url: string;
  requests: SentRequest[];
  close(): Promise<void>;
};

/** A loopback proxy that records each request whole, then forwards it and streams the answer. */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const requests: SentRequest[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === 'string') headers[name] = value;
      }
      let body: Record<string, unknown>;
      try {
        body = raw.length > 0 ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : {};
      } catch {
        body = { unparsed: raw.toString('utf8').slice(0, 200) };
      }
      const sent: SentRequest = {
        method: request.method ?? 'GET',
        path: request.url ?? '/',
        headers,
        body,
      };
      requests.push(sent);
      const forward = http.request(
        new URL(request.url ?? '/', target),
        { method: request.method, headers: { ...request.headers, host: new URL(target).host } },
        (answer) => {
          sent.answerHeaders = Object.fromEntries(
            Object.entries(answer.headers).filter(
              (entry): entry is [string, string] => typeof entry[1] === 'string',
            ),
          );
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      forward.on('error', () => response.destroy());
      forward.end(raw);
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

export const newWorkspace = () => fs.mkdtempSync(path.join(os.tmpdir(), 'agent-workspace-'));

export type AgentRun = { code: number | null; stdout: string; stderr: string; workspace: string };

/**
 * Runs a CLI once in a fresh HOME and workspace (with `files` written into it), the environment
 * limited to PATH, the given variables and telemetry switches; killed after `timeoutMs`.
 */
export async function runAgent(options: {
  bin: string;
  args: string[];
  environment: Record<string, string>;
  files?: Record<string, string>;
  /** Written under HOME before the run (settings files), relative paths. */
  homeFiles?: Record<string, string>;
  /** The workspace, when the test needs its path before the run (`newWorkspace`). */
  workspace?: string;
  timeoutMs: number;
}): Promise<AgentRun> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-home-'));
  const workspace = options.workspace ?? newWorkspace();
  for (const [name, text] of Object.entries(options.files ?? {})) {
    fs.writeFileSync(path.join(workspace, name), text);
  }
  for (const [name, text] of Object.entries(options.homeFiles ?? {})) {
    fs.mkdirSync(path.dirname(path.join(home, name)), { recursive: true });
    fs.writeFileSync(path.join(home, name), text);
  }
  try {
    return await new Promise<AgentRun>((resolve) => {
      execFile(
        options.bin,
        options.args,
        {
          cwd: workspace,
          timeout: options.timeoutMs,
          killSignal: 'SIGKILL',
          maxBuffer: 16 * 1024 * 1024,
          // Nothing inherited: no proxy, no real key, no config from the machine's own HOME.
          env: {
            PATH: process.env.PATH ?? '/usr/bin:/bin',
            HOME: home,
            TMPDIR: os.tmpdir(),
            NO_PROXY: '127.0.0.1,localhost',
            DISABLE_TELEMETRY: '1',
            DISABLE_ERROR_REPORTING: '1',
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
            GEMINI_TELEMETRY_ENABLED: 'false',
            ...options.environment,
          },
        },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
          resolve({ code, stdout, stderr, workspace });
        },
      );
    });
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** Values that are data, not request fields: their inner keys are not compared. */
const OPAQUE = new Set([
  'input_schema',
  'parametersJsonSchema',
  'parameters',
  'input',
  'args',
  'response',
  'user_id',
]);

/**
 * Every field path of a request body, array positions as `*`, sorted: what a fixture diff
 * compares, so new text or tools in a CLI release pass but a new field fails.
 */
export function fieldShape(value: unknown, at = ''): string[] {
  const paths = new Set<string>();
  const walk = (inner: unknown, prefix: string) => {
    if (Array.isArray(inner)) {
      for (const item of inner) walk(item, `${prefix}.*`);
      return;
    }
    if (inner === null || typeof inner !== 'object') return;
    for (const [key, child] of Object.entries(inner)) {
      const next = prefix === '' ? key : `${prefix}.${key}`;
      paths.add(next);
      if (!OPAQUE.has(key)) walk(child, next);
    }
  };
  walk(value, at);
  return [...paths].sort();
}

/** Headers worth keeping in a fixture; keys and per-machine ids are never kept. */
const KEPT_HEADERS = new Set(['anthropic-beta', 'anthropic-version', 'content-type']);

/**
 * A request as a fixture keeps it: no key (header or query), no machine or session ids, long
 * texts cut (the system prompt and tool descriptions change every release; their shape does not).
 */
export function scrubRequest(request: SentRequest): SentRequest {
  const cut = (value: unknown): unknown => {
    if (typeof value === 'string') return value.length > 160 ? `${value.slice(0, 160)}…` : value;
    if (Array.isArray(value)) return value.map(cut);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        key === 'user_id' ? '<scrubbed>' : cut(inner),
      ]),
    );
  };
  const url = new URL(request.path, 'http://gateway');
  url.searchParams.delete('key');
  return {
    method: request.method,
    path: `${url.pathname}${url.search}`,
    headers: Object.fromEntries(
      Object.entries(request.headers).filter(([name]) => KEPT_HEADERS.has(name)),
    ),
    body: cut(request.body) as Record<string, unknown>,
  };
}

/** The request shapes a fixture holds: every field path of every recorded request. */
export function fixtureShape(requests: SentRequest[]): Set<string> {
  return new Set(requests.flatMap((request) => fieldShape(request.body)));
}

/** Field paths the live requests have that the fixture never had: a new CLI release's fields. */
export function newFields(live: SentRequest[], fixture: SentRequest[]): string[] {
  const known = fixtureShape(fixture);
  return [...fixtureShape(live)].filter((field) => !known.has(field)).sort();
}

/**
 * Compares what a run sent with a fixture file, returning the new fields. With
 * `UPDATE_AGENT_FIXTURES=1` the requests that brought new fields are added to the fixture
 * (scrubbed) instead, after a person has checked the form accepts them.
 */
export function diffWithFixture(fixturePath: string, live: SentRequest[]): string[] {
  const fixture = JSON.parse(fs.readFileSync(fixturePath, 'utf8')) as {
    cli: string;
    requests: SentRequest[];
  };
  const fresh = newFields(live, fixture.requests);
  if (fresh.length === 0 || process.env.UPDATE_AGENT_FIXTURES !== '1') return fresh;
  const adding = live.filter((request) => newFields([request], fixture.requests).length > 0);
  fixture.requests.push(...adding.map(scrubRequest));
  fs.writeFileSync(fixturePath, `${JSON.stringify(fixture, null, 2)}\n`);
  return [];
}
