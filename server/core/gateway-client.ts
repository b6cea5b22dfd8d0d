/**
 * Calls to the gateway over the shared HTTP client (contract/http-client.ts), with a timeout per
 * stage: connecting, the first byte of the answer, and silences while reading the body; a
 * non-streamed answer also has a deadline and a size cap, so a gateway that drip-feeds or floods
 * cannot hang or bloat the BFF. A call that runs no model (a GET, PATCH or DELETE: the catalog, a
 * balance, a key) also has a deadline for the whole call, from its start to its last byte: the
 * stages alone add up to over two minutes, which a gateway holding its headers would keep a page
 * waiting. A failure names its stage so the UI can say "the gateway is down" apart from "the
 * gateway is slow" or "answered garbage".
 */
import {
  createStagedAgent,
  Deadline,
  discardBody,
  errorCode,
  failureOf,
  HttpCallError,
  send,
  type HttpAnswer,
  type HttpHeaders,
} from '../../contract/http-client';
import {
  gatewayAdjustedParamsHeader,
  cfRayPattern,
  gatewayDroppedParamsHeader,
  gatewayAttemptsHeader,
  gatewayProviderHeader,
  providerIdPattern,
  type TranslationReport,
} from '../../contract/gateway';
import type { GatewayTimeouts } from './config';

export type GatewayStage = 'connect' | 'first_byte' | 'deadline' | 'too_large' | 'gateway';

/** The largest non-streamed answer read by default: a catalog is a few hundred KiB. */
export const defaultMaxAnswerBytes = 16 * 1024 * 1024;

/**
 * The gateway's `cf-ray` when it has the trace id format, else null. Anything else (a key, a
 * proxy's own value, markup) is dropped here, at the boundary, so it is never echoed to the
 * browser, logged, nor sent back to the gateway as a generation id.
 */
export function traceIdOf(headerValue: string | null): string | null {
  return headerValue !== null && cfRayPattern.test(headerValue) ? headerValue : null;
}

/**
 * Which provider answered an inference call and after how many attempts, from the gateway's
 * `x-gateway-provider` and `x-gateway-attempts`. Like the trace id, a value of another shape is
 * dropped here, so nothing odd is echoed to the browser. The gateway sends the attempts only
 * when there was more than one: a named provider without it means one attempt.
 */
export function routingOf(headers: Headers): { provider: string | null; attempts: number | null } {
  const providerValue = headers.get(gatewayProviderHeader);
  const provider =
    providerValue !== null && providerIdPattern.test(providerValue) ? providerValue : null;
  const attemptsValue = headers.get(gatewayAttemptsHeader);
  const attempts =
    attemptsValue !== null && /^[1-9][0-9]{0,2}$/.test(attemptsValue)
      ? Number(attemptsValue)
      : provider !== null
        ? 1
        : null;
  return { provider, attempts };
}

/** A dotted path (`generationConfig.topK`) or a change (`max_tokens=32000->8192`); nothing else is echoed. */
const translationItemPattern = /^[A-Za-z0-9_.*-]+(=[A-Za-z0-9_. ]+->[A-Za-z0-9_. ]+)?$/;

/**
 * What the gateway dropped or changed to reach the provider, from `x-gateway-dropped-params` and
 * `x-gateway-adjusted-params` (comma-separated); null when it sent neither.
 */
export function translationOf(headers: Headers): TranslationReport | null {
  const listOf = (name: string) =>
    (headers.get(name) ?? '')
      .split(',')
      .map((item) => item.trim())
      .filter((item) => translationItemPattern.test(item))
      .slice(0, 100);
  const dropped = listOf(gatewayDroppedParamsHeader);
  const adjusted = listOf(gatewayAdjustedParamsHeader);
  return dropped.length === 0 && adjusted.length === 0 ? null : { dropped, adjusted };
}

/** How the key travels (docs/keys-and-money.md, "Authentication"). `none` sends no key at all. */
export type KeyPlacement = 'none' | 'bearer' | 'query' | 'x-api-key' | 'x-goog-api-key';

