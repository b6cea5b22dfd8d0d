/**
 * OpenAI's Files and Batch APIs, for batches (docs/batches.md): `POST /v1/files` (purpose `batch`,
 * a JSONL file as multipart/form-data, as the `openai` client sends it), `GET`/`DELETE
 * /v1/files/{id}`, `GET /v1/files/{id}/content`; `POST /v1/batches`, `GET /v1/batches(/{id})`,
 * `POST /v1/batches/{id}/cancel`. A file or batch is seen only by the key that made it; to any
 * other it does not exist (404). The lines run in the background (batches/batch-runner.ts).
 */
import crypto from 'node:crypto';
import { z } from 'zod';
import {
  batchLimits,
  deletedFileSchema,
  openAiBatchListSchema,
  openAiBatchSchema,
  openAiFileSchema,
} from '../../contract/batches';
import { authenticate } from '../auth/authenticate';
import {
  COMPLETION_WINDOW_SECONDS,
  openAiBatchObject,
  openAiResultLine,
} from '../batches/batch-objects';
import { OPENAI_BATCH_ENDPOINTS, lineFormOf } from '../batches/batch-endpoints';
import { checkJsonl, toLineRows } from '../batches/batch-input';
import { GatewayError, invalidRequest, notFound } from '../errors';
import { chatErrorBody } from '../forms/openai/error-shape';
import { readJsonBody } from '../http/read-body';
import { sendJson } from '../http/respond';
import type { RouteContext } from '../http/router';
import type { BatchFileRow, BatchRow } from '../store/batches';
import type { KeyRow } from '../store/store';
import { keyPath } from './key-management';
import { addRoute, jsonContent, named, type RouteDoc, type RouteFamily } from './route-doc';
import {
  parseOrRefuse,
  queryOf,
  refuseUnusableKey,
  withErrors,
  type GatewayParts,
} from './route-kit';

const fileIdParams = z.object({
  id: z.string().meta({ examples: ['file-0123456789abcdef01234567'] }),
});
const batchIdParams = z.object({
  id: z.string().meta({ examples: ['batch_0123456789abcdef01234567'] }),
});

const createBatchSchema = z.strictObject({
  input_file_id: z.string().min(1),
  endpoint: z.enum(OPENAI_BATCH_ENDPOINTS),
  completion_window: z.literal('24h'),
  metadata: z.record(z.string().max(64), z.string().max(512)).nullable().optional(),
});

const listQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  after: z.string().min(1).max(200).optional(),
});

const errors = (...statuses: number[]) => ({ form: 'gateway' as const, statuses });
const fileObject = named('File', openAiFileSchema);
const batchObject = named('Batch', openAiBatchSchema);

