/**
 * The gateway's one internal error type. Routes throw it; each public form (chat-completion,
 * Messages, Gemini) writes it out in its own shape, so the status, stage and message are decided
 * once, here, and never differ between forms. A message never carries a key: whatever it quotes
 * (a model name, a path, an id) is masked here, so no form's error body can echo one.
 */
import { z } from 'zod';
import type { ErrorStage } from '../contract/gateway';
import { maskKeys } from './shared/key-masking';

/** Every `type` a gateway error can have; the error shapes' schemas read it too. */
export const gatewayErrorTypeSchema = z.enum([
  'invalid_request',
  'authentication_error',
  'key_expired',
  'key_disabled',
  'parent_key_unavailable',
  'key_depleted',
  'insufficient_balance',
  'permission_denied',
  'not_found',
  'conflict',
  'model_not_found',
  'request_too_large',
  'unsupported_media_type',
  'rate_limited',
  'provider_error',
  'internal_error',
]);
export type GatewayErrorType = z.infer<typeof gatewayErrorTypeSchema>;

/** What a `GatewayError` is made of; named, so a call site reads which number is which. */
export type GatewayErrorOptions = {
  status: number;
  type: GatewayErrorType;
  stage: ErrorStage;
  /** Masked of any key before it is kept. */
  message: string;
  /** Seconds after which a retry may succeed; only where a retry helps. */
  retryAfterSeconds?: number;
};

export class GatewayError extends Error {
  readonly status: number;
  readonly type: GatewayErrorType;
  readonly stage: ErrorStage;
  /** Seconds after which a retry may succeed; only where a retry helps. */
  readonly retryAfterSeconds?: number;

  constructor({ status, type, stage, message, retryAfterSeconds }: GatewayErrorOptions) {
    // Masked before Error keeps it: the stack, logged on failures, starts with the message.
    super(maskKeys(message));
    this.name = 'GatewayError';
    this.status = status;
    this.type = type;
    this.stage = stage;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export const invalidRequest = (message: string) =>
  new GatewayError({ status: 400, type: 'invalid_request', stage: 'validation', message });

export const notFound = (message: string) =>
  new GatewayError({ status: 404, type: 'not_found', stage: 'validation', message });

/** The client went away: nobody is left to answer (the route sees a destroyed response). */
export const clientLeft = () =>
  new GatewayError({
    status: 499,
    type: 'invalid_request',
    stage: 'validation',
    message: 'The client closed the request.',
  });

/** Anything that is not a GatewayError becomes a 500 that says nothing of the internals. */
export function toGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  return new GatewayError({
    status: 500,
    type: 'internal_error',
    stage: 'internal',
    message: 'The gateway hit an internal error. Retry later; quote the request id if it persists.',
  });
}
