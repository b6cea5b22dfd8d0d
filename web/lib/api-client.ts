/**
 * The one way the browser talks to the BFF: every answer is parsed with a contract schema, and
 * every failure becomes an `ApiRequestError` that says what failed, at which stage, and what to
 * do next.
 */
import type { z } from 'zod';
import { apiErrorSchema, type ApiStage } from '../../contract/workbench-api';

/**
 * Where a request failed: the BFF's own stages, plus two the browser adds when the BFF itself
 * could not be reached (`network`) or answered something the contract does not describe
 * (`response`).
 */
export type ApiRequestStage = ApiStage | 'network' | 'response';

/** A failed `/api` request, built from the contract's error body when there is one. */
export class ApiRequestError extends Error {
  /** HTTP status of the BFF's answer; 0 when no answer arrived. */
  readonly status: number;
  readonly stage: ApiRequestStage;
  /** The gateway's trace id of the failing call, when the failure came from the gateway. */
  readonly cfRay: string | undefined;
  /** What to do next, in plain words. */
  readonly advice: string | undefined;
  /** The request field that was wrong, for validation errors. */
  readonly field: string | undefined;
  /** HTTP status the gateway answered, when the error came from it. */
  readonly upstreamStatus: number | undefined;
  /** The gateway's machine-readable error type, when it sent one. */
  readonly type: string | undefined;
  /** The request that failed, e.g. `GET /api/catalog`. */
  readonly request: string;

  constructor(options: {
    message: string;
    status: number;
    stage: ApiRequestStage;
    request: string;
    cfRay?: string | undefined;
    advice?: string | undefined;
    field?: string | undefined;
    upstreamStatus?: number | undefined;
    type?: string | undefined;
  }) {
    super(options.message);
    this.name = 'ApiRequestError';
    this.status = options.status;
    this.stage = options.stage;
    this.request = options.request;
    this.cfRay = options.cfRay;
    this.advice = options.advice;
    this.field = options.field;
    this.upstreamStatus = options.upstreamStatus;
    this.type = options.type;
  }

  /** True for answers the caller must change something to fix: retrying unchanged won't help. */
  get isClientError(): boolean {
    return this.status >= 400 && this.status < 500;
  }

  /**
   * True for a gateway failure the BFF already diagnosed (no connection, no first byte, an
   * answer too slow or too large): asking again at once gives the same answer, so it is shown
   * at once, with Try again, instead of being retried.
   */
  get isDiagnosedGatewayFailure(): boolean {
    return this.status >= 500 && diagnosedStages.has(this.stage);
  }
}

/** The stages of a gateway call the BFF names itself when it gets no usable answer. */
const diagnosedStages = new Set<ApiRequestStage>([
  'connect',
  'first_byte',
  'deadline',
  'too_large',
]);

/** The error for a failed answer: the contract's error body when it is one, else a plain one. */
export function apiErrorFromBody(status: number, body: unknown, label: string): ApiRequestError {
  const parsed = apiErrorSchema.safeParse(body);
  if (parsed.success) {
    const { error } = parsed.data;
    return new ApiRequestError({
      message: error.message,
      status,
      stage: error.stage,
      request: label,
      cfRay: error.cf_ray,
      advice: error.advice,
      field: error.field,
      upstreamStatus: error.upstream_status,
      type: error.type,
    });
  }
  return new ApiRequestError({
    message: `${label} failed with HTTP ${status} and a body the workbench does not understand.`,
    status,
    stage: 'response',
    request: label,
    advice: 'Look at the workbench server’s log for this request.',
  });
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return { unparsable: text.slice(0, 200) };
  }
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Sends one request to the BFF and returns its answer when it is a 2xx; anything else, or no
 * answer at all, becomes an `ApiRequestError`. Every method but GET sends a JSON body (the BFF
 * takes state changes only as same-origin JSON, DELETE included). For answers read as a stream.
 */
export async function apiSend(
  method: Method,
  path: string,
  init?: RequestInit,
  body?: unknown,
): Promise<Response> {
  const label = `${method} ${path.split('?')[0] ?? path}`;
  const headers = new Headers(init?.headers);
  if (!headers.has('Accept')) headers.set('Accept', 'application/json');
  // The BFF accepts only JSON posts: a form or text/plain post could come from another site.
  if (method !== 'GET') headers.set('Content-Type', 'application/json');

  let response: Response;
  try {
    response = await fetch(path, {
      ...init,
      method,
      headers,
      body: method === 'GET' ? undefined : JSON.stringify(body ?? {}),
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiRequestError({
      message: `The workbench server did not answer ${label}.`,
      status: 0,
      stage: 'network',
      request: label,
      advice: 'Check that `npm start` is still running, then try again.',
    });
  }
  if (!response.ok) throw apiErrorFromBody(response.status, await readBody(response), label);
  return response;
}

async function request<T>(
  method: Method,
  path: string,
  schema: z.ZodType<T>,
  init: RequestInit | undefined,
  body?: unknown,
): Promise<T> {
  const label = `${method} ${path.split('?')[0] ?? path}`;
  const response = await apiSend(method, path, init, body);
  const parsed = schema.safeParse(await readBody(response));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? ` (at ${issue.path.join('.') || 'the top level'}: ${issue.message})` : '';
    throw new ApiRequestError({
      message: `${label} answered a shape the workbench does not expect${where}.`,
      status: response.status,
      stage: 'response',
      request: label,
      advice: 'The workbench server and this page may be from different versions: reload the page.',
    });
  }
  return parsed.data;
}

/** `GET path`, parsed with `schema`. */
export function apiGet<T>(path: string, schema: z.ZodType<T>, init?: RequestInit): Promise<T> {
  return request('GET', path, schema, init);
}

/** `POST path` with a JSON body, parsed with `schema`. */
export function apiPost<T>(
  path: string,
  body: unknown,
  schema: z.ZodType<T>,
  init?: RequestInit,
): Promise<T> {
  return request('POST', path, schema, init, body);
}

/** `PATCH path` with a JSON body, parsed with `schema`. */
export function apiPatch<T>(path: string, body: unknown, schema: z.ZodType<T>): Promise<T> {
  return request('PATCH', path, schema, undefined, body);
}

/** `PUT path` with a JSON body, parsed with `schema`. */
export function apiPut<T>(path: string, body: unknown, schema: z.ZodType<T>): Promise<T> {
  return request('PUT', path, schema, undefined, body);
}

/** `DELETE path` (with a JSON body, `{}` by default), parsed with `schema`. */
export function apiDelete<T>(path: string, schema: z.ZodType<T>, body: unknown = {}): Promise<T> {
  return request('DELETE', path, schema, undefined, body);
}

/** Builds `path?name=value…`, leaving out empty values. */
export function withQuery(
  path: string,
  query: Record<string, string | number | undefined | null>,
): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}
