/**
 * `POST /api/chat`: one chat completion through the gateway with the profile's key, plain or
 * streamed. A stream is passed through as it arrives (no buffering beyond an unfinished line,
 * no compression) and the gateway call is aborted as soon as the browser goes away. With
 * `api: "responses"` the conversation goes to `POST /v1/responses` instead, and its answer comes
 * back translated into the chat-completion shape (`from-responses-answer.ts`).
 */
import { Router, type Response } from 'express';
import { responsesObjectSchema, toResponsesRequest } from '../../contract/responses-form';
import { chatRequestSchema, type CallMeta, type ChatResult } from '../../contract/workbench-api';
import { writeWithBackpressure } from '../../contract/write-with-backpressure';
import { abortOnClientClose } from '../core/client-close';
import { completionFromResponse, createResponsesStreamTranslator } from './from-responses-answer';
import type { WorkbenchContext } from '../core/context';
import {
  gatewayCallFailure,
  gatewayErrorFailure,
  gatewayShapeFailure,
  parseInput,
} from '../core/errors';
import {
  CallerGoneError,
  GatewayCallError,
  parseJsonOrNull,
  routingOf,
  translationOf,
  type GatewayResponse,
} from '../core/gateway-client';
import { maskKnownKeys, redactJson, redactSecretText } from '../core/secrets';

/** How long a browser may leave a streamed reply unread before it is dropped (and the gateway call with it). */
const BROWSER_SEND_TIMEOUT_MS = 60_000;

