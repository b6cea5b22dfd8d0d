/**
 * Runs chat requests and reports each reply's progress as `replyUpdated` actions: the streamed
 * text as it arrives, the timing, the trace id, and how it ended (done, stopped, error). Each run
 * has its own AbortController; `stop` aborts them all, which closes the fetch, and the BFF then
 * aborts its gateway request.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { chatCompletionSchema } from '../../../contract/gateway';
import type { ChatRequest } from '../../../contract/workbench-api';
import { ApiRequestError } from '../../lib/api-client';
import {
  connectionLost,
  errorFromStreamPayload,
  runErrorForBrokenStream,
  runErrorFromStream,
  runErrorFromThrown,
} from './api/error-advice';
import {
  applyChunk,
  emptyReply,
  replyFromCompletion,
  type ReplyState,
} from './api/reply-accumulator';
import { completeChat, streamChat } from './api/stream-chat';
import type { PlaygroundAction } from './conversation-state';
import type { ConversationMessage, RawStreamEvent, RunRecord } from './playground-types';

/** How often a streaming reply is re-rendered at most: smooth to read, cheap to draw. */
const publishIntervalMs = 50;

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

/** A new assistant reply, about to be requested. */
export function pendingReply(id: string, body: ChatRequest): ConversationMessage {
  return {
    id,
    role: 'assistant',
    text: '',
    images: [],
    run: {
      model: body.request.model,
      status: 'streaming',
      streamed: body.request.stream === true,
      startedAt: Date.now(),
      firstTokenMs: null,
      totalMs: null,
      cfRay: null,
      upstreamStatus: null,
      meta: null,
      finishReason: null,
      usage: null,
      error: null,
      request: body,
      response: null,
    },
  };
}

function errorBody(error: unknown): unknown {
  if (error instanceof ApiRequestError) {
    return {
      error: {
        message: error.message,
        stage: error.stage,
        ...(error.upstreamStatus !== undefined ? { upstream_status: error.upstreamStatus } : {}),
        ...(error.cfRay !== undefined ? { cf_ray: error.cfRay } : {}),
        ...(error.advice !== undefined ? { advice: error.advice } : {}),
        ...(error.type !== undefined ? { type: error.type } : {}),
      },
    };
  }
  return { error: { message: error instanceof Error ? error.message : String(error) } };
}

