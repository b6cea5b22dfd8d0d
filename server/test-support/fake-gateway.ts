/**
 * A small fake gateway on loopback for the BFF's tests: real HTTP, answers chosen per test, and
 * every request it received recorded (so tests assert what the BFF sent, and when it left).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** Resolves when the BFF closed this request's connection before the answer ended. */
  clientGone: Promise<void>;
}

export type FakeHandler = (
  request: RecordedRequest,
  response: ServerResponse,
) => void | Promise<void>;

export interface FakeGateway {
  baseUrl: string;
  requests: RecordedRequest[];
  setHandler(handler: FakeHandler): void;
  close(): Promise<void>;
}

export const cfRayOf = (index: number) => `${index.toString(16).padStart(16, '0')}-TST`;

export const fakeModels = [
  {
    id: 'sim/echo',
    name: 'Echo',
    created: 1_700_000_000,
    context_length: 8192,
    pricing: { prompt: '0.000001', completion: '0.000002' },
    architecture: { input_modalities: ['text'], output_modalities: ['text'] },
    supported_parameters: ['max_tokens', 'stream'],
    providers: ['primary', 'backup'],
    brand_new_field: { nested: true },
  },
  { id: 'sim/echo:free', pricing: { prompt: '0', completion: '0' }, providers: ['primary'] },
  { name: 'entry without an id' },
];

export function balanceBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    object: 'balance',
    key: 'sk-abcd…wxyz',
    identity: 'account',
    remaining_usd: 5,
    limit_usd: 10,
    recharge_usd: 0,
    credit_usd: 0,
    allocated_usd: 10,
    consumption_usd: 5,
    grace_usd: 0.1,
    expires_at: null,
    expired: false,
    disabled: false,
    settlement: 'asynchronous',
    note: 'Consumption settles asynchronously.',
    ...overrides,
  };
}

/** A Batch object as `GET /v1/batches/{id}` answers it: a running batch of 2 lines by default. */
export function batchBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'batch_1',
    object: 'batch',
    endpoint: '/v1/chat/completions',
    errors: null,
    input_file_id: 'file-1',
    completion_window: '24h',
    status: 'in_progress',
    output_file_id: null,
    error_file_id: null,
    created_at: 1_800_000_000,
    in_progress_at: 1_800_000_000,
    expires_at: 1_800_086_400,
    finalizing_at: null,
    completed_at: null,
    failed_at: null,
    expired_at: null,
    cancelling_at: null,
    cancelled_at: null,
    request_counts: { total: 2, completed: 0, failed: 0 },
    metadata: null,
    cost_usd: 0,
    ...overrides,
  };
}

/** One provider entry of `GET /v1/models/{author}/{model}/endpoints`. */
export function endpointEntry(
  provider: string,
  order: number,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    provider,
    kind: 'openai-compatible',
    upstream_model: `${provider}-echo`,
    order,
    pricing: { prompt: '0.000001', completion: '0.000002' },
    context_length: 8192,
    max_completion_tokens: 1024,
    input_modalities: ['text'],
    supported_parameters: ['max_tokens'],
    status: 'healthy',
    retry_after: null,
    uptime_last_30m: 0.98,
    latency_ms_p50: 850,
    ttft_ms_p50: 210,
    ...overrides,
  };
}

/** The endpoints list of a fake model: its `providers`, each healthy. */
export function endpointsBody(modelId: string): Record<string, unknown> | null {
  const model = fakeModels.find((entry) => entry.id === modelId);
  if (!model) return null;
  return {
    object: 'list',
    model: modelId,
    data: (model.providers ?? []).map((provider, index) => endpointEntry(provider, index + 1)),
  };
}

/** One stats bucket starting at `start` (Unix seconds): `successes` of `requests`, failures timed out. */
export function statsBucket(start: number, requests: number, successes: number) {
  return {
    start,
    requests,
    successes,
    failures: {
      timeout: requests - successes,
      server_error: 0,
      rate_limited: 0,
      connection: 0,
      other: 0,
    },
    uptime: requests === 0 ? null : successes / requests,
    latency_ms_p50: requests === 0 ? null : 900,
    latency_ms_p95: requests === 0 ? null : 1800,
    ttft_ms_p50: requests === 0 ? null : 200,
    output_tokens_per_second: requests === 0 ? null : 55,
  };
}

/**
 * The stats of a fake model: per provider, two buckets ending at a fixed time (the first with
 * traffic, the last empty), hour buckets for `24h` and 6-hour ones for `7d`.
 */
