/**
 * The Activity page's two reads, with the chosen profile's key:
 * - `GET /api/generations?profile=&model=&session_id=&outcome=&from=&to=&key_id=&limit=&cursor=`: a page of
 *   the key's requests, newest first (the gateway's `GET /v1/generations`); with `id=<cf-ray>`, the
 *   one request of that trace id, or none (the gateway's `GET /v1/generation`);
 * - `GET /api/activity?profile=&days=&key_id=`: requests, tokens and cost per UTC day and model
 *   (the gateway's `GET /v1/activity`);
 * - `GET /api/activity/sessions?profile=&days=&key_id=`: the agent sessions of the range (the
 *   gateway's `GET /v1/activity/sessions`);
 * - `GET /api/activity/batches?profile=`: the key's latest batches with their progress and cost
 *   (the gateway's `GET /v1/batches`).
 * Queries are checked before anything reaches the gateway; only the fields the page shows are
 * passed on, and a child's key only masked (masked again here, in case a gateway did not).
 */
import { Router, type Response } from 'express';
import type { z } from 'zod';
import {
  activitySchema,
  generationListSchema,
  generationRecordSchema,
  sessionActivitySchema,
  type GenerationRecord,
} from '../../contract/gateway';
import {
  activityQuerySchema,
  generationsQuerySchema,
  type ActivityRequest,
  type ActivityView,
  type AgentSessionsView,
  type BatchesView,
  type GenerationsPage,
} from '../../contract/workbench-api';
import { usageOf } from '../../contract/generation-record';
import { openAiBatchListSchema } from '../../contract/batches';
import { batchViewOf } from '../batches/batches';
import { abortOnClientClose } from '../core/client-close';
import type { WorkbenchContext } from '../core/context';
import { parseInput, readGatewayAnswer } from '../core/errors';
import { redactSecretText } from '../core/secrets';

/** A page size the table can fill a screen with, without reading a whole history at once. */
const defaultPageSize = 50;

/** A generation record as one row of the Activity page. */
export function activityRequestOf(
  record: GenerationRecord,
  knownKeys: Iterable<string>,
): ActivityRequest {
  const keys = [...knownKeys];
  return {
    id: record.id,
    created_at: record.created_at,
    model: record.model,
    provider: record.provider,
    form: record.form,
    streamed: record.streamed,
    prompt_tokens: record.prompt_tokens,
    completion_tokens: record.completion_tokens,
    cost_usd: record.cost_usd,
    latency_ms: record.latency_ms,
    outcome: record.outcome,
    finish_reason: record.finish_reason,
    settlement: record.settlement,
    usage_estimated: record.usage_estimated ?? false,
    charge_capped: record.charge_capped ?? false,
    attempts: (record.attempts ?? []).map((attempt) => ({
      provider: attempt.provider,
      status: attempt.status,
      latency_ms: attempt.latency_ms,
      ...(attempt.model !== undefined && { model: attempt.model }),
    })),
    upstream_model: record.upstream_model ?? null,
    requested_model: record.requested_model ?? null,
    ...usageOf(record),
    settled_at: record.settled_at,
    translation: record.translation ?? null,
    session_id: record.session_id ?? null,
    batch_id: record.batch_id ?? null,
    child: record.child
      ? {
          id: record.child.id,
          name: redactSecretText(record.child.name, keys),
          masked_key: redactSecretText(record.child.key, keys),
        }
      : null,
  };
}

/** One GET to the gateway with the profile's key, parsed with `schema` or failed as the BFF's error. */
async function readGateway<Schema extends z.ZodType>(
  context: WorkbenchContext,
  response: Response,
  profile: string,
  path: string,
  schema: Schema,
  shapeMessage: string,
): Promise<z.output<Schema>> {
  const key = context.profiles.keyOf(profile);
  const answer = await context.gateway.collect({
    method: 'GET',
    path,
    key,
    signal: abortOnClientClose(response),
  });
  response.locals.cfRay = answer.cfRay;
  const parsed = readGatewayAnswer(answer, schema, shapeMessage, context.profiles.allKeys());
  return parsed as z.output<Schema>;
}

/** `path?name=value…` with the values that are set. */
function gatewayPath(path: string, query: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}

/**
 * The page of one request found by its trace id, or an empty page: the gateway answers 404 alike
 * for a record not (yet) written and for another key's, and both mean "not among this key's".
 */
