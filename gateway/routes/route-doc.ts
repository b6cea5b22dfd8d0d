/**
 * What a route family says about each of its routes, next to the handler it registers: the one
 * description the router binds (by operation id) and the OpenAPI document is generated from
 * (openapi/openapi-document.ts). Bodies and answers are the zod schemas the code already uses.
 */
import type { z } from 'zod';
import type { AuthForm } from '../auth/authenticate';
import type { RouteName } from '../operability/labels';
import type { RouteHandler, Router } from '../http/router';
import type { GatewayParts } from './route-kit';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** A zod schema with the name it has among the document's components. */
export type NamedSchema = { name: string; schema: z.ZodType };

export const named = (name: string, schema: z.ZodType): NamedSchema => ({ name, schema });

/** The media types the gateway answers with; the text ones carry no JSON to describe. */
export type MediaType = 'application/json' | 'text/event-stream' | 'text/plain';

export type ResponseDoc = {
  description: string;
  content: Partial<Record<MediaType, NamedSchema | { text: string }>>;
};

/** Whose error shape a route writes (forms/openai/error-shape.ts and the forms' own). */
export type ErrorForm = 'gateway' | 'messages' | 'gemini';

export type RouteDoc = {
  operationId: string;
  /** The `route` label its requests are counted under in /metrics (operability/labels.ts). */
  metricsRoute: RouteName;
  method: HttpMethod;
  /** The path as OpenAPI writes it, `{name}` for each path parameter. */
  path: string;
  summary: string;
  description?: string;
  /** The family, as the document groups operations. */
  tag: string;
  /**
   * Who may call it: a form's key (its headers and `?key=` as auth/authenticate.ts reads them),
   * the operator token, or anyone.
   */
  auth: AuthForm | 'operator' | 'none';
  /** Each path parameter with an example (the OpenAPI test calls the route with it). */
  pathParams?: z.ZodObject;
  query?: z.ZodObject;
  headers?: z.ZodObject;
  body?: NamedSchema;
  /** The answers that are not errors, by status. */
  responses: Record<number, ResponseDoc>;
  /** The error statuses it answers, each in its form's error shape. */
  errors: { form: ErrorForm; statuses: readonly number[] };
};

/**
 * A route family: its documented routes, and how it adds their handlers to the router. `Uses`
 * names the gateway's parts it reads (`RouteFamily<'store' | 'registry'>`), so a reader sees what
 * its routes can touch; route-parts.test.ts holds each name to a use.
 */
export type RouteFamily<Uses extends keyof GatewayParts = keyof GatewayParts> = {
  readonly routes: readonly RouteDoc[];
  add(router: Router, parts: Pick<GatewayParts, Uses>): void;
};

/** A JSON answer. */
export const jsonContent = (description: string, schema: NamedSchema): ResponseDoc => ({
  description,
  content: { 'application/json': schema },
});

/**
 * Adds `handler` for `doc`: at its path as written, or at `pattern` where the path has parameters
 * (the router matches those with a regular expression the family owns).
 */
export function addRoute(
  router: Router,
  doc: RouteDoc,
  handler: RouteHandler,
  pattern?: RegExp,
): void {
  if (!pattern && doc.path.includes('{'))
    throw new Error(`${doc.operationId}: a path with parameters needs its pattern`);
  router.add(doc.method, pattern ?? doc.path, handler, [doc.operationId]);
}
