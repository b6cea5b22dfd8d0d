/**
 * The Responses form over WebSocket (OpenAI's "WebSocket mode"), as Codex opens it: `GET
 * /v1/responses` upgraded, the key as Bearer at the handshake. Each `response.create` text frame
 * is the body of a `POST /v1/responses` with `stream: true` and runs through the same steps
 * (slots, rate limits, admission, the provider call, the generation record); every event of the
 * SSE stream goes out as one JSON text frame. One socket carries any number of responses, one at
 * a time; the last one is remembered for `previous_response_id`, also with `store: false`.
 * @see https://developers.openai.com/api/docs/guides/websocket-mode
 */
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { authenticate } from '../auth/authenticate';
import { GatewayError, invalidRequest, toGatewayError } from '../errors';
import { chatErrorBody } from '../forms/openai/error-shape';
import { responsesForm, writeResponsesEvents } from '../forms/responses';
import type { ResponsesEventSink } from '../forms/responses/canonical-to-stream';
import { MAX_NESTING_DEPTH, parseBody } from '../http/parse-body';
import { parseOffThread } from '../http/parse-thread';
import { OFF_THREAD_BYTES } from '../http/read-body';
import { requestUrl } from '../http/router';
import { newTraceId } from '../http/trace-id';
import { requestRateLimits } from '../limits/request-rate-limits';
import type { HeaderTarget } from '../limits/rate-limit-headers';
import { LARGE_BODY_BYTES } from '../pipeline/key-slots';
import { RequestHolds } from '../pipeline/request-holds';
import { RequestTiming } from '../shared/request-timing';
import { sessionIdOf } from '../http/session-id';
import type { KeyRow } from '../store/store';
import { responsesContinuation, inputItems, type RememberedResponse } from './responses';
import { refuseUnusableKey, type GatewayParts } from './route-kit';
import { withRequestTranslation } from './translation-headers';

/** The one path served over WebSocket. */
export const RESPONSES_SOCKET_PATH = '/v1/responses';

/** What a socket may leave unread before it is dropped: refusals of frames it keeps sending. */
const MAX_UNREAD_BYTES = 1024 * 1024;

/** How long a socket's running response may finish once the gateway shuts down. */
const DRAIN_MS = 5_000;

export type ResponsesSocket = {
  /** The HTTP server's `upgrade` listener. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes idle sockets now and busy ones after their response (cut after a grace period). */
  close(): void;
};

type SocketState = { running: boolean; draining: boolean };

