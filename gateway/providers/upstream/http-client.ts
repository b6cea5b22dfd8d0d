/**
 * The HTTP side of every upstream provider, over the shared client (contract/http-client.ts):
 * one pooled keep-alive agent per provider with its connect, first-byte (headers) and idle
 * (body) timeouts; each call bound to its deadlines (call-deadlines.ts); and the translation of
 * the client's failures into UpstreamErrors. Nothing here knows a vendor's wire format.
 */
import {
  createStagedAgent,
  failureOf,
  first,
  HttpCallError,
  send,
  sendWhole,
  type CallPhase,
  type HttpAnswer,
  type WholeAnswer,
} from '../../../contract/http-client';
import type { Agent } from 'undici';
import type { UpstreamCall } from './adapter';
import type { CallDeadline } from './call-deadlines';
import type { ProviderTimeouts } from './provider-config';
import { UpstreamError } from '../upstream-error';
import { injectTraceparent } from '../../operability/tracing';

export function createUpstreamAgent(timeouts: ProviderTimeouts): Agent {
  return createStagedAgent({
    connectMs: timeouts.connectMs,
    // No headers, no answer: the call's own deadlines bound this wait too.
    firstByteMs: Math.min(timeouts.firstByteMs, timeouts.firstEventMs, timeouts.totalMs),
    idleMs: timeouts.idleMs,
  });
}

export type UpstreamAnswer = HttpAnswer;

/** An adapter's call sent through a provider's agent, with the signal that abandons it. */
export type UpstreamRequest = UpstreamCall & {
  agent: Agent;
  signal: AbortSignal;
  providerId: string;
  /** Ends the call when its first event or its end is late. */
  deadline?: CallDeadline;
};

/** Sends a request; resolves with the answer's headers and its body as a stream. */
export async function postJson({
  agent,
  url,
  headers,
  body,
  signal,
  providerId,
  deadline,
}: UpstreamRequest): Promise<UpstreamAnswer> {
  try {
    const answer = await send({
      agent,
      url,
      method: 'POST',
      ...jsonRequest(headers, body),
      signal,
    });
    // A late answer is ended where it is read: its body fails with the deadline's error.
    deadline?.bind((reason) => answer.body.destroy(reason));
    return answer;
  } catch (error) {
    throw toUpstreamError(error, providerId, 'before');
  }
}

/**
 * A JSON request's headers and body, as both ways of sending one take them; with the attempt's
 * `traceparent` when the request is traced, so the upstream's trace joins the client's.
 */
const jsonRequest = (headers: Record<string, string>, body: unknown) => {
  const sent: Record<string, string> = { 'content-type': 'application/json', ...headers };
  injectTraceparent(sent);
  return { headers: sent, body: JSON.stringify(body) };
};

export type { WholeAnswer };

/**
 * Sends a request whose answer is read whole (`sendWhole`: cut past `limitOf`, from the status
 * and headers). Errors and the abort signal behave as `postJson`'s, and a failure after the
 * headers is a cut answer.
 */
export async function postJsonWhole(
  { agent, url, headers, body, signal, providerId, deadline }: UpstreamRequest,
  limitOf: (status: number, headers: UpstreamAnswer['headers']) => number,
): Promise<WholeAnswer> {
  try {
    return await sendWhole(
      {
        agent,
        url,
        method: 'POST',
        ...jsonRequest(headers, body),
        signal,
        bindAbort: deadline && ((abort) => deadline.bind(abort)),
      },
      limitOf,
    );
  } catch (error) {
    throw toUpstreamError(error, providerId, 'before');
  }
}

/** `Retry-After` in seconds (delta or HTTP date), or `retry-after-ms`; undefined when absent. */
export function retryAfterSeconds(headers: UpstreamAnswer['headers']): number | undefined {
  const milliseconds = Number(first(headers['retry-after-ms']));
  if (Number.isFinite(milliseconds) && milliseconds > 0) return Math.ceil(milliseconds / 1000);
  const value = first(headers['retry-after']);
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/**
 * The client's failures → how the upstream failed. `phase` says whether the answer had begun
 * (an `HttpCallError` knows it itself): a reset before the headers is a connection failure,
 * after them a cut answer.
 */
export function toUpstreamError(
  error: unknown,
  providerId: string,
  phase: CallPhase,
): UpstreamError {
  if (error instanceof HttpCallError) return toUpstreamError(error.cause, providerId, error.phase);
  if (error instanceof UpstreamError) return error;
  switch (failureOf(error, phase)) {
    case 'connect_timeout':
      return new UpstreamError(
        'connect_timeout',
        providerId,
        'The provider did not accept a connection in time.',
      );
    case 'first_byte_timeout':
      return new UpstreamError(
        'first_byte_timeout',
        providerId,
        'The provider did not start answering in time.',
      );
    case 'idle_timeout':
      return new UpstreamError(
        'idle_timeout',
        providerId,
        'The provider stopped sending in the middle of its answer.',
      );
    default:
      return phase === 'before'
        ? new UpstreamError('connect', providerId, 'The provider could not be reached.')
        : new UpstreamError(
            'cut',
            providerId,
            'The provider closed the connection before its answer ended.',
          );
  }
}
