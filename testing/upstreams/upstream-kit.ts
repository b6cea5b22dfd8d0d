/**
 * Upstream providers for the gateway's tests: a providers file written for fake upstreams on
 * loopback and loaded exactly as the gateway loads one, each provider with an upstream key made
 * up at run time (no key is ever written into a test); the vendors' recorded fixtures; a loopback
 * image server; and an address where nothing listens.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { loadProvidersFile, type ProvidersFile } from '../../gateway/providers/providers-file';
import type { UpstreamKind } from '../../gateway/providers/upstream/provider-config';
import { tempFolder } from '../gateway-support';
import { eventsOf } from './fake-upstream';
import { vendorFixturePath, type Vendor } from '../../gateway/vendors/fixtures';

export const UPSTREAM_KINDS: UpstreamKind[] = ['openai-compatible', 'anthropic', 'gemini'];

/** One model a provider serves, as the providers file describes it (prices in decimal USD). */
export type UpstreamModelSpec = {
  id: string;
  upstreamModel: string;
  prompt: string;
  completion: string;
  /** Prompt-cache prices (`pricing.input_cache_read` / `input_cache_write`), when set. */
  cacheRead?: string;
  cacheWrite?: string;
  cacheWriteHour?: string;
  contextLength?: number;
  maxCompletionTokens?: number;
  inputModalities?: Array<'text' | 'image'>;
  /** `['embeddings']` for an embedding model; absent: the file says nothing (text). */
  outputModalities?: Array<'text' | 'embeddings'>;
  supportedParameters?: string[];
};

export type UpstreamProviderSpec = {
  id: string;
  kind: UpstreamKind;
  /** The upstream's root URL (a fake upstream's `url`); openai-compatible gets `/v1` added. */
  url: string;
  models: UpstreamModelSpec[];
  timeouts?: {
    connect_ms?: number;
    first_byte_ms?: number;
    idle_ms?: number;
    first_event_ms?: number;
    total_ms?: number;
  };
  retry?: { max_attempts?: number; base_delay_ms?: number; max_delay_ms?: number };
  breaker?: { failure_threshold?: number; cooldown_ms?: number };
  headers?: Record<string, string>;
  inline_image_urls?: boolean;
  responses_api?: boolean;
};

export type UpstreamSetup = {
  /** What `loadProvidersFile` returned: the gateway config's `providers`. */
  providers: ProvidersFile;
  /** The upstream key each provider was given, by provider id. */
  upstreamKeys: Record<string, string>;
};

/**
 * Writes the providers file for `specs` into a temporary folder, with each provider's key in an
 * environment (passed to the loader, never to `process.env`), and loads it. The simulated models
 * stay out of the catalog unless asked for.
 */
export function providersFileFor(
  specs: UpstreamProviderSpec[],
  options: { includeSimulatedModels?: boolean } = {},
): UpstreamSetup {
  const folder = tempFolder('providers-file-');
  try {
    const environment: NodeJS.ProcessEnv = {};
    const upstreamKeys: Record<string, string> = {};
    const providers = specs.map((spec, index) => {
      const variable = `TEST_UPSTREAM_KEY_${index}`;
      const key = `up-${randomUUID()}`;
      environment[variable] = key;
      upstreamKeys[spec.id] = key;
      return {
        id: spec.id,
        kind: spec.kind,
        base_url: spec.kind === 'openai-compatible' ? `${spec.url}/v1` : spec.url,
        api_key_env: variable,
        ...(spec.timeouts && { timeouts: spec.timeouts }),
        ...(spec.retry && { retry: spec.retry }),
        ...(spec.breaker && { breaker: spec.breaker }),
        ...(spec.headers && { headers: spec.headers }),
        ...(spec.inline_image_urls !== undefined && { inline_image_urls: spec.inline_image_urls }),
        ...(spec.responses_api !== undefined && { responses_api: spec.responses_api }),
        models: spec.models.map((model) => ({
          id: model.id,
          upstream_model: model.upstreamModel,
          name: model.id,
          context_length: model.contextLength ?? 200_000,
          max_completion_tokens: model.maxCompletionTokens ?? 8_192,
          pricing: {
            prompt: model.prompt,
            completion: model.completion,
            ...(model.cacheRead !== undefined && { input_cache_read: model.cacheRead }),
            ...(model.cacheWrite !== undefined && { input_cache_write: model.cacheWrite }),
            ...(model.cacheWriteHour !== undefined && {
              input_cache_write_1h: model.cacheWriteHour,
            }),
          },
          input_modalities: model.inputModalities ?? ['text', 'image'],
          ...(model.outputModalities && { output_modalities: model.outputModalities }),
          supported_parameters: model.supportedParameters ?? [
            'max_tokens',
            'temperature',
            'top_p',
            'stop',
            'seed',
            'tools',
            'tool_choice',
          ],
        })),
      };
    });
    const filePath = path.join(folder, 'providers.json');
    fs.writeFileSync(
      filePath,
      JSON.stringify(
        { include_simulated_models: options.includeSimulatedModels ?? false, providers },
        null,
        2,
      ),
    );
    return { providers: loadProvidersFile(filePath, environment), upstreamKeys };
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

const vendorOf: Record<UpstreamKind, Vendor> = {
  'openai-compatible': 'openai',
  anthropic: 'anthropic',
  gemini: 'gemini',
};

/** A recorded fixture of a provider kind's vendor (`<vendor>-<case>.json` or `.chunks.txt`). */
export const fixturePath = (kind: UpstreamKind, name: string) =>
  vendorFixturePath(vendorOf[kind], name);

export const fixtureJson = (kind: UpstreamKind, name: string): Record<string, unknown> =>
  JSON.parse(fs.readFileSync(fixturePath(kind, name), 'utf8')) as Record<string, unknown>;

/** A recorded stream's events, for a fake upstream's `events`. */
export const fixtureEvents = (kind: UpstreamKind, name: string): string[] =>
  eventsOf(fixturePath(kind, name));

/** A 1×1 PNG, for images sent inline. */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
/** A 1×1 GIF: what the image server serves, so a fetched image cannot pass for the inline one. */
export const GIF_BASE64 = 'R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==';

export type ImageServer = {
  /** The image's address (a GIF). */
  imageUrl: string;
  /** How many times it was fetched. */
  fetches: number;
  close(): Promise<void>;
};

/** Serves one GIF on loopback, for image URLs the gateway must fetch and inline. */
export async function startImageServer(): Promise<ImageServer> {
  const bytes = Buffer.from(GIF_BASE64, 'base64');
  const state = { imageUrl: '', fetches: 0, close: async () => {} };
  const server = http.createServer((request, response) => {
    if (request.method === 'GET' && request.url === '/pixel.gif') {
      state.fetches += 1;
      response.writeHead(200, { 'content-type': 'image/gif', 'content-length': bytes.length });
      response.end(bytes);
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.imageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pixel.gif`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

/** The address of a loopback port nothing listens on (taken from the OS, then let go). */
export async function closedPortUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}
