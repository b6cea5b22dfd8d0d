/**
 * What `npm run bench` (bench/run.ts) and `npm run bench:profile` (bench/profile.ts) set up the
 * same way: the providers file that routes `bench/mock-16` to the mock upstream, the gateway's
 * environment, and the chat-completions requests sent to a target.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startGatewayProcess, type GatewayProcess } from '../testing/gateway-process';
import type { RequestSpec } from './load-protocol';

export const MODEL = 'bench/mock-16';
export const UPSTREAM_MODEL = 'mock-16';
/** The embedding model the mock serves (`POST /v1/embeddings`). */
export const EMBEDDING_MODEL = 'bench/embed-mock';
export const EMBEDDING_UPSTREAM_MODEL = 'embed-mock';
/** Not a secret: the mock accepts anything. Sent the way a real upstream key would be. */
export const UPSTREAM_KEY = 'bench-upstream-key';
export const messages = [{ role: 'user', content: 'Say something short.' }];

export const gatewayEnvironment = {
  GATEWAY_LOG_LEVEL: 'warn',
  // Settles often enough that settlement runs during the measured windows, as in production
  // under load; the 30 s default would put at most one pass in a run.
  GATEWAY_SETTLE_INTERVAL_MS: '1000',
  // One key carries c=100 streams; the default 64 per key would turn the rest into 429s.
  GATEWAY_MAX_CONCURRENT_PER_KEY: '4096',
};

/** The gateway's providers file: one provider, the mock at `mockUrl`, reading BENCH_UPSTREAM_KEY. */
export function providersFile(mockUrl: string) {
  return {
    include_simulated_models: false,
    providers: [
      {
        id: 'mock',
        kind: 'openai-compatible',
        base_url: `${mockUrl}/v1`,
        api_key_env: 'BENCH_UPSTREAM_KEY',
        models: [
          {
            id: MODEL,
            upstream_model: UPSTREAM_MODEL,
            name: 'Benchmark mock (16 tokens)',
            context_length: 8192,
            max_completion_tokens: 1024,
            pricing: { prompt: '0.0000001', completion: '0.0000002' },
            input_modalities: ['text'],
            supported_parameters: ['max_tokens', 'temperature', 'stream'],
          },
          {
            id: EMBEDDING_MODEL,
            upstream_model: EMBEDDING_UPSTREAM_MODEL,
            name: 'Benchmark mock embeddings (256 dimensions)',
            context_length: 8192,
            max_completion_tokens: 1,
            pricing: { prompt: '0.00000002', completion: '0' },
            input_modalities: ['text'],
            output_modalities: ['embeddings'],
            supported_parameters: ['dimensions'],
          },
        ],
      },
    ],
  };
}

export type Requests = { plain: RequestSpec; stream: RequestSpec };

export function chatRequests(
  url: string,
  headers: Record<string, string>,
  model: string,
): Requests {
  const base = { model, messages, max_tokens: 16 };
  const allHeaders = { 'content-type': 'application/json', ...headers };
  return {
    plain: { url, headers: allHeaders, body: JSON.stringify(base) },
    stream: {
      url,
      headers: allHeaders,
      body: JSON.stringify({ ...base, stream: true, stream_options: { include_usage: true } }),
    },
  };
}

/**
 * The chat question as a Responses request (`POST /v1/responses`), plain: the same model, input and
 * output bound, so the two forms' cost through the gateway can be set side by side.
 */
export function responsesRequest(url: string, headers: Record<string, string>): RequestSpec {
  return {
    url,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({
      model: MODEL,
      input: messages[0]!.content,
      max_output_tokens: 16,
      store: false,
    }),
  };
}

/** Inputs per embeddings request in the benchmark: a small batch, as retrieval code sends. */
export const EMBEDDING_INPUTS = 8;

/** An embeddings request of `EMBEDDING_INPUTS` short texts. */
export function embeddingRequest(
  url: string,
  headers: Record<string, string>,
  model: string,
): RequestSpec {
  const input = Array.from(
    { length: EMBEDDING_INPUTS },
    (_, index) => `passage ${index} of a document`,
  );
  return {
    url,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model, input }),
  };
}

/** One plain and one streamed request through a target before measuring: a wiring error ends
 * the run with the target's own answer instead of a table of failures. */
export async function checkWiring(name: string, requests: Requests): Promise<void> {
  for (const spec of [requests.plain, requests.stream]) {
    const response = await fetch(spec.url, {
      method: 'POST',
      headers: spec.headers,
      body: spec.body,
    });
    const text = await response.text();
    if (!response.ok || !text.includes('quick')) {
      throw new Error(
        `${name} is not answering through the mock (${response.status}): ${text.slice(0, 300)}`,
      );
    }
  }
}

/**
 * The compiled gateway under plain node (what ships, not the development loader), routed to the
 * mock by a providers file written in `folder`, and an account key to load it with.
 */
export async function startBenchGateway(
  folder: string,
  mockUrl: string,
  nodeArgs: string[] = [],
  /** Another compiled bundle of the gateway to run instead of this checkout's dist/gateway.js. */
  bundle?: string,
): Promise<{ gateway: GatewayProcess; key: string }> {
  const providersPath = path.join(folder, 'providers.json');
  fs.writeFileSync(providersPath, JSON.stringify(providersFile(mockUrl), null, 2));
  const gateway = await startGatewayProcess({
    bundle,
    nodeArgs,
    environment: {
      ...gatewayEnvironment,
      GATEWAY_PROVIDERS: providersPath,
      BENCH_UPSTREAM_KEY: UPSTREAM_KEY,
    },
  });
  try {
    const { key } = await gateway.createKey([
      '--kind',
      'account',
      '--limit-usd',
      '100000',
      '--name',
      'bench',
    ]);
    return { gateway, key };
  } catch (error) {
    await gateway.stop();
    throw error;
  }
}

/** `--seconds` and `--connections` of a closed-loop command, read, or the error naming the flag. */
export function closedLoopFlags(flags: { seconds?: string; connections?: string }): {
  seconds: number;
  connections: number;
} {
  const seconds = Number(flags.seconds);
  const connections = Number(flags.connections);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new Error('--seconds: expected a number > 0');
  if (!Number.isInteger(connections) || connections < 1) {
    throw new Error('--connections: expected a whole number ≥ 1');
  }
  return { seconds, connections };
}