export class GatewayCallError extends Error {
  constructor(
    readonly stage: GatewayStage,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'GatewayCallError';
  }
}

/** The caller (the browser) went away; nobody is left to answer, so handlers just stop. */
export class CallerGoneError extends Error {
  constructor() {
    super('The client closed the connection.');
    this.name = 'CallerGoneError';
  }
}

export interface GatewayRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path below the gateway root, starting with `/`, query included. */
  path: string;
  key?: string;
  keyPlacement?: KeyPlacement;
  json?: unknown;
  /** A body sent as is, for what is not JSON (a multipart upload); not with `json`. */
  rawBody?: { contentType: string; text: string };
  /** Aborted when the browser leaves; the gateway request is aborted with it. */
  signal?: AbortSignal;
  /** Ask for an uncompressed event stream, so chunks pass as they come. */
  stream?: boolean;
  /** Overrides the configured first-byte timeout (health checks want a short one). */
  firstByteTimeoutMs?: number;
  /**
   * Overrides the deadline of the whole call (`callDeadlineMs`); null for none. By default a
   * streamed call or a POST (which may run a model, and a model may think for minutes before its
   * first byte) has none, and every other call has the configured one.
   */
  deadlineMs?: number | null;
}

export interface GatewayResponse {
  status: number;
  headers: Headers;
  /** The `cf-ray` trace id, or null when absent or not in the trace id format. */
  cfRay: string | null;
  contentType: string;
  /** Time from starting the call to the response headers. */
  ttfbMs: number;
  body: HttpAnswer['body'] | null;
  /** Milliseconds since the call started. */
  elapsedMs(): number;
  /** The whole call's deadline: its length, and when it passes (`performance.now()` time). */
  deadline: { ms: number; at: number } | null;
  /** Stops the call (and so the gateway's work) now. */
  abort(): void;
}

export interface GatewayClient {
  readonly baseUrl: string;
  readonly timeouts: GatewayTimeouts;
  request(options: GatewayRequest): Promise<GatewayResponse>;
  /**
   * Reads a whole (non-streamed) body as text: stage `gateway` on a silence or a broken body,
   * `deadline` when it takes longer than the body deadline, `too_large` past the size cap.
   */
  readText(response: GatewayResponse, signal?: AbortSignal): Promise<string>;
  /**
   * Iterates over the body's chunks as they arrive, with the idle timeout between them.
   */
  chunks(response: GatewayResponse, signal?: AbortSignal): AsyncGenerator<Uint8Array>;
  /** A whole call: request, body read, JSON parsed when it is JSON. */
  collect(call: GatewayRequest): Promise<CollectedResponse>;
}

export interface CollectedResponse {
  status: number;
  cfRay: string | null;
  contentType: string;
  ttfbMs: number;
  totalMs: number;
  text: string;
  /** `{ value }` when the body is JSON, else null. */
  json: { value: unknown } | null;
}

