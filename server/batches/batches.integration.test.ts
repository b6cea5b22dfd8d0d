/** `/api/batches…`: the workbench's batches, through a fake gateway's OpenAI batch API. */
import { describe, expect, it } from 'vitest';
import { apiErrorSchema, batchDetailViewSchema } from '../../contract/workbench-api';
import { batchBody, sendJson, type RecordedRequest } from '../test-support/fake-gateway';
import { useGatewayAndBff } from '../test-support/gateway-and-bff';
import { postJson, rawRequest } from '../test-support/harness';

const fileBody = {
  id: 'file-1',
  object: 'file',
  bytes: 10,
  created_at: 1_800_000_000,
  filename: 'lines.jsonl',
  purpose: 'batch',
  status: 'processed',
  expires_at: null,
  status_details: null,
};

const lines =
  '{"custom_id":"a","method":"POST","url":"/v1/embeddings","body":{"model":"sim/embed","input":"héllo"}}\n' +
  '{"custom_id":"b","method":"POST","url":"/v1/embeddings","body":{"model":"sim/embed","input":"b"}}\n';

/** The multipart form the BFF sent, read back as the gateway reads it. */
async function formOf(request: RecordedRequest): Promise<FormData> {
  return new Request('http://fake.invalid/', {
    method: 'POST',
    headers: { 'content-type': String(request.headers['content-type']) },
    body: request.body,
  }).formData();
}