export function useChatRunner(dispatch: (action: PlaygroundAction) => void) {
  const controllers = useRef(new Map<string, AbortController>());
  const [activeCount, setActiveCount] = useState(0);

  const stop = useCallback(() => {
    for (const controller of controllers.current.values()) controller.abort();
  }, []);

  // Leaving the page stops what still streams: nobody would see it, and it costs money.
  useEffect(() => stop, [stop]);

  const run = useCallback(
    async (reply: ConversationMessage, body: ChatRequest): Promise<ConversationMessage> => {
      const controller = new AbortController();
      controllers.current.set(reply.id, controller);
      setActiveCount((count) => count + 1);

      const sentAt = performance.now();
      const elapsed = () => Math.round(performance.now() - sentAt);
      const initialRun = reply.run ?? pendingReply(reply.id, body).run;
      if (!initialRun) throw new Error('A reply needs a run record.');
      let record: RunRecord = { ...initialRun, startedAt: Date.now() };
      let state: ReplyState = emptyReply;
      const events: RawStreamEvent[] = [];
      let timer: ReturnType<typeof setTimeout> | null = null;

      const snapshot = (): ConversationMessage => ({
        ...reply,
        text: state.text,
        ...(state.reasoning !== '' ? { reasoning: state.reasoning } : {}),
        ...(state.toolCalls.length > 0 ? { toolCalls: state.toolCalls.filter(Boolean) } : {}),
        run: {
          ...record,
          finishReason: state.finishReason,
          usage: state.usage,
          response:
            record.response?.kind === 'json'
              ? record.response
              : { kind: 'stream', status: record.upstreamStatus ?? 0, events: events.slice() },
        },
      });
      const publish = () => {
        if (timer !== null) clearTimeout(timer);
        timer = null;
        dispatch({ type: 'replyUpdated', reply: snapshot() });
      };
      const schedulePublish = () => {
        timer ??= setTimeout(publish, publishIntervalMs);
      };

      try {
        if (body.request.stream) {
          const outcome = await streamChat(body, controller.signal, {
            onRawEvent: (event) => {
              events.push({ ...event, atMs: elapsed() });
              schedulePublish();
            },
            onMeta: (meta) => {
              record = {
                ...record,
                cfRay: meta.cf_ray,
                upstreamStatus: meta.upstream_status,
                meta,
              };
              schedulePublish();
            },
            onChunk: (chunk) => {
              const wasStarted = state.started;
              state = applyChunk(state, chunk);
              if (!wasStarted && state.started) record = { ...record, firstTokenMs: elapsed() };
              schedulePublish();
            },
          });
          const meta = outcome.finalMeta ?? outcome.meta;
          record = {
            ...record,
            totalMs: elapsed(),
            meta,
            cfRay: meta?.cf_ray ?? record.cfRay,
            upstreamStatus: meta?.upstream_status ?? record.upstreamStatus,
          };
          if (
            !outcome.sawDone &&
            state.finishReason === null &&
            connectionLost(outcome.streamError)
          ) {
            // No end and no error from the gateway itself: the connection to it was lost.
            record = {
              ...record,
              status: 'error',
              error: runErrorForBrokenStream(
                outcome.streamError,
                record.upstreamStatus,
                record.cfRay,
              ),
            };
          } else if (outcome.streamError) {
            record = {
              ...record,
              status: 'error',
              error: runErrorFromStream(outcome.streamError, record.upstreamStatus, record.cfRay),
            };
          } else {
            record = { ...record, status: 'done' };
          }
        } else {
          const result = await completeChat(body, controller.signal);
          record = {
            ...record,
            totalMs: elapsed(),
            meta: result.meta,
            cfRay: result.meta.cf_ray,
            upstreamStatus: result.meta.upstream_status,
            response: { kind: 'json', status: result.meta.upstream_status, body: result.body },
          };
          const completion = chatCompletionSchema.safeParse(result.body);
          if (completion.success && result.meta.upstream_status < 400) {
            state = replyFromCompletion(completion.data);
            record = { ...record, status: 'done' };
          } else {
            const streamError = errorFromStreamPayload(result.body) ?? {
              message: `The gateway answered HTTP ${result.meta.upstream_status} with a body that is not a chat completion (see the raw view).`,
              stage: 'response',
              type: null,
            };
            record = {
              ...record,
              status: 'error',
              error: runErrorFromStream(
                streamError,
                result.meta.upstream_status,
                result.meta.cf_ray,
              ),
            };
          }
        }
      } catch (error) {
        if (isAbort(error)) {
          // Stop after the last chunk (its finish reason) cut nothing: the answer is whole.
          const whole = state.finishReason !== null;
          record = { ...record, status: whole ? 'done' : 'stopped', totalMs: elapsed() };
        } else {
          const runError = runErrorFromThrown(error);
          record = {
            ...record,
            status: 'error',
            totalMs: elapsed(),
            error: runError,
            cfRay: record.cfRay ?? runError.cfRay,
            upstreamStatus: record.upstreamStatus ?? runError.upstreamStatus,
            response:
              events.length > 0
                ? record.response
                : {
                    kind: 'json',
                    status: error instanceof ApiRequestError ? error.status : 0,
                    body: errorBody(error),
                  },
          };
        }
      } finally {
        controllers.current.delete(reply.id);
        setActiveCount((count) => count - 1);
      }
      publish();
      return snapshot();
    },
    [dispatch],
  );

  return { run, stop, running: activeCount > 0 };
}
