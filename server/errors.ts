/**
 * The BFF's one error type and its single JSON form (`apiErrorSchema`). Every failure, from bad
 * input to a gateway that is down, becomes an ApiFailure and is written by `errorHandler`.
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { z } from 'zod';
import { apiStageSchema, type ApiError } from '../contract/workbench-api';
import { gatewayErrorBodySchema } from '../contract/gateway';
import { redactSecretText } from './secrets';
import { CallerGoneError, GatewayCallError } from './gateway-client';

export type ApiErrorDetail = ApiError['error'];

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly detail: ApiErrorDetail,
  ) {
    super(detail.message);
    this.name = 'ApiFailure';
  }
}

/** Bad input: a 400 (or the status given) naming the field. */
export function validationFailure(field: string, message: string, status = 400): ApiFailure {
  return new ApiFailure(status, { message: `${field}: ${message}`, stage: 'validation', field });
}

/** Parses input with a zod schema, or throws a 400 naming the first wrong field. */
export function parseInput<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  where: 'body' | 'query',
): z.output<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.join('.') : where;
  throw validationFailure(field, issue?.message ?? 'is not valid');
}

const retryNote = 'The Keys page shows its state and balance. Do not retry unchanged.';

/** Advice for the gateway's own error types, more precise than the status alone. */
const adviceForType: Record<string, string> = {
  key_expired: `The key has expired. Set a new expiry or use another key. ${retryNote}`,
  key_disabled: `The key is disabled. Enable it or use another key. ${retryNote}`,
  parent_key_unavailable: `The key's parent key is disabled or expired, so this key is refused too. Fix the parent key. ${retryNote}`,
  key_depleted: `The balance is used up (remaining_usd is 0). Add balance or use another key. ${retryNote}`,
  insufficient_balance: `The key cannot afford this request's worst case. Lower max_tokens or add balance. ${retryNote}`,
};

/**
 * The spec's advice per gateway status (section 7), in plain words. Shared by the chat proxy,
 * key validation and the endpoint checks.
 */
export function adviceForStatus(status: number, type?: string): string | undefined {
  const specific = type === undefined ? undefined : adviceForType[type];
  if (specific) return specific;
  if (status === 401) {
    return 'The key is missing or unknown to the gateway. Confirm the key is present, begins with sk-, and is sent in a supported header or query parameter.';
  }
  if (status === 402) {
    return 'The key is expired, disabled, depleted, or its parent key is disabled or expired. Inspect the key state and balance on the Keys page; do not retry unchanged.';
  }
  if (status === 403) return 'The gateway passed back another upstream authorization decision.';
  if (status === 404) return 'The gateway does not serve this route or model.';
  if (status === 429) {
    return 'A capacity limit was reached; retry after the time the gateway gives, keeping the trace id.';
  }
  if (status >= 500) {
    return 'A fault of the gateway or a provider: keep the trace id (cf-ray) as evidence and retry later.';
  }
  return undefined;
}

/** A gateway answer that is an error, turned into the BFF's error (status mirrored for 4xx). */
export function gatewayErrorFailure(
  status: number,
  body: unknown,
  cfRay: string | null,
  knownKeys: Iterable<string>,
): ApiFailure {
  const parsed = gatewayErrorBodySchema.safeParse(body);
  const gatewayStage = apiStageSchema.safeParse(parsed.success ? parsed.data.stage : undefined);
  const message = parsed.success
    ? parsed.data.error
    : typeof body === 'string' && body.trim() !== ''
      ? body.trim().slice(0, 300)
      : `The gateway answered HTTP ${status}.`;
  const detail: ApiErrorDetail = {
    message: redactSecretText(message, knownKeys),
    stage: gatewayStage.success ? gatewayStage.data : 'gateway',
    upstream_status: status,
    advice: adviceForStatus(status, parsed.success ? parsed.data.type : undefined),
  };
  if (cfRay) detail.cf_ray = cfRay;
  if (parsed.success && parsed.data.type) detail.type = redactSecretText(parsed.data.type);
  return new ApiFailure(status >= 400 && status < 500 ? status : 502, detail);
}