export function createResponsesSocket(
  parts: Pick<
    GatewayParts,
    'clock' | 'config' | 'logger' | 'pipeline' | 'rateLimits' | 'registry' | 'slots' | 'store'
  >,
): ResponsesSocket {
  const { logger } = parts;
  // permessage-deflate stays off (ws's default for servers): a client that offers it is answered
  // without it, which RFC 7692 allows, and no CPU goes to compressing token deltas.
  const server = new WebSocketServer({ noServer: true, maxPayload: parts.config.maxBodyBytes });
  const sockets = new Map<WebSocket, SocketState>();

  const serve = (socket: WebSocket, key: KeyRow, upgrade: IncomingMessage) => {
    const state: SocketState = { running: false, draining: false };
    sockets.set(socket, state);
    const sink = socketSink(socket, parts.config.clientSendTimeoutMs);
    let remembered: RememberedResponse | undefined;
    const { hooks } = responsesContinuation(parts, {
      get: (id) => (remembered?.id === id ? remembered : undefined),
      set: (response) => (remembered = response),
    });
    /** Aborts the running response's provider call when the client leaves mid-answer. */
    let abort: AbortController | null = null;
    socket.on('close', () => {
      sockets.delete(socket);
      abort?.abort();
    });
    socket.on('error', (error) => logger.info({ err: error }, 'responses socket error'));

    // Frames are read in the order they came, a large one off the event loop (as an HTTP body).
    let reading: Promise<void> = Promise.resolve();
    socket.on('message', (data: RawData, isBinary: boolean) => {
      reading = reading.then(() => receive(data, isBinary));
    });

    const receive = async (data: RawData, isBinary: boolean) => {
      const traceId = newTraceId();
      let message: Record<string, unknown>;
      try {
        message = await parseMessage(data, isBinary);
      } catch (error) {
        void sendError(socket, toGatewayError(error), traceId, {});
        return;
      }
      // Codex acknowledges each response it has handled; there is nothing to do with it.
      if (message.type === 'response.processed') return;
      if (message.type !== 'response.create') {
        void sendError(
          socket,
          invalidRequest(
            `Invalid field 'type': '${String(message.type)}' is not an event this socket takes; send response.create.`,
          ),
          traceId,
          {},
        );
        return;
      }
      if (state.running) {
        // The running response goes on; this one is refused, as a second POST would be queued
        // nowhere: the client sends it again after response.completed, or on another socket.
        void sendError(
          socket,
          new GatewayError({
            status: 409,
            type: 'invalid_request',
            stage: 'validation',
            message:
              'A response is already running on this socket; send the next response.create after its response.completed, failed or incomplete event, or open another socket.',
          }),
          traceId,
          {},
        );
        return;
      }
      state.running = true;
      abort = new AbortController();
      const timing = new RequestTiming();
      const headers = headerCollector();
      let failure: GatewayError | null = null;
      void runResponse(message, abort.signal, traceId, timing, headers)
        .catch(async (error: unknown) => {
          failure = toGatewayError(error);
          // A failure of the gateway's own (not a provider's) is logged with its cause, as on HTTP.
          if (failure.status >= 500 && failure.stage !== 'provider')
            logger.error({ err: error, cfRay: traceId }, 'socket response failed');
          await sendError(socket, failure, traceId, headers.all);
          // A revoked key's socket is of no further use: it is closed, as a policy violation.
          if (failure.status === 401) socket.close(1008, 'The key is no longer valid.');
        })
        .finally(() => {
          state.running = false;
          abort = null;
          logger.info(
            {
              cfRay: traceId,
              method: 'WS',
              path: RESPONSES_SOCKET_PATH,
              status: failure?.status ?? 200,
              ms: Math.round(timing.elapsedMs() * 100) / 100,
              ...(socket.readyState !== WebSocket.OPEN && { clientLeft: true }),
            },
            'socket response',
          );
          if (state.draining) socket.close(1001, 'The gateway is shutting down.');
        });
    };

    /** One `response.create`: the steps of `POST /v1/responses` with `stream: true`. */
    const runResponse = async (
      message: Record<string, unknown>,
      signal: AbortSignal,
      traceId: string,
      timing: RequestTiming,
      headers: HeaderTarget,
    ) => {
      // `type` names the event and `generate` is the socket's own; the rest is the request body.
      const { type: _type, generate, ...fields } = message;
      const body = { ...fields, stream: true };
      // The key as it is now: revoked, disabled or spent since the handshake refuses this turn.
      const current = parts.registry.get(key.id);
      if (!current || current.revokedAt !== null)
        throw new GatewayError({
          status: 401,
          type: 'authentication_error',
          stage: 'authentication',
          message:
            'The key this socket was opened with has been revoked; open a new socket with a valid key.',
        });
      refuseUnusableKey(parts, current);
      // Codex names its session on the handshake: every response on the socket is of it.
      const sessionId = sessionIdOf(upgrade.headers);
      if (generate === false) {
        await warmUp(sink, await hooks.prepareBody!(body, current), traceId, (response) => {
          remembered = response;
        });
        return;
      }
      const holds = new RequestHolds(traceId, logger, parts.slots.acquire(current));
      let run;
      try {
        if (rawSize(message) > LARGE_BODY_BYTES)
          holds.holdLargeBody(parts.slots.acquireLarge(current));
        const canonical = withRequestTranslation(
          responsesForm.toCanonical(await hooks.prepareBody!(body, current), { url: socketUrl }),
          upgrade,
          responsesForm.passHeaders,
        );
        holds.holdRateLimits(requestRateLimits(parts.rateLimits, current, headers, logger));
        run = { canonical };
      } catch (error) {
        holds.end();
        throw error;
      }
      const started = await parts.pipeline.start({
        key: current,
        request: run.canonical,
        form: responsesForm.name,
        traceId,
        signal,
        timing,
        sessionId,
        holds,
        answerCheck: responsesForm.answerCheck?.(),
      });
      holds.releaseLargeBody();
      await writeResponsesEvents(sink, started.events, {
        model: started.model.id,
        traceId,
        created: Math.floor(Date.now() / 1000),
        promptTokens: started.promptTokens,
        request: run.canonical,
        url: socketUrl,
        keyId: current.id,
        keep: (answer: unknown) => hooks.keep!(answer, current, run.canonical),
      });
    };
  };

  return {
    handleUpgrade(request, socket, head) {
      const traceId = newTraceId();
      // A target that is no URL at all (`//[`) is refused, never thrown: this runs before any
      // handler that would catch it, and a throw here would end the process.
      let url: URL;
      try {
        url = requestUrl(request.url);
      } catch {
        refuseUpgrade(socket, invalidRequest('The request target is not a valid path.'), traceId);
        return;
      }
      if (url.pathname !== RESPONSES_SOCKET_PATH || request.method !== 'GET') {
        refuseUpgrade(
          socket,
          new GatewayError({
            status: 404,
            type: 'not_found',
            stage: 'validation',
            message: `No WebSocket on ${request.method} ${url.pathname}: the Responses form is served over WebSocket on GET ${RESPONSES_SOCKET_PATH} only; every other route is plain HTTP.`,
          }),
          traceId,
        );
        return;
      }
      authenticate(request, url, responsesForm.auth, parts.registry)
        .then((key) => {
          refuseUnusableKey(parts, key);
          server.handleUpgrade(request, socket, head, (webSocket) =>
            serve(webSocket, key, request),
          );
        })
        .catch((error: unknown) => refuseUpgrade(socket, toGatewayError(error), traceId));
    },
    close() {
      for (const [socket, state] of sockets) {
        state.draining = true;
        if (!state.running) socket.close(1001, 'The gateway is shutting down.');
      }
      setTimeout(() => {
        for (const socket of sockets.keys()) socket.terminate();
      }, DRAIN_MS).unref();
    },
  };
}

