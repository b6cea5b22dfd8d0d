/**
 * The model catalog (`GET /v1/models`), read leniently and cached briefly. A catalog's fields may
 * change from one gateway version to the next: each field is read on its own, a bad field
 * falls back to a default, unknown fields stay in `raw`, and only an entry without an id is
 * skipped.
 */
import { Router } from 'express';
import { z } from 'zod';
import { modelListSchema } from '../../contract/gateway';
import type { Catalog, CatalogModel } from '../../contract/workbench-api';
import { ApiFailure, gatewayErrorFailure, gatewayShapeFailure, parseInput } from '../core/errors';
import { parseJsonOrNull, type GatewayClient } from '../core/gateway-client';

function stringOr<T>(value: unknown, fallback: T): string | T {
  return typeof value === 'string' ? value : fallback;
}

function numberOr<T>(value: unknown, fallback: T): number | T {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function strings(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string')
    : [];
}

/** Prices come as decimal strings; a number is accepted and written as a string. */
function price(value: unknown): string | null {
  if (typeof value === 'string' && value.trim() !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** One raw entry → a catalog model, or null when it has no usable id. */
export function normalizeModelEntry(entry: unknown): CatalogModel | null {
  const raw = record(entry);
  const id = raw.id;
  if (typeof id !== 'string' || id.trim() === '') return null;
  const slash = id.indexOf('/');
  const author = slash > 0 ? id.slice(0, slash) : '';
  const modelPart = slash > 0 ? id.slice(slash + 1) : id;
  const colon = modelPart.lastIndexOf(':');
  const variant = colon > 0 ? modelPart.slice(colon + 1) : null;
  const pricing = record(raw.pricing);
  const architecture = record(raw.architecture);
  const contextLength = numberOr(raw.context_length, null);
  return {
    id,
    name: stringOr(raw.name, modelPart),
    author,
    variant,
    description: stringOr(raw.description, ''),
    created: numberOr(raw.created, null),
    context_length: contextLength,
    max_completion_tokens: numberOr(record(raw.top_provider).max_completion_tokens, null),
    prompt_price: price(pricing.prompt),
    completion_price: price(pricing.completion),
    input_modalities: strings(architecture.input_modalities),
    output_modalities: strings(architecture.output_modalities),
    supported_parameters: strings(raw.supported_parameters),
    providers: strings(raw.providers),
    raw,
  };
}

/** USD per token as a number, or null when the catalog gave none or garbage. */
export function pricePerToken(value: string | null): number | null {
  if (value === null) return null;
  const parsed = Number(value);
  return Number.isFinite(parsed) && parsed >= 0 ? parsed : null;
}

export interface CatalogService {
  get(options?: { refresh?: boolean }): Promise<Catalog>;
  /** A model by id, or a 400 naming `field` when the catalog has no such model. */
  find(id: string, field: string): Promise<CatalogModel>;
  /**
   * The cheapest model (a `:free` one when there is one) whose output is `output`: text (the
   * default, for checks and probes) or `embeddings`.
   */
  cheapest(output?: 'text' | 'embeddings'): Promise<CatalogModel | null>;
  /**
   * Drops the cached catalog: the gateway failed a health check, so the next reader asks it
   * again and reports the failure instead of a catalog shown as if nothing were wrong.
   */
  forget(): void;
}

export function createCatalogService(gateway: GatewayClient, ttlMs: number): CatalogService {
  let cached: { catalog: Catalog; until: number } | null = null;
  // Concurrent page loads share one gateway call.
  let pending: Promise<Catalog> | null = null;

  /** A call that gets no usable answer throws GatewayCallError; the error handler reports it. */
  async function fetchCatalog(): Promise<Catalog> {
    const response = await gateway.request({ method: 'GET', path: '/v1/models' });
    const text = await gateway.readText(response);
    const json = parseJsonOrNull(text);
    if (response.status < 200 || response.status >= 300) {
      throw gatewayErrorFailure(response.status, json ? json.value : text, response.cfRay, []);
    }
    const list = json ? modelListSchema.safeParse(json.value) : null;
    if (!list?.success) {
      throw gatewayShapeFailure(
        'The gateway catalog is not a model list (expected a JSON object with a data array).',
        response.status,
        response.cfRay,
      );
    }
    const models: CatalogModel[] = [];
    let skipped = 0;
    for (const entry of list.data.data) {
      const model = normalizeModelEntry(entry);
      if (model) models.push(model);
      else skipped += 1;
    }
    return { models, fetched_at: Date.now(), skipped };
  }

  async function get(options: { refresh?: boolean } = {}): Promise<Catalog> {
    if (!options.refresh && cached && cached.until > Date.now()) return cached.catalog;
    if (!pending) {
      pending = fetchCatalog()
        .then(
          (catalog) => {
            cached = { catalog, until: Date.now() + ttlMs };
            return catalog;
          },
          (error: unknown) => {
            // A gateway that cannot give the catalog now is not served from the cache to the
            // next reader either: the page then says the gateway fails instead of looking fine.
            cached = null;
            throw error;
          },
        )
        .finally(() => {
          pending = null;
        });
    }
    return pending;
  }

  async function find(id: string, field: string): Promise<CatalogModel> {
    const catalog = await get();
    const model = catalog.models.find((candidate) => candidate.id === id);
    if (!model) {
      throw new ApiFailure(400, {
        message: `${field}: the catalog has no model "${id.slice(0, 120)}"`,
        stage: 'validation',
        field,
      });
    }
    return model;
  }

  async function cheapest(output: 'text' | 'embeddings' = 'text'): Promise<CatalogModel | null> {
    const catalog = await get();
    const candidates = catalog.models.filter(
      (model) =>
        (output === 'text'
          ? model.output_modalities.length === 0 || model.output_modalities.includes('text')
          : model.output_modalities.includes(output)) && !model.id.endsWith(':batch'),
    );
    const cost = (model: CatalogModel) =>
      (pricePerToken(model.prompt_price) ?? Number.POSITIVE_INFINITY) +
      (pricePerToken(model.completion_price) ?? Number.POSITIVE_INFINITY);
    const sorted = [...candidates].sort(
      (left, right) =>
        Number(right.variant === 'free') - Number(left.variant === 'free') ||
        cost(left) - cost(right),
    );
    return sorted[0] ?? null;
  }

  function forget() {
    cached = null;
  }

  return { get, find, cheapest, forget };
}

const catalogQuerySchema = z.object({ refresh: z.enum(['0', '1']).optional() });

export function createCatalogRouter(catalog: CatalogService): Router {
  const router = Router();
  router.get('/catalog', async (request, response) => {
    const query = parseInput(catalogQuerySchema, request.query, 'query');
    response.json(await catalog.get({ refresh: query.refresh === '1' }));
  });
  return router;
}