describe('the workbench’s batches', () => {
  const bed = useGatewayAndBff();

  it('uploads the file as a batch file and creates the batch with the profile’s key', async () => {
    bed.gateway.setHandler((request, response) => {
      if (request.url === '/v1/files') return sendJson(response, 200, fileBody);
      sendJson(response, 200, batchBody({ endpoint: '/v1/embeddings', extra_field: 'not shown' }));
    });
    const response = await postJson(bed.bff, '/api/batches', {
      profile: 'main',
      endpoint: '/v1/embeddings',
      file_name: 'lines.jsonl',
      content: lines,
    });
    expect(response.status).toBe(201);
    expect(batchDetailViewSchema.parse(response.json()).batch).toEqual({
      id: 'batch_1',
      endpoint: '/v1/embeddings',
      status: 'in_progress',
      total: 2,
      completed: 0,
      failed: 0,
      cost_usd: 0,
      created_at: 1_800_000_000,
      output_file_id: null,
      error_file_id: null,
    });
    const [upload, create] = bed.gateway.requests;
    expect(upload?.method).toBe('POST');
    expect(upload?.headers.authorization).toBe(`Bearer ${bed.key}`);
    const form = await formOf(upload!);
    expect(form.get('purpose')).toBe('batch');
    const file = form.get('file') as File;
    expect(file.name).toBe('lines.jsonl');
    expect(await file.text()).toBe(lines);
    expect(create?.url).toBe('/v1/batches');
    expect(create?.headers.authorization).toBe(`Bearer ${bed.key}`);
    expect(JSON.parse(create!.body)).toEqual({
      input_file_id: 'file-1',
      endpoint: '/v1/embeddings',
      completion_window: '24h',
    });
  });

  it('passes on a refused batch and deletes the file it uploaded for it', async () => {
    bed.gateway.setHandler((request, response) => {
      if (request.url === '/v1/files') return sendJson(response, 200, fileBody);
      if (request.method === 'DELETE') {
        return sendJson(response, 200, { id: 'file-1', object: 'file', deleted: true });
      }
      sendJson(response, 400, {
        error: 'Line 1: custom_id is missing; no line of the file could run.',
        type: 'invalid_request_error',
        stage: 'validation',
      });
    });
    const response = await postJson(bed.bff, '/api/batches', {
      profile: 'main',
      endpoint: '/v1/chat/completions',
      file_name: 'lines.jsonl',
      content: '{"method":"POST"}\n',
    });
    expect(response.status).toBe(400);
    expect(apiErrorSchema.parse(response.json()).error.message).toBe(
      'Line 1: custom_id is missing; no line of the file could run.',
    );
    expect(bed.gateway.requests.map((request) => `${request.method} ${request.url}`)).toEqual([
      'POST /v1/files',
      'POST /v1/batches',
      'DELETE /v1/files/file-1',
    ]);
  });

  it('keeps the file when the batch’s creation failed otherwise: the batch may exist', async () => {
    bed.gateway.setHandler((request, response) => {
      if (request.url === '/v1/files') return sendJson(response, 200, fileBody);
      sendJson(response, 503, { error: 'The store is busy.', stage: 'gateway' });
    });
    const response = await postJson(bed.bff, '/api/batches', {
      profile: 'main',
      endpoint: '/v1/embeddings',
      file_name: 'lines.jsonl',
      content: lines,
    });
    expect(response.status).toBe(502);
    expect(bed.gateway.requests.map((request) => request.method)).toEqual(['POST', 'POST']);
  });

  it('refuses an endpoint no batch takes, or an empty file, before calling the gateway', async () => {
    const wrongEndpoint = await postJson(bed.bff, '/api/batches', {
      profile: 'main',
      endpoint: '/v1/messages',
      file_name: 'lines.jsonl',
      content: lines,
    });
    expect(wrongEndpoint.status).toBe(400);
    expect(apiErrorSchema.parse(wrongEndpoint.json()).error.field).toBe('endpoint');
    const empty = await postJson(bed.bff, '/api/batches', {
      profile: 'main',
      endpoint: '/v1/embeddings',
      file_name: 'lines.jsonl',
      content: '',
    });
    expect(apiErrorSchema.parse(empty.json()).error.message).toBe('content: the file is empty');
    const badId = await rawRequest(bed.bff, { path: '/api/batches/..%2Fkeys?profile=main' });
    expect(badId.status).toBe(400);
    expect(bed.gateway.requests).toHaveLength(0);
  });

  it('reads a batch’s progress and cancels it', async () => {
    bed.gateway.setHandler((request, response) =>
      sendJson(
        response,
        200,
        request.url.endsWith('/cancel')
          ? batchBody({
              status: 'cancelling',
              request_counts: { total: 2, completed: 1, failed: 0 },
            })
          : batchBody({ request_counts: { total: 2, completed: 1, failed: 0 }, cost_usd: 0.001 }),
      ),
    );
    const progress = await rawRequest(bed.bff, { path: '/api/batches/batch_1?profile=main' });
    expect(batchDetailViewSchema.parse(progress.json()).batch).toMatchObject({
      completed: 1,
      cost_usd: 0.001,
    });
    const cancel = await postJson(bed.bff, '/api/batches/batch_1/cancel', { profile: 'main' });
    expect(batchDetailViewSchema.parse(cancel.json()).batch.status).toBe('cancelling');
    expect(bed.gateway.requests.map((request) => `${request.method} ${request.url}`)).toEqual([
      'GET /v1/batches/batch_1',
      'POST /v1/batches/batch_1/cancel',
    ]);
  });

  it('streams the output file as a download, this workbench’s keys masked', async () => {
    const output = `{"custom_id":"a","response":{"status_code":200,"body":{"note":"${bed.key}"}}}\n{"custom_id":"b"}\n`;
    bed.gateway.setHandler((request, response) => {
      if (request.url === '/v1/files/file-out/content') {
        response.writeHead(200, { 'content-type': 'application/jsonl' });
        // In two pieces, the key cut across them.
        const cut = output.indexOf(bed.key) + 10;
        response.write(output.slice(0, cut));
        response.end(output.slice(cut));
        return;
      }
      sendJson(
        response,
        200,
        batchBody({ status: 'completed', output_file_id: 'file-out', error_file_id: null }),
      );
    });
    const download = await rawRequest(bed.bff, {
      path: '/api/batches/batch_1/results?profile=main&file=output',
    });
    expect(download.status).toBe(200);
    expect(download.headers['content-disposition']).toBe(
      'attachment; filename="batch_1-output.jsonl"',
    );
    expect(download.text).not.toContain(bed.key);
    expect(download.text.split('\n')).toHaveLength(3);
    expect(download.text).toContain('"custom_id":"b"');

    const none = await rawRequest(bed.bff, {
      path: '/api/batches/batch_1/results?profile=main&file=error',
    });
    expect(none.status).toBe(404);
    expect(apiErrorSchema.parse(none.json()).error.message).toBe(
      'Batch batch_1 has no error file: no line ended that way.',
    );
  });
});
