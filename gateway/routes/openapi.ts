/**
 * `GET /openapi.json`: the gateway's OpenAPI 3.1 document, public like the catalog. Built on the
 * first request from the families' descriptions and kept for the life of the process.
 */
import { z } from 'zod';
import { sendJson } from '../http/respond';
import { buildOpenApiDocument } from '../openapi/openapi-document';
import { addRoute, jsonContent, named, type RouteDoc, type RouteFamily } from './route-doc';

const documentSchema = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
});

const getOpenApiDocument: RouteDoc = {
  operationId: 'getOpenApiDocument',
  metricsRoute: 'openapi',
  method: 'GET',
  path: '/openapi.json',
  summary: 'This document',
  tag: 'Documentation',
  auth: 'none',
  responses: {
    200: jsonContent('The OpenAPI 3.1 document.', named('OpenApiDocument', documentSchema)),
  },
  errors: { form: 'gateway', statuses: [] },
};

/** The family for `families`, read when first asked (the list holds this family too). */
export function openApiRoutes(families: () => readonly RouteFamily[]): RouteFamily<never> {
  let text: string | undefined;
  return {
    routes: [getOpenApiDocument],
    add(router) {
      addRoute(router, getOpenApiDocument, ({ response }) => {
        text ??= JSON.stringify(
          buildOpenApiDocument(families().flatMap((family) => family.routes)),
        );
        sendJson(response, 200, text, { 'cache-control': 'public, max-age=300' });
      });
    },
  };
}
