/**
 * The workbench's batches (docs/workbench.md, "Batches"), each a call to the gateway's OpenAI
 * batch API with the chosen profile's key:
 * - `POST /api/batches` `{profile, endpoint, file_name, content}`: the file uploaded to
 *   `POST /v1/files` (multipart, `purpose=batch`), then a batch of it created (`POST /v1/batches`);
 * - `GET /api/batches/:id?profile=`: its progress (`GET /v1/batches/{id}`);
 * - `POST /api/batches/:id/cancel` `{profile}`: `POST /v1/batches/{id}/cancel`;
 * - `GET /api/batches/:id/results?profile=&file=output|error`: its output or error file, streamed
 *   as a JSONL download (`GET /v1/files/{id}/content`), keys masked line by line.
 */
import { Router, type Response } from 'express';
import { z } from 'zod';
import { writeWithBackpressure } from '../../contract/write-with-backpressure';
import { openAiBatchSchema, openAiFileSchema, type OpenAiBatch } from '../../contract/batches';
import {
  batchProfileSchema,
  batchCreateRequestSchema,
  batchIdSchema,
  batchResultsQuerySchema,
  type BatchDetailView,
  type BatchView,
} from '../../contract/workbench-api';
import { abortOnClientClose } from '../core/client-close';
import type { WorkbenchContext } from '../core/context';
import { ApiFailure, gatewayErrorFailure, parseInput, readGatewayAnswer } from '../core/errors';
import { CallerGoneError, GatewayCallError, parseJsonOrNull } from '../core/gateway-client';
import { maskKnownKeys, redactSecretText } from '../core/secrets';

/** A browser that takes nothing of a download for this long is dropped (as the chat stream does). */
const BROWSER_SEND_TIMEOUT_MS = 60_000;

const batchParamsSchema = z.object({ id: batchIdSchema });

const batchShapeProblem = 'The gateway’s batch answer does not have the expected shape (a batch).';

/** Only the fields the workbench shows, whatever else a gateway adds. */
export function batchViewOf(batch: OpenAiBatch): BatchView {
  return {
    id: batch.id,
    endpoint: batch.endpoint,
    status: batch.status,
    total: batch.request_counts.total,
    completed: batch.request_counts.completed,
    failed: batch.request_counts.failed,
    cost_usd: batch.cost_usd,
    created_at: batch.created_at,
  };
}

function detailOf(profile: string, batch: OpenAiBatch): BatchDetailView {
  return {
    profile,
    batch: {
      ...batchViewOf(batch),
      output_file_id: batch.output_file_id,
      error_file_id: batch.error_file_id,
    },
    fetched_at: Date.now(),
  };
}

/** The file as the gateway's `POST /v1/files` takes it: multipart/form-data, `purpose=batch`. */
async function multipartUpload(
  fileName: string,
  content: string,
): Promise<{ contentType: string; text: string }> {
  const form = new FormData();
  form.set('purpose', 'batch');
  form.set('file', new Blob([content], { type: 'application/jsonl' }), fileName);
  // The encoding of a form is the platform's (boundary included); the parts are all UTF-8 text.
  const encoded = new Response(form);
  return {
    contentType: encoded.headers.get('content-type') ?? 'multipart/form-data',
    text: await encoded.text(),
  };
}