const docs = {
  uploadFile: {
    operationId: 'uploadFile',
    metricsRoute: 'files',
    method: 'POST',
    path: '/v1/files',
    summary: 'Upload a batch input file',
    description: `multipart/form-data with \`purpose=batch\` and a JSONL \`file\` (at most ${batchLimits.fileBytes} bytes; each line \`{custom_id, method: "POST", url, body}\`).`,
    tag: 'Batches',
    auth: 'chat_completions',
    responses: { 200: jsonContent('The file.', fileObject) },
    errors: errors(400, 401, 413, 415),
  },
  getFile: {
    operationId: 'getFile',
    metricsRoute: 'files',
    method: 'GET',
    path: '/v1/files/{id}',
    summary: 'A file',
    tag: 'Batches',
    auth: 'chat_completions',
    pathParams: fileIdParams,
    responses: { 200: jsonContent('The file.', fileObject) },
    errors: errors(401, 404),
  },
  getFileContent: {
    operationId: 'getFileContent',
    metricsRoute: 'files',
    method: 'GET',
    path: '/v1/files/{id}/content',
    summary: "A file's content",
    description:
      'An input file as uploaded; a batch output or error file as JSONL, one result a line.',
    tag: 'Batches',
    auth: 'chat_completions',
    pathParams: fileIdParams,
    responses: { 200: { description: 'JSONL.', content: { 'text/plain': { text: 'JSONL.' } } } },
    errors: errors(401, 404),
  },
  deleteFile: {
    operationId: 'deleteFile',
    metricsRoute: 'files',
    method: 'DELETE',
    path: '/v1/files/{id}',
    summary: 'Delete a file',
    tag: 'Batches',
    auth: 'chat_completions',
    pathParams: fileIdParams,
    responses: { 200: jsonContent('Deleted.', named('DeletedFile', deletedFileSchema)) },
    errors: errors(401, 404),
  },
  createBatch: {
    operationId: 'createBatch',
    metricsRoute: 'batches',
    method: 'POST',
    path: '/v1/batches',
    summary: 'Create a batch',
    description:
      'Runs every line of an uploaded file in the background, each charged as a request of its own.',
    tag: 'Batches',
    auth: 'chat_completions',
    body: named('BatchCreate', createBatchSchema),
    responses: { 200: jsonContent('The batch, in progress.', batchObject) },
    errors: errors(400, 401, 402, 404),
  },
  getBatch: {
    operationId: 'getBatch',
    metricsRoute: 'batches',
    method: 'GET',
    path: '/v1/batches/{id}',
    summary: 'A batch',
    tag: 'Batches',
    auth: 'chat_completions',
    pathParams: batchIdParams,
    responses: { 200: jsonContent('The batch.', batchObject) },
    errors: errors(401, 404),
  },
  listBatches: {
    operationId: 'listBatches',
    metricsRoute: 'batches',
    method: 'GET',
    path: '/v1/batches',
    summary: "The key's batches",
    tag: 'Batches',
    auth: 'chat_completions',
    query: listQuerySchema,
    responses: { 200: jsonContent('Newest first.', named('BatchList', openAiBatchListSchema)) },
    errors: errors(400, 401),
  },
  cancelBatch: {
    operationId: 'cancelBatch',
    metricsRoute: 'batches',
    method: 'POST',
    path: '/v1/batches/{id}/cancel',
    summary: 'Cancel a batch',
    description: 'Lines not yet started never run; lines running end and are charged.',
    tag: 'Batches',
    auth: 'chat_completions',
    pathParams: batchIdParams,
    responses: { 200: jsonContent('The batch, cancelling or ended.', batchObject) },
    errors: errors(401, 404),
  },
} satisfies Record<string, RouteDoc>;