/** What a frame's URL is to the form's converters: the route it stands for. */
const socketUrl = new URL(`http://gateway.invalid${RESPONSES_SOCKET_PATH}`);

async function parseMessage(data: RawData, isBinary: boolean): Promise<Record<string, unknown>> {
  if (isBinary)
    throw invalidRequest('Send each event as a JSON text frame; binary frames are not read.');
  const bytes = frameBytes(data);
  const read =
    bytes.length >= OFF_THREAD_BYTES
      ? await parseOffThread(bytes)
      : parseBody(bytes, MAX_NESTING_DEPTH);
  if (!read.ok && read.reason === 'deep')
    throw invalidRequest(`The frame's JSON is nested more than ${MAX_NESTING_DEPTH} levels deep.`);
  if (!read.ok)
    throw invalidRequest('The frame is not valid JSON; send {"type": "response.create", ...}.');
  const parsed = read.value;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw invalidRequest('The frame must be a JSON object: {"type": "response.create", ...}.');
  return parsed as Record<string, unknown>;
}

function frameBytes(data: RawData): Buffer {
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.isBuffer(data) ? data : Buffer.from(data);
}

/** The frame's size, as a body's `content-length` decides a large body's slot. */
const rawSize = (message: Record<string, unknown>) =>
  Buffer.byteLength(JSON.stringify(message.input ?? ''));