export function createBatchesRouter(context: WorkbenchContext): Router {
  const router = Router();
  const { gateway, profiles } = context;

  /** One call to the gateway's batch API, its answer read as `schema`. */
  async function call<T>(
    response: Response,
    request: Parameters<typeof gateway.collect>[0],
    schema: z.ZodType<T>,
    shapeProblem: string,
  ): Promise<T> {
    const answer = await gateway.collect({ ...request, signal: abortOnClientClose(response) });
    response.locals.cfRay = answer.cfRay;
    return readGatewayAnswer(answer, schema, shapeProblem, profiles.allKeys());
  }

  const batchId = (params: unknown) => parseInput(batchParamsSchema, params, 'query').id;

  router.post('/batches', async (request, response) => {
    const input = parseInput(batchCreateRequestSchema, request.body, 'body');
    const key = profiles.keyOf(input.profile);
    const file = await call(
      response,
      {
        method: 'POST',
        path: '/v1/files',
        key,
        rawBody: await multipartUpload(input.file_name, input.content),
      },
      openAiFileSchema,
      'The gateway’s upload answer does not have the expected shape (a file).',
    );
    let batch: OpenAiBatch;
    try {
      batch = await call(
        response,
        {
          method: 'POST',
          path: '/v1/batches',
          key,
          json: { input_file_id: file.id, endpoint: input.endpoint, completion_window: '24h' },
        },
        openAiBatchSchema,
        batchShapeProblem,
      );
    } catch (error) {
      // A file the gateway refused to batch is only clutter on the key: removed, the refusal
      // told. After any other failure the batch may exist, and it keeps its file.
      if (error instanceof ApiFailure && error.status >= 400 && error.status < 500) {
        await gateway
          .collect({ method: 'DELETE', path: `/v1/files/${encodeURIComponent(file.id)}`, key })
          .catch(() => undefined);
      }
      throw error;
    }
    response.status(201).json(detailOf(input.profile, batch));
  });

  router.get('/batches/:id', async (request, response) => {
    const id = batchId(request.params);
    const { profile } = parseInput(batchProfileSchema, request.query, 'query');
    const batch = await call(
      response,
      { method: 'GET', path: `/v1/batches/${id}`, key: profiles.keyOf(profile) },
      openAiBatchSchema,
      batchShapeProblem,
    );
    response.json(detailOf(profile, batch));
  });

  router.post('/batches/:id/cancel', async (request, response) => {
    const id = batchId(request.params);
    const { profile } = parseInput(batchProfileSchema, request.body, 'body');
    const batch = await call(
      response,
      { method: 'POST', path: `/v1/batches/${id}/cancel`, key: profiles.keyOf(profile) },
      openAiBatchSchema,
      batchShapeProblem,
    );
    response.json(detailOf(profile, batch));
  });

  router.get('/batches/:id/results', async (request, response) => {
    const id = batchId(request.params);
    const query = parseInput(batchResultsQuerySchema, request.query, 'query');
    const key = profiles.keyOf(query.profile);
    const batch = await call(
      response,
      { method: 'GET', path: `/v1/batches/${id}`, key },
      openAiBatchSchema,
      batchShapeProblem,
    );
    const fileId = query.file === 'output' ? batch.output_file_id : batch.error_file_id;
    if (fileId === null) {
      throw new ApiFailure(404, {
        message: `Batch ${id} has no ${query.file} file${batch.status === 'in_progress' || batch.status === 'cancelling' ? ' yet: it is still running' : ': no line ended that way'}.`,
        stage: 'validation',
        field: 'file',
      });
    }
    const signal = abortOnClientClose(response);
    const upstream = await gateway.request({
      method: 'GET',
      path: `/v1/files/${encodeURIComponent(fileId)}/content`,
      key,
      signal,
      // A results file may be large: only the silences between its pieces are bounded.
      deadlineMs: null,
    });
    response.locals.cfRay = upstream.cfRay;
    try {
      if (upstream.status !== 200) {
        const text = await gateway.readText(upstream, signal);
        const json = parseJsonOrNull(text);
        throw gatewayErrorFailure(
          upstream.status,
          json ? json.value : text,
          upstream.cfRay,
          profiles.allKeys(),
        );
      }
      const keys = [...profiles.allKeys()];
      // Answers pass as the model wrote them (only this workbench's keys masked); error bodies
      // are the gateway's, where anything key-like is masked as in every error passed on.
      const mask =
        query.file === 'output'
          ? (text: string) => maskKnownKeys(text, keys)
          : (text: string) => redactSecretText(text, keys);
      await streamJsonl(response, upstream, `${id}-${query.file}.jsonl`, mask, signal);
    } finally {
      upstream.abort();
    }
  });

  /** Passes the file on in whole lines, each masked with `mask`. */
  async function streamJsonl(
    response: Response,
    upstream: Awaited<ReturnType<typeof gateway.request>>,
    fileName: string,
    mask: (text: string) => string,
    signal: AbortSignal,
  ): Promise<void> {
    response.status(200);
    response.setHeader('Content-Type', 'application/jsonl; charset=utf-8');
    response.setHeader('Content-Disposition', `attachment; filename="${fileName}"`);
    const decoder = new TextDecoder();
    let unfinishedLine = '';
    try {
      for await (const chunk of gateway.chunks(upstream, signal)) {
        unfinishedLine += decoder.decode(chunk, { stream: true });
        const lastNewline = unfinishedLine.lastIndexOf('\n');
        if (lastNewline === -1) continue;
        const lines = unfinishedLine.slice(0, lastNewline + 1);
        unfinishedLine = unfinishedLine.slice(lastNewline + 1);
        if (!(await writeWithBackpressure(response, mask(lines), BROWSER_SEND_TIMEOUT_MS))) {
          return;
        }
      }
      unfinishedLine += decoder.decode();
      response.end(mask(unfinishedLine));
    } catch (error) {
      if (error instanceof CallerGoneError || signal.aborted) return;
      if (!(error instanceof GatewayCallError)) throw error;
      // The status is sent: a cut file must not look whole, so the download fails instead.
      response.destroy();
    }
  }

  return router;
}