export function createGatewayClient(options: {
  baseUrl: string;
  timeouts: GatewayTimeouts;
  /** Largest non-streamed answer read; `defaultMaxAnswerBytes` when absent. */
  maxAnswerBytes?: number;
}): GatewayClient {
  const { baseUrl, timeouts } = options;
  const maxAnswerBytes = options.maxAnswerBytes ?? defaultMaxAnswerBytes;
  const agent = createStagedAgent(timeouts);

  async function request(call: GatewayRequest): Promise<GatewayResponse> {
    if (call.signal?.aborted) throw new CallerGoneError();
    const url = new URL(baseUrl + call.path);
    const headers: Record<string, string> = {
      accept: call.stream ? 'text/event-stream' : 'application/json',
    };
    // Compressed event streams may be held back by decompression; ask for them plain.
    if (call.stream) headers['accept-encoding'] = 'identity';
    const placement = call.key ? (call.keyPlacement ?? 'bearer') : 'none';
    if (call.key && placement === 'bearer') headers.authorization = `Bearer ${call.key}`;
    if (call.key && placement === 'x-api-key') headers['x-api-key'] = call.key;
    if (call.key && placement === 'x-goog-api-key') headers['x-goog-api-key'] = call.key;
    if (call.key && placement === 'query') url.searchParams.set('key', call.key);
    let body: string | undefined;
    if (call.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(call.json);
    } else if (call.rawBody !== undefined) {
      headers['content-type'] = call.rawBody.contentType;
      body = call.rawBody.text;
    }

    const controller = new AbortController();
    const deadlineMs =
      call.deadlineMs !== undefined
        ? call.deadlineMs
        : call.stream || call.method === 'POST'
          ? null
          : timeouts.callDeadlineMs;
    const started = performance.now();
    // Kept until the headers; `readText` keeps to what is left of it for the body.
    const deadline =
      deadlineMs === null ? null : new Deadline({ totalMs: deadlineMs }, () => true, started);
    deadline?.bind(() => controller.abort());
    const firstByteMs = call.firstByteTimeoutMs ?? timeouts.firstByteMs;
    let connected = false;
    const onCallerAbort = () => controller.abort();
    call.signal?.addEventListener('abort', onCallerAbort, { once: true });

    let answer: HttpAnswer;
    try {
      answer = await send({
        agent,
        url,
        method: call.method,
        headers,
        body,
        signal: controller.signal,
        firstByteMs,
        onConnected: () => {
          connected = true;
        },
      });
    } catch (error) {
      deadline?.clear();
      call.signal?.removeEventListener('abort', onCallerAbort);
      if (call.signal?.aborted) throw new CallerGoneError();
      if (deadline?.expired) {
        // Named by the stage it stopped in, and by the deadline that stopped it.
        const within = `${deadlineMs} ms, the workbench's deadline for a whole gateway call (WORKBENCH_GATEWAY_CALL_DEADLINE_MS)`;
        throw connected
          ? new GatewayCallError(
              'first_byte',
              `The gateway did not start answering within ${within}.`,
            )
          : new GatewayCallError(
              'connect',
              `No connection to the gateway at ${baseUrl} within ${within}.`,
            );
      }
      const cause = error instanceof HttpCallError ? error.cause : error;
      const failure = failureOf(cause, 'before');
      if (failure === 'connect_timeout') {
        throw new GatewayCallError(
          'connect',
          `No connection to the gateway at ${baseUrl} within ${timeouts.connectMs} ms.`,
        );
      }
      if (failure === 'first_byte_timeout') {
        throw new GatewayCallError(
          'first_byte',
          `The gateway did not start answering within ${firstByteMs} ms.`,
        );
      }
      const code = errorCode(cause);
      if (!connected) {
        throw new GatewayCallError(
          'connect',
          `Cannot connect to the gateway at ${baseUrl}${code ? ` (${code})` : ''}.`,
          { cause },
        );
      }
      if (failure === 'not_http') {
        throw new GatewayCallError(
          'gateway',
          `The gateway answered with something that is not HTTP${code ? ` (${code})` : ''}.`,
          { cause },
        );
      }
      throw new GatewayCallError(
        'first_byte',
        `The gateway closed the connection before answering${code ? ` (${code})` : ''}.`,
        { cause },
      );
    }
    deadline?.clear();
    const ttfbMs = Math.round(performance.now() - started);
    const responseHeaders = toHeaders(answer.headers);
    // After the headers, the caller's signal keeps aborting the body read through `controller`.
    return {
      status: answer.status,
      headers: responseHeaders,
      cfRay: traceIdOf(responseHeaders.get('cf-ray')),
      contentType: (responseHeaders.get('content-type') ?? '').toLowerCase(),
      ttfbMs,
      body: answer.body,
      elapsedMs: () => Math.round(performance.now() - started),
      deadline: deadlineMs === null ? null : { ms: deadlineMs, at: started + deadlineMs },
      abort: () => controller.abort(),
    };
  }

  async function* chunks(
    response: GatewayResponse,
    signal?: AbortSignal,
  ): AsyncGenerator<Uint8Array> {
    if (!response.body) return;
    const body = response.body;
    const reader = body[Symbol.asyncIterator]();
    const onAbort = () => response.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for (;;) {
        let result: IteratorResult<Uint8Array>;
        try {
          result = await reader.next();
        } catch (error) {
          if (signal?.aborted) throw new CallerGoneError();
          // The silence between two chunks is the agent's idle timeout.
          if (failureOf(error, 'during') === 'idle_timeout') {
            throw new GatewayCallError(
              'gateway',
              `The gateway stopped sending for ${timeouts.idleMs} ms in the middle of its answer.`,
            );
          }
          const code = errorCode(error);
          throw new GatewayCallError(
            'gateway',
            `The gateway's answer broke off${code ? ` (${code})` : ''}.`,
            { cause: error },
          );
        }
        if (result.done) return;
        yield result.value;
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      // Leaving early (an error, or the consumer stopped) must release the connection.
      discardBody(body);
    }
  }

  async function readText(response: GatewayResponse, signal?: AbortSignal): Promise<string> {
    const tooLarge = () => {
      // Stops the transfer now: nothing past the cap is read, nor left on the connection.
      response.abort();
      return new GatewayCallError(
        'too_large',
        `The gateway's answer is larger than ${maxAnswerBytes} bytes, the most the workbench reads.`,
      );
    };
    const declaredBytes = Number(response.headers.get('content-length') ?? Number.NaN);
    if (declaredBytes > maxAnswerBytes) throw tooLarge();
    // The body deadline, or what is left of the whole call's deadline when that comes first.
    const callLeftMs =
      response.deadline === null
        ? Number.POSITIVE_INFINITY
        : Math.max(0, Math.round(response.deadline.at - performance.now()));
    const callDeadlineFirst = callLeftMs < timeouts.bodyDeadlineMs;
    const deadline = new Deadline(
      { totalMs: Math.min(callLeftMs, timeouts.bodyDeadlineMs) },
      () => true,
    );
    deadline.bind(() => response.abort());
    const decoder = new TextDecoder();
    let text = '';
    let receivedBytes = 0;
    try {
      for await (const chunk of chunks(response, signal)) {
        receivedBytes += chunk.byteLength;
        if (receivedBytes > maxAnswerBytes) throw tooLarge();
        text += decoder.decode(chunk, { stream: true });
      }
    } catch (error) {
      if (deadline.expired && !signal?.aborted) {
        throw new GatewayCallError(
          'deadline',
          callDeadlineFirst
            ? `The gateway did not finish its answer within ${response.deadline!.ms} ms of the call's start, the workbench's deadline for a whole gateway call (WORKBENCH_GATEWAY_CALL_DEADLINE_MS).`
            : `The gateway did not finish its answer within ${timeouts.bodyDeadlineMs} ms of starting it.`,
        );
      }
      throw error;
    } finally {
      deadline.clear();
    }
    return text + decoder.decode();
  }

  async function collect(call: GatewayRequest): Promise<CollectedResponse> {
    const response = await request(call);
    const text = await readText(response, call.signal);
    return {
      status: response.status,
      cfRay: response.cfRay,
      contentType: response.contentType,
      ttfbMs: response.ttfbMs,
      totalMs: response.elapsedMs(),
      text,
      json: parseJsonOrNull(text),
    };
  }

  return { baseUrl, timeouts, request, readText, chunks, collect };
}

/** undici's header record as the `Headers` the callers read. */
function toHeaders(record: HttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(record)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      headers.append(name, item);
    }
  }
  return headers;
}

/** Parses a JSON body; null when it is not JSON (the caller decides what that means). */
export function parseJsonOrNull(text: string): { value: unknown } | null {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return null;
  }
}