const newId = (prefix: string) => `${prefix}${crypto.randomBytes(12).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);

/** Reads a multipart/form-data body whole, within the file limit. */
async function readForm(context: RouteContext): Promise<FormData> {
  const type = context.request.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*;/i.test(type)) {
    throw new GatewayError({
      status: 415,
      type: 'unsupported_media_type',
      stage: 'validation',
      message: `Upload the file as multipart/form-data (a 'purpose' field and a 'file'); this request sent ${type ? `'Content-Type: ${type.slice(0, 100)}'` : 'no Content-Type'}.`,
    });
  }
  // The form's own fields add a little to the file: a kilobyte or so each.
  const maxBytes = batchLimits.fileBytes + 64 * 1024;
  const tooLarge = new GatewayError({
    status: 413,
    type: 'request_too_large',
    stage: 'validation',
    message: `The file is larger than the limit of ${batchLimits.fileBytes} bytes; split it into several batches.`,
  });
  if (Number(context.request.headers['content-length']) > maxBytes) throw tooLarge;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of context.request.iterator({ destroyOnReturn: false })) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      context.request.resume();
      throw tooLarge;
    }
    chunks.push(chunk as Buffer);
  }
  try {
    return await new Request('http://gateway.invalid/', {
      method: 'POST',
      headers: { 'content-type': type },
      body: Buffer.concat(chunks, size),
    }).formData();
  } catch {
    throw invalidRequest(
      'The multipart/form-data body could not be read; send a purpose and a file.',
    );
  }
}

function fileWire(file: BatchFileRow, bytes = file.bytes) {
  return {
    id: file.id,
    object: 'file' as const,
    bytes,
    created_at: file.createdAt,
    filename: file.filename,
    purpose: file.purpose === 'batch' ? ('batch' as const) : ('batch_output' as const),
    status: 'processed' as const,
    expires_at: null,
    status_details: null,
  };
}

/** A file the key made, or 404. */
async function ownFile(
  parts: Pick<GatewayParts, 'store'>,
  key: KeyRow,
  id: string,
): Promise<BatchFileRow> {
  const file = await parts.store.batches.getFile(id);
  if (!file || file.keyId !== key.id) throw notFound(`No file '${id}' for this key.`);
  return file;
}

/** A batch of this shape the key made, or 404. */
export async function ownBatch(
  parts: Pick<GatewayParts, 'store'>,
  key: KeyRow,
  id: string,
  shape: BatchRow['shape'],
): Promise<BatchRow> {
  const batch = await parts.store.batches.getBatch(id);
  if (!batch || batch.keyId !== key.id || batch.shape !== shape) {
    throw notFound(`No batch '${id}' for this key.`);
  }
  return batch;
}

/** Every finished line of a batch of the given states, as result lines, in order. */
export async function resultLines(
  parts: Pick<GatewayParts, 'store'>,
  batchId: string,
  states: Parameters<GatewayParts['store']['batches']['lines']>[1],
  write: (line: Awaited<ReturnType<GatewayParts['store']['batches']['lines']>>[number]) => string,
): Promise<string> {
  const out: string[] = [];
  for (let fromIndex = 0; ;) {
    const page = await parts.store.batches.lines(batchId, states, { fromIndex, limit: 1_000 });
    for (const line of page) out.push(write(line));
    if (page.length < 1_000) break;
    fromIndex = page.at(-1)!.index + 1;
  }
  return out.map((line) => `${line}\n`).join('');
}

async function fileContent(
  parts: Pick<GatewayParts, 'store'>,
  file: BatchFileRow,
): Promise<string> {
  if (file.content !== null) return file.content;
  const states =
    file.purpose === 'batch_output' ? (['succeeded'] as const) : (['errored'] as const);
  return resultLines(parts, file.batchId!, states, openAiResultLine);
}

/** Starts a batch of checked lines (and wakes this instance's runner). */
export async function startBatch(
  parts: Pick<GatewayParts, 'batchRunner' | 'store'>,
  batch: Omit<
    BatchRow,
    | 'status'
    | 'outputFileId'
    | 'errorFileId'
    | 'createdAt'
    | 'inProgressAt'
    | 'cancellingAt'
    | 'endedAt'
    | 'expiresAt'
    | 'eventSent'
  >,
  lines: Parameters<GatewayParts['store']['batches']['createBatch']>[1],
): Promise<BatchRow> {
  const created = now();
  const row: BatchRow = {
    ...batch,
    status: 'in_progress',
    outputFileId: null,
    errorFileId: null,
    createdAt: created,
    inProgressAt: created,
    cancellingAt: null,
    endedAt: null,
    expiresAt: created + COMPLETION_WINDOW_SECONDS,
    eventSent: false,
  };
  await parts.store.batches.createBatch(row, lines);
  parts.batchRunner?.wake();
  return row;
}

export const batchRoutes: RouteFamily<'batchRunner' | 'clock' | 'config' | 'registry' | 'store'> = {
  routes: Object.values(docs),
  add(router, parts) {
    const keyOf = async (context: RouteContext) =>
      authenticate(context.request, context.url, 'chat_completions', parts.registry);
    const handle = (handler: (context: RouteContext, key: KeyRow) => Promise<void>) =>
      withErrors(chatErrorBody, async (context) => handler(context, await keyOf(context)));
    const answerBatch = async (response: RouteContext['response'], batch: BatchRow) =>
      sendJson(response, 200, openAiBatchObject(batch, await parts.store.batches.counts(batch.id)));

    addRoute(
      router,
      docs.uploadFile,
      handle(async (context, key) => {
        const form = await readForm(context);
        const purpose = form.get('purpose');
        if (purpose !== 'batch') {
          throw invalidRequest(
            `Invalid field 'purpose': ${typeof purpose === 'string' ? `'${purpose.slice(0, 50)}' is not taken here` : 'missing'}; only 'batch' files are accepted.`,
          );
        }
        const file = form.get('file');
        if (!(file instanceof Blob))
          throw invalidRequest("Invalid field 'file': a file is required.");
        const content = await file.text();
        const row: BatchFileRow = {
          id: newId('file-'),
          keyId: key.id,
          purpose: 'batch',
          filename: (file as File).name || 'input.jsonl',
          bytes: file.size,
          content,
          batchId: null,
          createdAt: now(),
        };
        await parts.store.batches.insertFile(row);
        sendJson(context.response, 200, fileWire(row));
      }),
    );
    addRoute(
      router,
      docs.getFile,
      handle(async ({ response, params }, key) => {
        const file = await ownFile(parts, key, params.id!);
        const bytes =
          file.content === null ? Buffer.byteLength(await fileContent(parts, file)) : file.bytes;
        sendJson(response, 200, fileWire(file, bytes));
      }),
      keyPath('/v1/files'),
    );
    addRoute(
      router,
      docs.getFileContent,
      handle(async ({ response, params }, key) => {
        const file = await ownFile(parts, key, params.id!);
        const text = await fileContent(parts, file);
        response.writeHead(200, {
          'content-type': 'text/plain; charset=utf-8',
          'content-length': Buffer.byteLength(text),
        });
        response.end(text);
      }),
      keyPath('/v1/files', '/content'),
    );
    addRoute(
      router,
      docs.deleteFile,
      handle(async ({ response, params }, key) => {
        const file = await ownFile(parts, key, params.id!);
        await parts.store.batches.deleteFile(file.id);
        sendJson(response, 200, { id: file.id, object: 'file', deleted: true });
      }),
      keyPath('/v1/files'),
    );
    addRoute(
      router,
      docs.createBatch,
      handle(async (context, key) => {
        refuseUnusableKey(parts, key);
        const body = parseOrRefuse(
          createBatchSchema,
          await readJsonBody(context.request, parts.config.maxBodyBytes),
        );
        const file = await ownFile(parts, key, body.input_file_id);
        if (file.purpose !== 'batch' || file.content === null) {
          throw invalidRequest(
            `Invalid field 'input_file_id': file '${file.id}' has purpose '${file.purpose}'; a batch reads a file uploaded with purpose 'batch'.`,
          );
        }
        const id = newId('batch_');
        const lineForm = lineFormOf(body.endpoint)!;
        const lines = toLineRows(id, checkJsonl(file.content, body.endpoint), (error) =>
          lineForm.form.errorBody(error, context.traceId),
        );
        const batch = await startBatch(
          parts,
          {
            id,
            keyId: key.id,
            shape: 'openai',
            endpoint: body.endpoint,
            inputFileId: file.id,
            metadata: body.metadata ?? null,
          },
          lines,
        );
        await answerBatch(context.response, batch);
      }),
    );
    addRoute(
      router,
      docs.getBatch,
      handle(async ({ response, params }, key) =>
        answerBatch(response, await ownBatch(parts, key, params.id!, 'openai')),
      ),
      keyPath('/v1/batches'),
    );
    addRoute(
      router,
      docs.listBatches,
      handle(async ({ response, url }, key) => {
        const query = parseOrRefuse(listQuerySchema, queryOf(url), 'query parameter');
        const rows = await parts.store.batches.listBatches(key.id, 'openai', {
          limit: query.limit + 1,
          after: query.after,
        });
        const page = rows.slice(0, query.limit);
        const data = await Promise.all(
          page.map(async (batch) =>
            openAiBatchObject(batch, await parts.store.batches.counts(batch.id)),
          ),
        );
        sendJson(response, 200, {
          object: 'list',
          data,
          first_id: data[0]?.id ?? null,
          last_id: data.at(-1)?.id ?? null,
          has_more: rows.length > query.limit,
        });
      }),
    );
    addRoute(
      router,
      docs.cancelBatch,
      handle(async ({ response, params }, key) => {
        const batch = await ownBatch(parts, key, params.id!, 'openai');
        const cancelled = (await parts.store.batches.cancel(batch.id, now())) ?? batch;
        parts.batchRunner?.wake();
        await answerBatch(response, cancelled);
      }),
      keyPath('/v1/batches', '/cancel'),
    );
  },
};
