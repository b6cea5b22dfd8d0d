/**
 * The BFF's one error type and its single JSON form (`apiErrorSchema`). Every failure, from bad
 * input to a gateway that is down, becomes an ApiFailure and is written by `errorHandler`.
 */
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import type { z } from 'zod';
import { apiStageSchema, type ApiError } from '../../contract/workbench-api';
import { gatewayErrorBodySchema, type KeyKind } from '../../contract/gateway';
import { redactSecretText } from './secrets';
import { CallerGoneError, GatewayCallError, type CollectedResponse } from './gateway-client';

export type ApiErrorDetail = ApiError['error'];

/** Who runs the gateway: the workbench itself (embedded) or someone else (external). */
export type WorkbenchMode = 'embedded' | 'external';

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

/** What advice may take into account besides the status and the gateway's error type. */
export interface AdviceSituation {
  /** The catalog model the request named, when it named one. */
  model?: string | undefined;
  /** The kind of the key the request used, when the BFF knows it. */
  identity?: KeyKind | null | undefined;
  /** The request manages keys (an account profile's child keys), so a 403 or 404 means that. */
  keyManagement?: boolean;
  /** The request manages an account profile's webhook endpoints: a 403 or 404 means that. */
  webhooks?: boolean;
}

/**
 * Lets a route say what it is about (`response.locals.adviceSituation`), for what the request
 * alone does not show; the error handler adds it to the situation it advises on.
 */
export function setAdviceSituation(
  locals: Record<string, unknown>,
  situation: AdviceSituation,
): void {
  locals.adviceSituation = situation;
}

const retryNote = "The Keys page shows the key's state and balance. Do not retry unchanged.";

/**
 * What the holder of an expired or disabled key can do, as far as the workbench can do it: it
 * changes child keys from their account profile's Child keys table, never an account key, which
 * only the gateway's command line or its operator can change. A rotation does not help an expired
 * key (the replacement would take the same expiry, so Rotate refuses it).
 */
export function stoppedKeyFix(
  state: 'expired' | 'disabled',
  identity: KeyKind | null | undefined,
): string {
  const child = identity === 'allocated_child' || identity === 'shared_child';
  if (state === 'expired') {
    if (child) {
      return 'Extend its expiry on the Keys page: choose its account profile, then Set limit & expiry (Set expiry for a shared child) in the Child keys table. Or choose another key profile.';
    }
    if (identity === 'account') {
      return 'The workbench cannot change an account key: extend its expiry with the gateway’s command line (keys set ID --expires-at …) or ask the gateway’s operator. Or choose another key profile.';
    }
    return 'Extend its expiry (a child key: Set limit & expiry in its account profile’s Child keys table on the Keys page; an account key: the gateway’s command line, keys set ID --expires-at …), or choose another key profile.';
  }
  if (child) {
    return 'Enable it on the Keys page: choose its account profile, then Enable in the Child keys table. Or choose another key profile.';
  }
  if (identity === 'account') {
    return 'The workbench cannot enable an account key: the gateway’s command line (keys enable ID) or its operator can. Or choose another key profile.';
  }
  return 'Enable it (a child key: Enable in its account profile’s Child keys table on the Keys page; an account key: the gateway’s command line, keys enable ID), or choose another key profile.';
}

const isFreeModel = (model: string | undefined) => model !== undefined && model.endsWith(':free');

/**
 * Advice for the gateway's own error types, which name the cause more precisely than the status.
 * It fits the situation: a used-up balance is not helped by a cheaper or `:free` model (the
 * gateway refuses a depleted key on every model), and a `:free` model is not made cheaper.
 */
function adviceForType(type: string, situation: AdviceSituation): string | undefined {
  const sharedChild = situation.identity === 'shared_child';
  switch (type) {
    case 'key_expired':
      return `The key has expired. ${stoppedKeyFix('expired', situation.identity)} ${retryNote}`;
    case 'key_disabled':
      return `The key is disabled. ${stoppedKeyFix('disabled', situation.identity)} ${retryNote}`;
    case 'parent_key_unavailable':
      return `The key's parent key is disabled, expired or revoked, so this key is refused too; the Keys page says which. Enable or extend the parent key, or choose another key profile. ${retryNote}`;
    case 'key_depleted': {
      const whose = sharedChild
        ? "The parent key's balance, which this shared child key spends, is used up"
        : "The key's balance is used up";
      const anyModel = isFreeModel(situation.model)
        ? 'The gateway refuses a key with nothing left on every model, :free ones included'
        : 'The gateway refuses a key with nothing left on every model, so a cheaper or :free model does not help';
      const fix = sharedChild
        ? "raise the parent key's limit or recharge it"
        : "raise the key's limit or recharge it";
      return `${whose} (remaining_usd is 0). ${anyModel}: ${fix}, or choose another key profile. ${retryNote}`;
    }
    case 'permission_denied':
      if (situation.webhooks) {
        return 'Only an account key manages notification endpoints (webhooks), and this profile holds a child key. Choose an account profile on the Keys page.';
      }
      return situation.keyManagement
        ? 'Only an account key manages child keys, and this profile holds a child key. Choose an account profile in the Key picker (the Keys page shows each profile’s kind).'
        : undefined;
    case 'insufficient_balance':
      return isFreeModel(situation.model)
        ? `The key's remaining balance and grace are already taken by requests in flight. Wait for them to finish, or raise the key's limit. ${retryNote}`
        : `The key cannot afford this request's worst case (max_tokens at the model's prices). Lower max_tokens, pick a cheaper or :free model, or raise the key's limit. ${retryNote}`;
    default:
      return undefined;
  }
}

