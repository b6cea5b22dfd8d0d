/**
 * Shared by the gateway's tests: an in-process gateway on loopback with its own temporary
 * database, and small helpers for calling it over real HTTP and reading its event streams.
 * Keys are minted by the gateway at run time; none is ever written into a test.
 */
import type { Resolve } from '../gateway/shared/public-address';
import fs from 'node:fs';
import { Writable } from 'node:stream';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { cfRayPattern } from '../contract/gateway';
import type { GatewayConfig } from '../gateway/config';
import type { CreateKeyInput, IssuedKey } from '../gateway/keys/key-admin';
import { createLogger } from '../gateway/logger';
import type { Provider } from '../gateway/providers/provider';
import { startGateway, type RunningGateway } from '../gateway/index';

export type TestGateway = RunningGateway & {
  dbPath: string;
  folder: string;
  /** Creates a key through the gateway's own admin (same database). */
  createKey(input: CreateKeyInput): Promise<IssuedKey>;
  /** Makes changes written through `gateway.admin` visible to the running registry at once. */
  refreshKeys(): Promise<void>;
  /** Stops the server and removes the temporary folder. */
  stop(): Promise<void>;
};

export function tempFolder(prefix = 'gateway-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function testConfig(
  overrides: Partial<GatewayConfig> = {},
  folder = tempFolder(),
): GatewayConfig {
  return {
    host: '127.0.0.1',
    port: 0,
    databasePath: path.join(folder, 'gateway.db'),
    sqliteSync: 'full',
    settleIntervalMs: 200,
    clockOffsetMs: 0,
    responsesTtlSeconds: 86_400,
    keyPepper: 'test-pepper-that-is-long-enough',
    simulatedTokensPerSecond: 0,
    logLevel: 'silent',
    maxBodyBytes: 1024 * 1024,
    maxConcurrentPerKey: 64,
    maxCountBodyBytes: 1024 * 1024,
    clientSendTimeoutMs: 60_000,
    providers: null,
    allowPrivateImageUrls: true,
    adminToken: undefined,
    databaseUrl: undefined,
    redisUrl: undefined,
    redisPrefix: 'gateway-test:',
    leaseMs: 30_000,
    defaultRpm: 0,
    defaultTpm: 0,
    statsRetentionDays: 8,
    webhooks: { allowPrivate: true, retryBaseMs: 50, failureLimit: 20, deliveryTimeoutMs: 1_000 },
    tracing: null,
    ...overrides,
  };
}

export async function startTestGateway(
  overrides: Partial<GatewayConfig> = {},
  options: { logger?: Logger; providers?: Provider[]; resolve?: Resolve } = {},
): Promise<TestGateway> {
  const folder = tempFolder();
  const config = testConfig(overrides, folder);
  const running = await startGateway(config, {
    logger: options.logger ?? createLogger('silent'),
    ...(options.providers ? { providers: options.providers } : {}),
    ...(options.resolve ? { resolve: options.resolve } : {}),
  });
  let stopped = false;
  return {
    ...running,
    dbPath: config.databasePath,
    folder,
    createKey: (input) => running.gateway.admin.create(input),
    refreshKeys: () => running.gateway.parts.registry.reload(),
    async stop() {
      if (stopped) return;
      stopped = true;
      await running.close();
      fs.rmSync(folder, { recursive: true, force: true });
    },
  };
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** POSTs JSON (or a raw string) to the gateway. */
export function postJson(
  url: string,
  body: unknown,
  options: { key?: string; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(options.key ? bearer(options.key) : {}),
      ...options.headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: options.signal,
  });
}

export function getWithKey(url: string, key?: string): Promise<Response> {
  return fetch(url, { headers: key ? bearer(key) : {} });
}

/** A short, valid chat-completion request. */
export function chatBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: 'sim/chat-standard',
    messages: [{ role: 'user', content: 'Hello there, gateway.' }],
    max_tokens: 16,
    ...overrides,
  };
}

/** Reads a whole server-sent event stream into its `data:` payloads, in order. */
export async function readSseData(response: Response): Promise<string[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .map((block) => block.trim())
    .filter((block) => block !== '')
    .map((block) => {
      const line = block.split('\n').find((candidate) => candidate.startsWith('data: '));
      if (!line) throw new Error(`event without data: ${block}`);
      return line.slice('data: '.length);
    });
}

/** Asserts the `cf-ray` header is present and well-formed; returns it. */
export function expectCfRay(response: Response): string {
  const ray = response.headers.get('cf-ray');
  expect(ray).toMatch(cfRayPattern);
  return ray!;
}

export { eventually } from './eventually';

/** USD as the API shows it, to whole nanos (the unit the gateway counts in). */
export const toNanos = (usd: number) => Math.round(usd * 1_000_000_000);

/** A logger at `level` whose lines are kept in memory, to assert what was (not) logged. */
export function capturingLogger(level = 'info'): { logger: Logger; text(): string } {
  let captured = '';
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      captured += chunk.toString();
      callback();
    },
  });
  return { logger: createLogger(level, destination), text: () => captured };
}