/**
 * Each event as one JSON text frame; resolves false once the client is gone. A client that
 * reads nothing for `sendTimeoutMs` is dropped, as on HTTP (`writeChunk`): it would otherwise
 * hold its key's slot and reservation for as long as its socket stays open.
 */
function socketSink(socket: WebSocket, sendTimeoutMs: number): ResponsesEventSink {
  return {
    start: () => undefined,
    send: (_type, data) =>
      new Promise<boolean>((resolve) => {
        if (socket.readyState !== WebSocket.OPEN) {
          resolve(false);
          return;
        }
        const timer = setTimeout(() => {
          socket.terminate();
          resolve(false);
        }, sendTimeoutMs);
        socket.send(data, (error) => {
          clearTimeout(timer);
          resolve(!error);
        });
      }),
    end: () => undefined,
  };
}

/** Headers a 429 or an admission sets, kept for the error frame's `headers`. */
function headerCollector(): HeaderTarget & { all: Record<string, string> } {
  const all: Record<string, string> = {};
  return {
    all,
    headersSent: false,
    setHeader(name: string, value: number | string | readonly string[]) {
      all[name.toLowerCase()] = String(value);
      return this as never;
    },
  };
}

/**
 * A refusal as OpenAI's WebSocket mode sends it: an `error` event with the HTTP status the same
 * request would have had, and the headers that matter for a retry. The socket stays open.
 */
function sendError(
  socket: WebSocket,
  error: GatewayError,
  traceId: string,
  headers: Record<string, string>,
): Promise<void> {
  if (socket.readyState !== WebSocket.OPEN) return Promise.resolve();
  // A client that sends and never reads would have its refusals pile up here without end.
  if (socket.bufferedAmount > MAX_UNREAD_BYTES) {
    socket.terminate();
    return Promise.resolve();
  }
  const body = chatErrorBody(error, traceId);
  const retry =
    error.retryAfterSeconds === undefined ? {} : { 'retry-after': String(error.retryAfterSeconds) };
  const frame = {
    type: 'error',
    status: error.status,
    error: { type: error.type, code: error.type, message: body.error, param: null },
    request_id: traceId,
    ...(Object.keys(headers).length + Object.keys(retry).length > 0 && {
      headers: { ...headers, ...retry },
    }),
  };
  return new Promise((resolve) => socket.send(JSON.stringify(frame), () => resolve()));
}

/** The handshake refused as a plain HTTP answer in the gateway's error shape. */
function refuseUpgrade(socket: Duplex, error: GatewayError, traceId: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify(chatErrorBody(error, traceId));
  const retry =
    error.retryAfterSeconds === undefined ? '' : `retry-after: ${error.retryAfterSeconds}\r\n`;
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\ncf-ray: ${traceId}\r\n${retry}` +
      `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `connection: close\r\n\r\n${body}`,
  );
}

/**
 * `generate: false`: Codex's warm-up, which only hands the server its prompt. Nothing is asked of
 * a model, so nothing is charged or recorded; the socket remembers the prompt, and the next
 * `response.create` continues it with `previous_response_id` and only its new items.
 */
async function warmUp(
  sink: ResponsesEventSink,
  body: unknown,
  traceId: string,
  remember: (response: RememberedResponse) => void,
): Promise<void> {
  const request = responsesForm.toCanonical(body, { url: socketUrl });
  const parsed = request.inbound!.body as { model: string; input?: unknown };
  const id = `resp_${traceId.replace(/[^A-Za-z0-9]/g, '')}`;
  const response = {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'completed',
    model: parsed.model,
    output: [],
    usage: {
      input_tokens: 0,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 0,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 0,
    },
  };
  remember({ id, context: inputItems(parsed.input as never), output: [] });
  await sink.send(
    'response.created',
    JSON.stringify({
      type: 'response.created',
      sequence_number: 0,
      response: { ...response, status: 'in_progress' },
    }),
  );
  await sink.send(
    'response.completed',
    JSON.stringify({ type: 'response.completed', sequence_number: 1, response }),
  );
}