async function findByTraceId(
  context: WorkbenchContext,
  response: Response,
  profile: string,
  id: string,
): Promise<GenerationsPage> {
  const answer = await context.gateway.collect({
    method: 'GET',
    path: gatewayPath('/v1/generation', { id }),
    key: context.profiles.keyOf(profile),
    signal: abortOnClientClose(response),
  });
  response.locals.cfRay = answer.cfRay;
  const knownKeys = [...context.profiles.allKeys()];
  const data =
    answer.status === 404
      ? []
      : [
          activityRequestOf(
            readGatewayAnswer(
              answer,
              generationRecordSchema,
              'The gateway’s generation record does not have the expected shape (object "generation").',
              knownKeys,
            ),
            knownKeys,
          ),
        ];
  return { profile, data, next_cursor: null, fetched_at: Date.now() };
}

export function createActivityRouter(context: WorkbenchContext): Router {
  const router = Router();

  router.get('/generations', async (request, response) => {
    const query = parseInput(generationsQuerySchema, request.query, 'query');
    if (query.id !== undefined) {
      response.json(await findByTraceId(context, response, query.profile, query.id));
      return;
    }
    const list = await readGateway(
      context,
      response,
      query.profile,
      gatewayPath('/v1/generations', {
        model: query.model,
        session_id: query.session_id,
        outcome: query.outcome,
        from: query.from,
        to: query.to,
        key_id: query.key_id,
        limit: query.limit ?? defaultPageSize,
        cursor: query.cursor,
      }),
      generationListSchema,
      'The gateway’s list of generation records does not have the expected shape (object "list" of generations).',
    );
    const knownKeys = [...context.profiles.allKeys()];
    const page: GenerationsPage = {
      profile: query.profile,
      data: list.data.map((record) => activityRequestOf(record, knownKeys)),
      next_cursor: list.has_more ? list.next_cursor : null,
      fetched_at: Date.now(),
    };
    response.json(page);
  });

  router.get('/activity', async (request, response) => {
    const query = parseInput(activityQuerySchema, request.query, 'query');
    const activity = await readGateway(
      context,
      response,
      query.profile,
      gatewayPath('/v1/activity', { days: query.days ?? 30, key_id: query.key_id }),
      activitySchema,
      'The gateway’s activity answer does not have the expected shape (object "activity").',
    );
    const figures = (source: {
      requests: number;
      prompt_tokens: number;
      completion_tokens: number;
      cost_usd: number;
    }) => ({
      requests: source.requests,
      prompt_tokens: source.prompt_tokens,
      completion_tokens: source.completion_tokens,
      cost_usd: source.cost_usd,
    });
    const view: ActivityView = {
      profile: query.profile,
      days: activity.days,
      from: activity.from,
      to: activity.to,
      data: activity.data.map((day) => ({
        date: day.date,
        ...figures(day),
        models: day.models.map((entry) => ({ model: entry.model, ...figures(entry) })),
      })),
      totals: figures(activity.totals),
      fetched_at: Date.now(),
    };
    response.json(view);
  });

  router.get('/activity/batches', async (request, response) => {
    const query = parseInput(activityQuerySchema.pick({ profile: true }), request.query, 'query');
    const batches = await readGateway(
      context,
      response,
      query.profile,
      gatewayPath('/v1/batches', { limit: 20 }),
      openAiBatchListSchema,
      'The gateway’s batches answer does not have the expected shape (a list of batches).',
    );
    const view: BatchesView = {
      profile: query.profile,
      data: batches.data.map(batchViewOf),
      fetched_at: Date.now(),
    };
    response.json(view);
  });

  router.get('/activity/sessions', async (request, response) => {
    const query = parseInput(activityQuerySchema, request.query, 'query');
    const sessions = await readGateway(
      context,
      response,
      query.profile,
      gatewayPath('/v1/activity/sessions', { days: query.days ?? 30, key_id: query.key_id }),
      sessionActivitySchema,
      'The gateway’s sessions answer does not have the expected shape (a list of sessions).',
    );
    const view: AgentSessionsView = {
      profile: query.profile,
      // Only the fields the page shows, whatever else a gateway adds.
      data: sessions.data.map((session) => ({
        session_id: session.session_id,
        requests: session.requests,
        started_at: session.started_at,
        ended_at: session.ended_at,
        duration_seconds: session.duration_seconds,
        prompt_tokens: session.prompt_tokens,
        completion_tokens: session.completion_tokens,
        cache_read_tokens: session.cache_read_tokens,
        cache_hits: session.cache_hits,
        cost_usd: session.cost_usd,
      })),
      fetched_at: Date.now(),
    };
    response.json(view);
  });

  return router;
}
