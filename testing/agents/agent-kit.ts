/**
 * Running the pinned agent CLIs (Claude Code, Gemini CLI, Codex) against a gateway on loopback:
 * each run gets its own HOME and workspace, an environment with nothing but loopback addresses and
 * telemetry off, and a deadline. A recording proxy in front of the gateway keeps what the CLI
 * sent, so its requests can be compared with the recorded fixture field by field.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { UpstreamKind } from '../../gateway/providers/upstream/provider-config';
import { anthropicThinkingRules, signThinking } from '../upstreams/vendor-rules';
import { startFakeUpstream, type FakeUpstream } from '../upstreams/fake-upstream';
import { startKindUpstreams } from '../upstreams/kind-upstreams';
import type { UpstreamProviderSpec } from '../upstreams/upstream-kit';
import { startTestGateway } from '../gateway-support';

const root = path.resolve(import.meta.dirname, '..', '..');
export const CLAUDE_BIN = path.join(root, 'node_modules', '.bin', 'claude');
export const GEMINI_BIN = path.join(root, 'node_modules', '.bin', 'gemini');
export const CODEX_BIN = path.join(root, 'node_modules', '.bin', 'codex');

/** Each run is bounded; a CLI that hangs is killed and its test fails on `timedOut`. */
export const RUN_TIMEOUT_MS = 90_000;

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
  /** Runs `run` and returns, with its result, the requests that arrived meanwhile. */
  during<T>(run: () => Promise<T>): Promise<{ result: T; sent: SentRequest[] }>;
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
      // An unreachable gateway is a 502 the CLI can report; once the answer has begun, all that
      // is left is to cut it.
      forward.on('error', () => {
        if (response.headersSent) response.destroy();
        else response.writeHead(502).end();
      });
      forward.end(raw);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    during: async (run) => {
      const before = requests.length;
      const result = await run();
      return { result, sent: requests.slice(before) };
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A gateway with the simulated models and a fake upstream of each kind, behind a recording proxy. */
export type KindsGateway = {
  proxy: RecordingProxy;
  /** An account key with room for every run. */
  key: string;
  fakes: Record<UpstreamKind, FakeUpstream>;
  /** An Anthropic upstream whose model reasons, keeping the vendor's thinking rules. */
  thinking: { fake: FakeUpstream; model: string };
  close(): Promise<void>;
};

export const THINKING_MODEL = 'test/ant-thinking';

/** The alias every kinds gateway serves (docs/routing.md): a team's name for a simulated model. */
export const AGENT_ALIAS = { id: 'team/coder', models: ['sim/chat-standard'] };

/** What the thinking upstream thinks before its tool call. */
export const THOUGHT = 'The user asks about a file; I should call the tool that reads it.';

/**
 * A tool loop's two upstream requests, the second with thinking still on and its tool-call turn
 * opening with the thinking block the upstream signed, byte for byte (the fake refuses anything
 * else with the vendor's 400, so the loop would not have finished).
 */
export function expectThinkingKept(requests: Array<{ body: Record<string, unknown> }>) {
  expect(requests).toHaveLength(2);
  const body = requests[1]!.body as {
    thinking?: { type: string };
    messages: Array<{ role: string; content: unknown }>;
  };
  expect(body.thinking?.type).not.toBe('disabled');
  expect(body.thinking).toBeDefined();
  const turn = body.messages.findLast((message) => message.role === 'assistant')!;
  expect((turn.content as unknown[])[0]).toEqual({
    type: 'thinking',
    thinking: THOUGHT,
    signature: signThinking(THOUGHT),
  });
}

/** An Anthropic fake that keeps the vendor's thinking rules, and its provider serving a reasoner. */
export async function startThinkingUpstream() {
  const fake = await startFakeUpstream();
  fake.refuse = anthropicThinkingRules;
  const spec: UpstreamProviderSpec = {
    id: 'ant-think',
    kind: 'anthropic',
    url: fake.url,
    retry: { max_attempts: 1 },
    models: [
      {
        id: THINKING_MODEL,
        upstreamModel: 'claude-upstream-1',
        prompt: '0.000003',
        completion: '0.000015',
        maxCompletionTokens: 32_000,
        supportedParameters: ['max_tokens', 'temperature', 'tools', 'tool_choice', 'reasoning'],
      },
    ],
  };
  return { fake, spec };
}

export async function startKindsGateway(): Promise<KindsGateway> {
  const thinking = await startThinkingUpstream();
  const upstreams = await startKindUpstreams({
    includeSimulatedModels: true,
    also: [thinking.spec],
  });
  // An alias, so each CLI can be shown to work through a team's own model name.
  const providers = { ...upstreams.providers, aliases: [AGENT_ALIAS] };
  const gateway = await startTestGateway({ providers });
  const { key } = await gateway.createKey({ kind: 'account', limitUsd: 50 });
  const proxy = await startRecordingProxy(gateway.url);
  return {
    proxy,
    key,
    fakes: upstreams.fakes,
    thinking: { fake: thinking.fake, model: THINKING_MODEL },
    close: async () => {
      await proxy.close();
      await gateway.stop();
      await upstreams.close();
      await thinking.fake.close();
    },
  };
}

export const newWorkspace = () => fs.mkdtempSync(path.join(os.tmpdir(), 'agent-workspace-'));

export type AgentRun = { code: number | null; stdout: string; stderr: string; timedOut: boolean };

/** Where proxy variables point: a closed port, so a CLI that ignores its base URL reaches nothing. */
const NOWHERE = 'http://127.0.0.1:9';

/**
 * Runs a CLI once in a fresh HOME and workspace (with `files` written into it), the environment
 * limited to PATH, the given variables, telemetry switches and proxies pointing nowhere; killed
 * (SIGKILL) after `timeoutMs`. HOME and workspace are removed after the run.
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
  timeoutMs?: number;
  /** Called with HOME after the run, before it is removed: to read what the CLI kept there. */
  readHome?: (home: string) => void;
}): Promise<AgentRun> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-home-'));
  const workspace = options.workspace ?? newWorkspace();
  // The CLI's temporary files stay in its HOME and go with it.
  const tmp = path.join(home, 'tmp');
  fs.mkdirSync(tmp);
  for (const [name, text] of Object.entries(options.files ?? {})) {
    fs.writeFileSync(path.join(workspace, name), text);
  }
  for (const [name, text] of Object.entries(options.homeFiles ?? {})) {
    fs.mkdirSync(path.dirname(path.join(home, name)), { recursive: true });
    fs.writeFileSync(path.join(home, name), text);
  }
  try {
    return await new Promise<AgentRun>((resolve) => {
      const child = spawn(options.bin, options.args, {
        cwd: workspace,
        // Nothing inherited: no proxy, no real key, no config from the machine's own HOME.
        env: {
          // The CLIs that start with `#!/usr/bin/env node` run on this process's Node (the pinned
          // one), even when the tests were started without npm's PATH.
          PATH: [path.dirname(process.execPath), process.env.PATH ?? '/usr/bin:/bin'].join(
            path.delimiter,
          ),
          HOME: home,
          TMPDIR: tmp,
          HTTP_PROXY: NOWHERE,
          HTTPS_PROXY: NOWHERE,
          ALL_PROXY: NOWHERE,
          NO_PROXY: '127.0.0.1,localhost',
          DISABLE_TELEMETRY: '1',
          DISABLE_ERROR_REPORTING: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          GEMINI_TELEMETRY_ENABLED: 'false',
          ...options.environment,
        },
        // No stdin: a CLI that reads it when it is not a terminal gets its end at once.
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      let timedOut = false;
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGKILL');
      }, options.timeoutMs ?? RUN_TIMEOUT_MS);
      child.on('error', (error) => {
        clearTimeout(timer);
        resolve({ code: null, stdout, stderr: `${stderr}${error.message}`, timedOut });
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr, timedOut });
      });
    });
  } finally {
    try {
      options.readHome?.(home);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  }
}