/** A gateway answer (2xx or not) that does not have the shape the workbench needs. */
export function gatewayShapeFailure(
  message: string,
  upstreamStatus: number,
  cfRay: string | null,
): ApiFailure {
  return new ApiFailure(502, {
    message,
    stage: 'gateway',
    upstream_status: upstreamStatus,
    ...(cfRay ? { cf_ray: cfRay } : {}),
  });
}

/** A call that got no usable answer (down, slow, garbage), with the stage it failed in. */
export function gatewayCallFailure(error: GatewayCallError): ApiFailure {
  const advice: Record<GatewayCallError['stage'], string> = {
    connect:
      'The gateway is not reachable: check GATEWAY_BASE_URL, or that the embedded gateway is running.',
    first_byte: 'The gateway accepted the connection but did not answer in time; retry later.',
    deadline:
      'The gateway started answering but sent its answer too slowly; retry later, or raise WORKBENCH_GATEWAY_BODY_DEADLINE_MS for a slow link.',
    too_large:
      'The gateway sent far more than any answer the workbench expects; check GATEWAY_BASE_URL points at the gateway.',
    gateway: 'The gateway answered with something the workbench cannot read; retry later.',
  };
  const timedOut = error.stage === 'first_byte' || error.stage === 'deadline';
  return new ApiFailure(timedOut ? 504 : 502, {
    message: error.message,
    stage: error.stage,
    advice: advice[error.stage],
  });
}

export const notFoundHandler: RequestHandler = (request, _response, next) => {
  next(
    new ApiFailure(404, {
      message: `No API route ${request.method} ${request.path.split('?')[0]}.`,
      stage: 'validation',
    }),
  );
};

interface BodyParserError {
  type?: string;
  status?: number;
}

/**
 * Writes every error as `{ error: … }`; bad input is a 4xx, never a 500 nor a crash. Routes just
 * await their gateway calls: a browser that left ends quietly here, and a call that got no
 * usable answer becomes its API error (with its stage) here.
 */
export function createErrorHandler(
  knownKeys: () => Iterable<string>,
  onUnexpected: (error: unknown) => void,
): ErrorRequestHandler {
  return (thrown: unknown, _request, response, next) => {
    // The browser left: nobody is there to answer, and nothing went wrong.
    if (thrown instanceof CallerGoneError) {
      response.end();
      return;
    }
    const error = thrown instanceof GatewayCallError ? gatewayCallFailure(thrown) : thrown;
    if (response.headersSent) {
      // A stream already under way cannot change its status; end it so the client notices.
      if (!(error instanceof ApiFailure)) onUnexpected(error);
      response.end();
      return;
    }
    let failure: ApiFailure;
    if (error instanceof ApiFailure) {
      failure = error;
    } else {
      const parserError = error as BodyParserError;
      switch (parserError.type) {
        case 'entity.too.large':
          failure = validationFailure('body', 'the request body is too large', 413);
          break;
        case 'entity.parse.failed':
          failure = validationFailure('body', 'is not valid JSON');
          break;
        case 'encoding.unsupported':
        case 'charset.unsupported':
          failure = validationFailure('body', 'unsupported encoding or charset', 415);
          break;
        default:
          if (typeof parserError.status === 'number' && parserError.status < 500) {
            failure = new ApiFailure(parserError.status, {
              message: 'The request could not be read.',
              stage: 'validation',
            });
          } else {
            onUnexpected(error);
            failure = new ApiFailure(500, {
              message: 'The workbench hit an unexpected error; see its log.',
              stage: 'internal',
            });
          }
      }
    }
    const detail: ApiErrorDetail = {
      ...failure.detail,
      message: redactSecretText(failure.detail.message, knownKeys()),
    };
    response.status(failure.status).json({ error: detail } satisfies ApiError);
    void next;
  };
}
