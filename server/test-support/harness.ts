/**
 * Starts the BFF for a test on a port the OS picks, with its log lines captured, and makes raw
 * HTTP requests to it (raw, so tests can set any Host, Origin or Content-Type).
 */
import { randomBytes } from 'node:crypto';
import {
  request as httpRequest,
  type ClientRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
} from 'node:http';
import { Writable } from 'node:stream';
import { startWorkbench, type RunningWorkbench } from '../index';
import { createWorkbenchLogger } from '../core/logging';
import type { WorkbenchOptions } from '../app';

/** A key-shaped value built at run time, so no key-like literal is ever committed. */
export function fakeKey(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(40);
  return `sk-${[...bytes].map((byte) => alphabet[byte % alphabet.length]).join('')}`;
}

export interface TestBff extends RunningWorkbench {
  port: number;
  logLines: string[];
}

export async function startTestBff(
  options: Partial<WorkbenchOptions> & { gatewayBaseUrl: string },
): Promise<TestBff> {
  const logLines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logLines.push(chunk.toString('utf8'));
      callback();
    },
  });
  const logger = createWorkbenchLogger({ level: 'debug', destination });
  const running = await startWorkbench({
    mode: 'external',
    profiles: {},
    listenHost: '127.0.0.1',
    listenPort: 0,
    logger,
    staticDir: '/nonexistent-dist',
    // Tests never touch a keys store of the configuration (./data): they pass their own.
    keysStore: null,
    environmentProfiles: [],
    ...options,
  });
  return { ...running, logLines };
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: () => unknown;
}

export interface RawRequestOptions {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Leave the default Host, Origin and Content-Type out. */
  bare?: boolean;
}

/** One HTTP request to the BFF; POSTs get a same-origin JSON request's headers by default. */
export function rawRequest(
  bff: { port: number },
  options: RawRequestOptions,
): Promise<RawResponse> {
  const method = options.method ?? 'GET';
  const origin = `http://127.0.0.1:${bff.port}`;
  const defaults: Record<string, string> = options.bare
    ? {}
    : {
        host: `127.0.0.1:${bff.port}`,
        ...(method !== 'GET' && method !== 'HEAD'
          ? { origin, 'content-type': 'application/json' }
          : {}),
      };
  const headers: Record<string, string> = { ...defaults, ...options.headers };
  // As a browser does: without a length, Node sends a DELETE's body unannounced.
  const named = (name: string) =>
    Object.keys(headers).some((header) => header.toLowerCase() === name);
  if (options.body !== undefined && !named('content-length') && !named('transfer-encoding')) {
    headers['content-length'] = String(Buffer.byteLength(options.body));
  }
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port: bff.port,
        method,
        path: options.path,
        headers,
        setHost: !('host' in headers),
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            text,
            json: () => JSON.parse(text) as unknown,
          });
        });
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    if (options.body !== undefined) outgoing.write(options.body);
    outgoing.end();
  });
}

export function postJson(bff: { port: number }, path: string, body: unknown): Promise<RawResponse> {
  return rawRequest(bff, { method: 'POST', path, body: JSON.stringify(body) });
}

/**
 * Starts a same-origin JSON request that the test may abandon (`request.destroy()`: the browser
 * leaving); errors from the abandoned socket are ignored.
 */
export function openRequest(
  bff: { port: number },
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): ClientRequest {
  const request = httpRequest({
    host: '127.0.0.1',
    port: bff.port,
    method,
    path,
    headers: { 'content-type': 'application/json', origin: `http://127.0.0.1:${bff.port}` },
  });
  request.on('error', () => undefined);
  request.end(body === undefined ? undefined : JSON.stringify(body));
  return request;
}

/** Opens a streamed chat on the BFF; `waitFor` resolves with all text so far once it matches. */
export function openStream(
  bff: { port: number },
  body: unknown,
): { request: ClientRequest; waitFor: (predicate: (text: string) => boolean) => Promise<string> } {
  let text = '';
  let wake: () => void = () => undefined;
  const request = openRequest(bff, 'POST', '/api/chat', body);
  request.on('response', (response: IncomingMessage) => {
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      text += chunk;
      wake();
    });
    response.on('error', () => undefined);
  });
  const waitFor = async (predicate: (received: string) => boolean) => {
    while (!predicate(text)) await new Promise<void>((resolve) => (wake = resolve));
    return text;
  };
  return { request, waitFor };
}
