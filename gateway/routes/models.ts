/** `GET /v1/models`: the public catalog. No key needed; a sent key is ignored, not checked. */
import { z } from 'zod';
import { modelEntrySchema } from '../../contract/gateway';
import { sendJson } from '../http/respond';
import { addRoute, jsonContent, named, type RouteDoc, type RouteFamily } from './route-doc';

/** The catalog as `Catalog.listBody` holds it. */
const modelListBodySchema = z.looseObject({
  object: z.literal('list'),
  data: z.array(modelEntrySchema),
});

const listModels: RouteDoc = {
  operationId: 'listModels',
  metricsRoute: 'models',
  method: 'GET',
  path: '/v1/models',
  summary: 'The model catalog',
  description: 'Every catalog model with its prices, limits, modalities and providers.',
  tag: 'Catalog',
  auth: 'none',
  responses: { 200: jsonContent('The catalog.', named('ModelList', modelListBodySchema)) },
  errors: { form: 'gateway', statuses: [] },
};

export const modelRoutes: RouteFamily = {
  routes: [listModels],
  add(router, parts) {
    addRoute(router, listModels, ({ response }) => {
      sendJson(response, 200, parts.catalog.listBody, { 'cache-control': 'public, max-age=60' });
    });
  },
};