function sseEvent(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The call's meta: status, trace id, timing, and which provider answered after how many tries. */
function callMetaOf(upstream: GatewayResponse, totalMs: number | null): CallMeta {
  return {
    upstream_status: upstream.status,
    cf_ray: upstream.cfRay,
    ttfb_ms: upstream.ttfbMs,
    total_ms: totalMs,
    ...routingOf(upstream.headers),
    translation: translationOf(upstream.headers),
  };
}

export function createChatRouter(context: WorkbenchContext): Router {
  const router = Router();
  const { gateway, profiles } = context;

  async function answerWhole(
    upstream: GatewayResponse,
    response: Response,
    signal: AbortSignal,
    profile: string,
    fromResponses: boolean,
  ): Promise<void> {
    const text = await gateway.readText(upstream, signal);
    const json = parseJsonOrNull(text);
    const ok = upstream.status >= 200 && upstream.status < 300;
    if (!json) {
      if (!ok) throw gatewayErrorFailure(upstream.status, text, upstream.cfRay, profiles.allKeys());
      throw gatewayShapeFailure(
        'The gateway answered with a body that is not JSON.',
        upstream.status,
        upstream.cfRay,
      );
    }
    if (ok && upstream.cfRay) profiles.rememberTrace(profile, upstream.cfRay);
    const meta = callMetaOf(upstream, upstream.elapsedMs());
    // An error body is checked for anything key-like; an answer only for the held keys, so a
    // model's text is otherwise passed on exactly.
    const answer = ok && fromResponses ? responsesObjectSchema.safeParse(json.value) : null;
    const chatBody = answer?.success ? completionFromResponse(answer.data) : json.value;
    const body = redactJson(chatBody, profiles.allKeys(), { onlyKnownKeys: ok });
    const result: ChatResult = { meta, body };
    response.json(result);
  }

  async function answerStream(
    upstream: GatewayResponse,
    response: Response,
    signal: AbortSignal,
    profile: string,
    translator: ReturnType<typeof createResponsesStreamTranslator> | null,
  ): Promise<void> {
    response.status(200);
    response.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    response.setHeader('Cache-Control', 'no-cache, no-transform');
    response.setHeader('X-Accel-Buffering', 'no');
    response.flushHeaders();
    if (upstream.cfRay) profiles.rememberTrace(profile, upstream.cfRay);
    const meta = callMetaOf(upstream, null);
    response.write(sseEvent('meta', meta));

    const keys = profiles.allKeys();
    const mask = (text: string) =>
      text
        .split('\n')
        .map((line) =>
          line.includes('"error"') ? redactSecretText(line, keys) : maskKnownKeys(line, keys),
        )
        .join('\n');
    // The Responses form's events are one `data:` line each: every line is translated alone.
    const forward = translator
      ? (text: string) =>
          mask(
            text
              .split('\n')
              .map((line) =>
                line.startsWith('data:')
                  ? translator.translateData(line.slice(5).replace(/\r$/, '').trim())
                  : '',
              )
              .join(''),
          )
      : mask;
    const decoder = new TextDecoder();
    let unfinishedLine = '';
    let tail = '';
    // The next piece is read from the gateway only once the browser has taken this one, so a tab
    // that stops reading holds back the gateway's stream instead of filling this server's memory.
    const write = async (text: string) => {
      if (text === '') return;
      tail = (tail + text).slice(-2);
      await writeWithBackpressure(response, text, BROWSER_SEND_TIMEOUT_MS);
    };
    // The gateway's last event may lack its blank line; close it so the next event stands alone.
    const closeLastEvent = async () => {
      if (tail !== '' && tail !== '\n\n') await write(tail.endsWith('\n') ? '\n' : '\n\n');
    };
    try {
      for await (const chunk of gateway.chunks(upstream, signal)) {
        unfinishedLine += decoder.decode(chunk, { stream: true });
        const lastNewline = unfinishedLine.lastIndexOf('\n');
        if (lastNewline === -1) continue;
        await write(forward(unfinishedLine.slice(0, lastNewline + 1)));
        unfinishedLine = unfinishedLine.slice(lastNewline + 1);
      }
      unfinishedLine += decoder.decode();
      await write(forward(unfinishedLine));
    } catch (error) {
      if (error instanceof CallerGoneError || signal.aborted) return;
      if (!(error instanceof GatewayCallError)) throw error;
      // The status is already sent: the failure goes out as an event in the stream.
      await closeLastEvent();
      await write(sseEvent('error', { error: gatewayCallFailure(error).detail }));
    }
    await closeLastEvent();
    response.write(sseEvent('done', { ...meta, total_ms: upstream.elapsedMs() }));
    response.end();
  }

  router.post('/chat', async (request, response) => {
    const input = parseInput(chatRequestSchema, request.body, 'body');
    const key = profiles.keyOf(input.profile);
    const signal = abortOnClientClose(response);
    const wantsStream = input.request.stream === true;
    const fromResponses = input.api === 'responses';
    const upstream = await gateway.request({
      method: 'POST',
      path: fromResponses ? '/v1/responses' : '/v1/chat/completions',
      key,
      json: fromResponses ? toResponsesRequest(input.request).body : input.request,
      signal,
      stream: wantsStream,
    });
    response.locals.cfRay = upstream.cfRay;
    try {
      const ok = upstream.status >= 200 && upstream.status < 300;
      if (wantsStream && !ok) {
        // Before the stream starts, a gateway error is a plain API error (contract).
        const text = await gateway.readText(upstream, signal);
        // Not JSON: the text itself is the message (masked inside gatewayErrorFailure).
        const json = parseJsonOrNull(text);
        throw gatewayErrorFailure(
          upstream.status,
          json ? json.value : text,
          upstream.cfRay,
          profiles.allKeys(),
        );
      }
      if (wantsStream && upstream.contentType.includes('text/event-stream')) {
        const translator = fromResponses
          ? createResponsesStreamTranslator(input.request.model)
          : null;
        await answerStream(upstream, response, signal, input.profile, translator);
      } else {
        // Not asked to stream, or the gateway chose to answer whole: a JSON chat result.
        await answerWhole(upstream, response, signal, input.profile, fromResponses);
      }
    } finally {
      upstream.abort();
    }
  });
  return router;
}