export function statsBody(modelId: string, window: string): Record<string, unknown> | null {
  const model = fakeModels.find((entry) => entry.id === modelId);
  if (!model) return null;
  const bucketSeconds = window === '7d' ? 21_600 : 3600;
  const start = 1_760_000_000 - (1_760_000_000 % bucketSeconds);
  return {
    object: 'endpoint_stats',
    model: modelId,
    window,
    bucket_seconds: bucketSeconds,
    data: (model.providers ?? []).map((provider) => ({
      provider,
      buckets: [statsBucket(start, 120, 118), statsBucket(start + bucketSeconds, 0, 0)],
    })),
  };
}

/** The headers an inference answer carries: trace id, and the provider that answered. */
export function inferenceHeaders(
  contentType: string,
  cfRay: string,
  routing: { provider: string; attempts?: number } = { provider: 'primary' },
): Record<string, string> {
  return {
    'content-type': contentType,
    'cf-ray': cfRay,
    'x-gateway-provider': routing.provider,
    ...(routing.attempts && routing.attempts > 1
      ? { 'x-gateway-attempts': String(routing.attempts) }
      : {}),
  };
}

export function completionBody(model = 'sim/echo'): Record<string, unknown> {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: 'OK' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11, cost: 0.000012 },
  };
}

export function chunkLine(content: string): string {
  const chunk = {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'sim/echo',
    choices: [{ index: 0, delta: { content }, finish_reason: null }],
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  cfRay = cfRayOf(status),
): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cf-ray': cfRay });
  response.end(JSON.stringify(body));
}

const endpointsPathPattern = /^\/v1\/models\/([^/]+\/[^/]+)\/endpoints$/;
const statsPathPattern = /^\/v1\/models\/([^/]+\/[^/]+)\/endpoints\/stats$/;

/**
 * Answers like a healthy gateway: catalog, a model's providers, balance, completions (plain and
 * streamed, answered by the model's first provider).
 */
export const defaultHandler: FakeHandler = (request, response) => {
  const path = request.url.split('?')[0] ?? '';
  if (request.method === 'GET' && path === '/v1/models')
    return sendJson(response, 200, { object: 'list', data: fakeModels });
  const endpointsOf = endpointsPathPattern.exec(path)?.[1];
  if (request.method === 'GET' && endpointsOf !== undefined) {
    const body = endpointsBody(decodeURIComponent(endpointsOf));
    if (body) return sendJson(response, 200, body);
    return sendJson(response, 404, {
      error: 'The model is not in the catalog.',
      type: 'not_found',
    });
  }
  const statsOf = statsPathPattern.exec(path)?.[1];
  if (request.method === 'GET' && statsOf !== undefined) {
    const window = new URLSearchParams(request.url.split('?')[1] ?? '').get('window') ?? '24h';
    if (window !== '24h' && window !== '7d')
      return sendJson(response, 400, { error: 'window must be 24h or 7d', type: 'invalid' });
    const body = statsBody(decodeURIComponent(statsOf), window);
    if (body) return sendJson(response, 200, body);
    return sendJson(response, 404, {
      error: 'The model is not in the catalog.',
      type: 'not_found',
    });
  }
  if (request.method === 'GET' && path === '/v1/balance')
    return sendJson(response, 200, balanceBody());
  if (request.method === 'POST' && path === '/v1/chat/completions') {
    const body = JSON.parse(request.body) as { stream?: boolean; model?: string };
    if (body.stream) {
      response.writeHead(200, inferenceHeaders('text/event-stream', cfRayOf(7)));
      response.write(chunkLine('O'));
      response.write(chunkLine('K'));
      response.end('data: [DONE]\n\n');
      return;
    }
    response.writeHead(200, inferenceHeaders('application/json', cfRayOf(200)));
    response.end(JSON.stringify(completionBody(body.model)));
    return;
  }
  sendJson(response, 404, { error: `No route ${request.method} ${path}`, type: 'not_found' });
};

export async function startFakeGateway(
  handler: FakeHandler = defaultHandler,
): Promise<FakeGateway> {
  let current = handler;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    let resolveGone: () => void = () => undefined;
    const clientGone = new Promise<void>((resolve) => {
      resolveGone = resolve;
    });
    response.on('close', () => {
      if (!response.writableFinished) resolveGone();
    });
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const recorded: RecordedRequest = {
        method: incoming.method ?? 'GET',
        url: incoming.url ?? '/',
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        clientGone,
      };
      requests.push(recorded);
      Promise.resolve(current(recorded, response)).catch((error: unknown) => {
        response.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    setHandler: (next) => {
      current = next;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
