/**
 * `/admin/v1/presets`: the operator lists, adds or replaces, and deletes presets
 * (`@preset/<slug>`, docs/routing.md) beside those of the providers file. A preset is checked
 * to name catalog models or aliases before it is kept. Only with `GATEWAY_ADMIN_TOKEN` set, like
 * the other operator routes. Presets added here are kept in the store (catalog/stored-presets.ts);
 * those of the providers file win and are refused here with a 409.
 */
import { z } from 'zod';
import { PRESET_PREFIX, presetListSchema, presetSchema } from '../../contract/routing';
import { notFound } from '../errors';
import { chatErrorBody } from '../forms/openai/error-shape';
import { sendJson } from '../http/respond';
import { digestOf, requireOperator } from './admin-keys';
import { readKeyBody } from './key-management';
import { addRoute, jsonContent, named, type RouteDoc, type RouteFamily } from './route-doc';
import { parseOrRefuse, withErrors } from './route-kit';

const PREFIX = '/admin/v1/presets';
const NO_STORE = { 'cache-control': 'no-store' };
const presetAnswer = named('Preset', presetSchema);
const slugParams = z.object({
  slug: z.string().meta({ description: 'The preset id after `@preset/`.', examples: ['reviewer'] }),
});

const listPresets: RouteDoc = {
  operationId: 'adminListPresets',
  metricsRoute: 'admin_presets',
  method: 'GET',
  path: PREFIX,
  summary: 'List presets',
  description: 'Every preset, from the providers file and from this API.',
  tag: 'Operator',
  auth: 'operator',
  responses: { 200: jsonContent('The presets.', named('PresetList', presetListSchema)) },
  errors: { form: 'gateway', statuses: [401, 404] },
};

const putPreset: RouteDoc = {
  operationId: 'adminPutPreset',
  metricsRoute: 'admin_presets',
  method: 'POST',
  path: PREFIX,
  summary: 'Add or replace a preset',
  description:
    'Its model and fallbacks must be catalog models or aliases. Kept in the store: it outlives a restart and every instance serves it. 201 when new, 200 when it replaced one of the same id; 409 when the providers file defines that id.',
  tag: 'Operator',
  auth: 'operator',
  body: named('PresetRequest', presetSchema),
  responses: {
    200: jsonContent('The preset, replaced.', presetAnswer),
    201: jsonContent('The preset, added.', presetAnswer),
  },
  errors: { form: 'gateway', statuses: [400, 401, 404, 409, 413, 415] },
};

const deletePreset: RouteDoc = {
  operationId: 'adminDeletePreset',
  metricsRoute: 'admin_presets',
  method: 'DELETE',
  path: `${PREFIX}/{slug}`,
  summary: 'Delete a preset',
  description: 'A preset added through this API; one of the providers file is refused with 409.',
  tag: 'Operator',
  auth: 'operator',
  pathParams: slugParams,
  responses: {
    200: jsonContent(
      'It is gone.',
      named('DeletedPreset', z.object({ id: z.string(), deleted: z.literal(true) })),
    ),
  },
  errors: { form: 'gateway', statuses: [401, 404, 409] },
};

export const adminPresetRoutes: RouteFamily<'config' | 'names' | 'presets'> = {
  routes: [listPresets, putPreset, deletePreset],
  add(router, parts) {
    const token = parts.config.adminToken;
    if (token === undefined) return;
    const expected = digestOf(token);

    addRoute(
      router,
      listPresets,
      withErrors(chatErrorBody, ({ request, response }) => {
        requireOperator(request, expected);
        sendJson(response, 200, { object: 'list', data: parts.names.presetList() }, NO_STORE);
      }),
    );
    addRoute(
      router,
      putPreset,
      withErrors(chatErrorBody, async ({ request, response }) => {
        requireOperator(request, expected);
        const preset = parseOrRefuse(presetSchema, await readKeyBody(request));
        const created = await parts.presets.put(preset);
        sendJson(response, created ? 201 : 200, preset, NO_STORE);
      }),
    );
    addRoute(
      router,
      deletePreset,
      withErrors(chatErrorBody, async ({ request, response, params }) => {
        requireOperator(request, expected);
        const id = `${PRESET_PREFIX}${params.slug ?? ''}`;
        if (!(await parts.presets.delete(id))) throw notFound(`No preset '${id.slice(0, 200)}'.`);
        sendJson(response, 200, { id, deleted: true }, NO_STORE);
      }),
      new RegExp(`^${PREFIX.replace(/\//g, '\\/')}\\/(?<slug>[^/]+)$`),
    );
  },
};