/**
 * The advice per gateway status, in plain words, made precise by the gateway's
 * error type and the situation where they say more. The one author of advice for gateway errors:
 * the chat proxy, key validation and the endpoint checks all get theirs here.
 */
export function adviceForStatus(
  status: number,
  type?: string,
  situation: AdviceSituation = {},
): string | undefined {
  const specific = type === undefined ? undefined : adviceForType(type, situation);
  if (specific) return specific;
  if (status === 401) {
    return 'The key is missing or unknown to the gateway. Confirm the key is present, begins with sk-, and is sent in a supported header or query parameter.';
  }
  if (status === 402) {
    return 'The key is expired, disabled, depleted, or its parent key is disabled or expired. Inspect the key state and balance on the Keys page; do not retry unchanged.';
  }
  if (status === 403) return 'The gateway passed back another upstream authorization decision.';
  if (status === 404) {
    if (situation.webhooks) {
      return 'The gateway knows no such notification endpoint of this account key (or does not send webhooks). Refresh the list of endpoints.';
    }
    return situation.keyManagement
      ? 'The gateway knows no such child key of this account key (or does not manage keys). Refresh the list of child keys.'
      : 'The gateway does not serve this route or model.';
  }
  if (status === 429) {
    return 'A capacity limit was reached; retry after the time the gateway gives, keeping the trace id.';
  }
  if (status >= 500) {
    return 'A fault of the gateway or a provider: keep the trace id (cf-ray) as evidence and retry later.';
  }
  return undefined;
}

/**
 * What to do when the gateway does not answer: it depends on who runs it. `banner` is the
 * health check's advice, shown in the banner that already says the embedded gateway's state.
 */
export function unreachableAdvice(
  mode: WorkbenchMode | undefined,
  where: 'error' | 'banner' = 'error',
): string {
  switch (mode) {
    case 'embedded':
      return where === 'banner'
        ? 'Requests that need it fail until it answers again; the workbench restarts its process when it stops. If it does not come back, restart the workbench.'
        : 'The workbench runs the embedded gateway and restarts it when it stops; the banner at the top shows its state. Try again in a few seconds.';
    case 'external':
      return 'Check that the gateway is running and that GATEWAY_BASE_URL points at it.';
    default:
      return 'Check that the gateway is running.';
  }
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

/**
 * The one reading of a collected gateway answer: an error status becomes the BFF's error (keys
 * masked), a 2xx body that does not fit `schema` a shape failure saying `shapeProblem`, and
 * anything else the parsed body.
 */
export function readGatewayAnswer<T>(
  answer: CollectedResponse,
  schema: z.ZodType<T>,
  shapeProblem: string,
  knownKeys: Iterable<string>,
): T {
  if (answer.status < 200 || answer.status >= 300) {
    throw gatewayErrorFailure(
      answer.status,
      answer.json ? answer.json.value : answer.text,
      answer.cfRay,
      knownKeys,
    );
  }
  const parsed = answer.json ? schema.safeParse(answer.json.value) : null;
  if (!parsed?.success) throw gatewayShapeFailure(shapeProblem, answer.status, answer.cfRay);
  return parsed.data;
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

/**
 * A call that got no usable answer (down, slow, garbage), with the stage it failed in. The advice
 * for an unreachable gateway depends on the mode: only the embedded one is the workbench's own.
 */
export function gatewayCallFailure(error: GatewayCallError, mode?: WorkbenchMode): ApiFailure {
  const advice: Record<GatewayCallError['stage'], string> = {
    connect: `The gateway is not reachable. ${unreachableAdvice(mode)}`,
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

interface StatusError {
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
  options: {
    mode?: WorkbenchMode;
    /** The model and key kind a request is about, so gateway errors get advice that fits. */
    situationOf?: (request: Request) => AdviceSituation;
  } = {},
): ErrorRequestHandler {
  return (thrown: unknown, request, response, next) => {
    // The browser left: nobody is there to answer, and nothing went wrong.
    if (thrown instanceof CallerGoneError) {
      response.end();
      return;
    }
    const error =
      thrown instanceof GatewayCallError ? gatewayCallFailure(thrown, options.mode) : thrown;
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
      // Express's own errors carry a status: a malformed path, a static file's bad range.
      const status = (error as StatusError).status;
      if (typeof status === 'number' && status < 500) {
        failure = new ApiFailure(status, {
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
    const detail: ApiErrorDetail = {
      ...failure.detail,
      message: redactSecretText(failure.detail.message, knownKeys()),
    };
    // A gateway error's type is advised on with what the request was about (its model, the
    // key's kind), which the route that threw it need not know.
    const { type, upstream_status: upstreamStatus } = failure.detail;
    const told = response.locals.adviceSituation as AdviceSituation | undefined;
    if (type !== undefined && upstreamStatus !== undefined && (options.situationOf || told)) {
      const situation = { ...options.situationOf?.(request), ...told };
      detail.advice = adviceForStatus(upstreamStatus, type, situation) ?? detail.advice;
    }
    response.status(failure.status).json({ error: detail } satisfies ApiError);
    void next;
  };
}
