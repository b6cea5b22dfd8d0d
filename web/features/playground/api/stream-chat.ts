/**
 * `POST /api/chat`, streamed or not. The streamed answer is `text/event-stream` (see
 * `chatResultSchema` in the contract): `event: meta`, the gateway's chunks as `data:` lines
 * ending `data: [DONE]`, then `event: done`. Aborting the signal closes the fetch, and the BFF
 * then aborts its gateway request, so Stop really stops the billing.
 */
import { chatCompletionChunkSchema, type ChatCompletionChunk } from '../../../../contract/gateway';
import {
  apiErrorSchema,
  callMetaSchema,
  chatResultSchema,
  type CallMeta,
  type ChatRequest,
  type ChatResult,
} from '../../../../contract/workbench-api';
import { ApiRequestError, apiErrorFromBody, apiPost } from '../../../lib/api-client';
import { errorFromStreamPayload, type StreamError } from './error-advice';
import { createSseParser, type ServerSentEvent } from './sse-parser';

const chatPath = '/api/chat';

export interface StreamCallbacks {
  /** Every event as it arrived, for the raw view. */
  onRawEvent?(event: ServerSentEvent): void;
  onMeta?(meta: CallMeta): void;
  onChunk?(chunk: ChatCompletionChunk): void;
}

export interface StreamOutcome {
  /** The first meta (status, cf-ray, time to first byte). */
  meta: CallMeta | null;
  /** The final meta, with `total_ms`; null when the stream ended without `event: done`. */
  finalMeta: CallMeta | null;
  /** True when `data: [DONE]` arrived: the gateway finished the answer. */
  sawDone: boolean;
  /** An error the gateway or the BFF reported inside the stream. */
  streamError: StreamError | null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

async function readErrorResponse(response: Response): Promise<ApiRequestError> {
  return apiErrorFromBody(response.status, parseJson(await response.text()), `POST ${chatPath}`);
}

/**
 * Sends a streamed chat request and reads the stream to its end (or until `signal` aborts,
 * which rejects with the `AbortError`). A bad chunk never throws: it becomes `streamError`.
 */
export async function streamChat(
  body: ChatRequest,
  signal: AbortSignal,
  callbacks: StreamCallbacks = {},
): Promise<StreamOutcome> {
  let response: Response;
  try {
    response = await fetch(chatPath, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body: JSON.stringify(body),
      signal,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiRequestError({
      message: `The workbench server did not answer POST ${chatPath}.`,
      status: 0,
      stage: 'network',
      request: `POST ${chatPath}`,
      advice: 'Check that `npm start` is still running, then try again.',
    });
  }
  if (!response.ok) throw await readErrorResponse(response);

  const outcome: StreamOutcome = { meta: null, finalMeta: null, sawDone: false, streamError: null };
  const contentType = response.headers.get('content-type') ?? '';
  if (!contentType.includes('text/event-stream')) {
    // The BFF answered JSON although a stream was asked for: read it as a whole answer.
    const result = chatResultSchema.safeParse(parseJson(await response.text()));
    if (!result.success) {
      outcome.streamError = {
        message: 'The workbench server answered neither a stream nor a chat result.',
        stage: 'response',
        type: null,
      };
      return outcome;
    }
    outcome.meta = result.data.meta;
    outcome.finalMeta = result.data.meta;
    callbacks.onMeta?.(result.data.meta);
    outcome.streamError = errorFromStreamPayload(result.data.body);
    return outcome;
  }

  const handleEvent = (event: ServerSentEvent) => {
    callbacks.onRawEvent?.(event);
    if (event.event === 'meta' || event.event === 'done') {
      const meta = callMetaSchema.safeParse(parseJson(event.data));
      if (!meta.success) return;
      if (event.event === 'meta') {
        outcome.meta = meta.data;
        callbacks.onMeta?.(meta.data);
      } else {
        outcome.finalMeta = meta.data;
      }
      return;
    }
    if (event.event === 'error') {
      const apiError = apiErrorSchema.safeParse(parseJson(event.data));
      outcome.streamError = apiError.success
        ? {
            message: apiError.data.error.message,
            stage: apiError.data.error.stage,
            type: apiError.data.error.type ?? null,
            fromWorkbench: true,
          }
        : (errorFromStreamPayload(parseJson(event.data)) ?? {
            message: event.data,
            stage: 'gateway',
            type: null,
          });
      return;
    }
    if (event.data === '[DONE]') {
      outcome.sawDone = true;
      return;
    }
    const payload = parseJson(event.data);
    const chunk = chatCompletionChunkSchema.safeParse(payload);
    if (chunk.success) {
      callbacks.onChunk?.(chunk.data);
      return;
    }
    outcome.streamError = errorFromStreamPayload(payload) ?? {
      message:
        'The stream carried an event that is not a chat-completion chunk (see the raw view).',
      stage: 'response',
      type: null,
    };
  };

  const parser = createSseParser(handleEvent);
  const reader = response.body?.getReader();
  if (!reader) return outcome;
  // `stream: true` keeps a multi-byte character split across chunks whole.
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
    parser.feed(decoder.decode());
    parser.flush();
  } finally {
    reader.releaseLock();
  }
  return outcome;
}

/** Sends a non-streamed chat request: the gateway's JSON body and the call's meta. */
export function completeChat(body: ChatRequest, signal: AbortSignal): Promise<ChatResult> {
  return apiPost(chatPath, body, chatResultSchema, { signal });
}