/**
 * Values that are data, not request fields: their inner keys are not compared. Below the top
 * level only: a Responses request's own `input` is its item list, a tool call's is data.
 */
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
 * What a fixture diff compares besides field names: keys whose values belong to the shape too
 * (`type`, `role`), written `path=value`, so a new tool or item kind fails like a new field.
 */
export type ShapeOptions = { valued?: readonly string[] };

/**
 * Every field path of a request body, array positions as `*`, sorted: what a fixture diff
 * compares, so new text or tools in a CLI release pass but a new field fails.
 */
export function fieldShape(value: unknown, options: ShapeOptions = {}): string[] {
  const valued = new Set(options.valued);
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
      if (valued.has(key)) {
        for (const scalar of [child].flat()) {
          if (scalar === null || typeof scalar !== 'object') paths.add(`${next}=${String(scalar)}`);
        }
      }
      if (prefix === '' || !OPAQUE.has(key)) walk(child, next);
    }
  };
  walk(value, '');
  return [...paths].sort();
}

/** Headers worth keeping in a fixture; keys and per-machine ids are never kept. */
const KEPT_HEADERS = new Set(['anthropic-beta', 'anthropic-version', 'content-type']);

/** Session, thread and installation ids (Codex sends them in several fields and in texts). */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/**
 * A request as a fixture keeps it: no key (header or query), no machine or session ids, long
 * texts cut (the system prompt and tool descriptions change every release; their shape does not).
 */
export function scrubRequest(request: SentRequest): SentRequest {
  const cut = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const text = value.replace(UUID, '<scrubbed>');
      return text.length > 160 ? `${text.slice(0, 160)}…` : text;
    }
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
export function fixtureShape(requests: SentRequest[], options: ShapeOptions = {}): Set<string> {
  return new Set(requests.flatMap((request) => fieldShape(request.body, options)));
}

/** Field paths the live requests have that the fixture never had: a new CLI release's fields. */
export function newFields(
  live: SentRequest[],
  fixture: SentRequest[],
  options: ShapeOptions = {},
): string[] {
  const known = fixtureShape(fixture, options);
  return [...fixtureShape(live, options)].filter((field) => !known.has(field)).sort();
}

/**
 * Compares what a run sent with a fixture file, returning the new fields. With
 * `UPDATE_AGENT_FIXTURES=1` the requests that brought new fields are added to the fixture
 * (scrubbed) instead, after a person has checked the form accepts them.
 */
export function diffWithFixture(
  fixturePath: string,
  live: SentRequest[],
  options: ShapeOptions = {},
): string[] {
  const fixture = JSON.parse(fs.readFileSync(fixturePath, 'utf8')) as {
    cli: string;
    requests: SentRequest[];
  };
  const fresh = newFields(live, fixture.requests, options);
  if (fresh.length === 0 || process.env.UPDATE_AGENT_FIXTURES !== '1') return fresh;
  const adding = live.filter(
    (request) => newFields([request], fixture.requests, options).length > 0,
  );
  fixture.requests.push(...adding.map(scrubRequest));
  fs.writeFileSync(fixturePath, `${JSON.stringify(fixture, null, 2)}\n`);
  return [];
}
