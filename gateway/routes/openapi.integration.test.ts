/**
 * `GET /openapi.json` against the gateway that serves it, over real HTTP on loopback: the document
 * is valid OpenAPI 3.1, names exactly the operations the router serves, and every operation's
 * real answers (successes and errors) have a status, media type and body the document gives it.
 * Each operation takes its key in exactly the places its `security` lists. The operations come
 * from the document; a probe per operation id says how to call it, and a missing probe fails.
 */
import crypto from 'node:crypto';
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020';
import { Router } from '../http/router';
import { maskKeys } from '../shared/key-masking';
import { startTestGateway, eventually, type TestGateway } from '../../testing/gateway-support';

type Json = Record<string, unknown>;

type Operation = {
  operationId: string;
  method: string;
  path: string;
  tags: string[];
  security: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; schema: { examples?: string[] } }>;
  responses: Record<string, { content: Record<string, { schema: Json }> }>;
};

type SecurityScheme = { type: string; scheme?: string; in?: string; name?: string };

/** One call of an operation: path values (else the document's examples), query, body. */
type Call = {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  /** A multipart/form-data body (a file upload) instead of JSON. */
  form?: () => FormData;
};

/** How to call an operation so it succeeds, and calls it must refuse (besides without a key). */
type Probe = { ok: Array<() => Call | Promise<Call>>; errors?: Array<() => Call | Promise<Call>> };

/** Where a credential goes: a security scheme of the document, or nowhere. */
type Credential = { scheme: SecurityScheme; value: string } | null;

const OPERATOR_SCHEME = 'operatorToken';
const adminToken = crypto.randomBytes(24).toString('hex');

let gateway: TestGateway;
let doc: { paths: Record<string, Record<string, Operation>>; components: Json } & Json;
let operations: Operation[];
let account: { id: string; key: string };
let generationId: string;
const ajv = new Ajv2020({ strict: false, allErrors: true });

const pointerEscape = (text: string) => text.replace(/~/g, '~0').replace(/\//g, '~1');

function securitySchemes(): Record<string, SecurityScheme> {
  return (doc.components as { securitySchemes: Record<string, SecurityScheme> }).securitySchemes;
}

/** The URL of `operation` with `call`'s values (or the document's examples) and `extraQuery`. */
function urlOf(operation: Operation, call: Call, extraQuery: Record<string, string> = {}): string {
  const path = operation.path.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    const value =
      call.params?.[name] ??
      operation.parameters?.find((parameter) => parameter.in === 'path' && parameter.name === name)
        ?.schema.examples?.[0];
    if (value === undefined) throw new Error(`${operation.operationId}: no value for {${name}}`);
    return encodeURIComponent(value);
  });
  const query = new URLSearchParams({ ...call.query, ...extraQuery }).toString();
  return `${gateway.url}${path}${query ? `?${query}` : ''}`;
}

async function send(operation: Operation, call: Call, credential: Credential): Promise<Response> {
  const headers: Record<string, string> = {};
  const query: Record<string, string> = {};
  if (credential) {
    const { scheme, value } = credential;
    if (scheme.type === 'http' && scheme.scheme === 'bearer')
      headers.authorization = `Bearer ${value}`;
    else if (scheme.in === 'header') headers[scheme.name!] = value;
    else if (scheme.in === 'query') query[scheme.name!] = value;
    else throw new Error(`a security scheme the test cannot place: ${JSON.stringify(scheme)}`);
  }
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  return fetch(urlOf(operation, call, query), {
    method: operation.method,
    headers,
    ...(call.body !== undefined && { body: JSON.stringify(call.body) }),
    ...(call.form && { body: call.form() }),
  });
}

/** The credential that `operation`'s first security requirement asks for. */
function credentialOf(operation: Operation): Credential {
  const name = Object.keys(operation.security[0] ?? {})[0];
  if (name === undefined) return null;
  return {
    scheme: securitySchemes()[name]!,
    value: name === OPERATOR_SCHEME ? adminToken : account.key,
  };
}

/**
 * Asserts the answer is one the document gives `operation`: its status, its media type, a
 * well-formed cf-ray, and a JSON body valid against the schema for both. Returns the body.
 * A failure quotes the body with keys masked (create and rotate answer with a full key).
 */
async function expectDocumented(operation: Operation, response: Response): Promise<unknown> {
  const what = `${operation.method} ${operation.path} (${operation.operationId}) → ${response.status}`;
  const answer = operation.responses[String(response.status)];
  const text = await response.text();
  expect(answer, `${what} is not in the document: ${maskKeys(text.slice(0, 300))}`).toBeDefined();
  const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
  const content = answer!.content[mediaType];
  expect(content, `${what}: ${mediaType} is not documented`).toBeDefined();
  const cfRay = (doc.components as { headers: { CfRay: { schema: { pattern: string } } } }).headers
    .CfRay.schema.pattern;
  expect(response.headers.get('cf-ray')).toMatch(new RegExp(cfRay));
  if (mediaType !== 'application/json') {
    expect(content!.schema.type, what).toBe('string');
    expect(text.length, what).toBeGreaterThan(0);
    return text;
  }
  const body: unknown = JSON.parse(text);
  const pointer = [
    'paths',
    operation.path,
    operation.method.toLowerCase(),
    'responses',
    String(response.status),
    'content',
    mediaType,
    'schema',
  ]
    .map(pointerEscape)
    .join('/');
  const validate = ajv.compile({ $ref: `openapi.json#/${pointer}` });
  expect(
    validate(body),
    `${what}: ${ajv.errorsText(validate.errors)}\n${maskKeys(text.slice(0, 500))}`,
  ).toBe(true);
  return body;
}

const chatRequest = {
  model: 'sim/chat-standard',
  messages: [{ role: 'user', content: 'Hello, document.' }],
  max_tokens: 8,
};
const geminiContents = [{ role: 'user', parts: [{ text: 'Hello, document.' }] }];

/** A new child of the account, for a call that changes or ends it. */
async function childKey(): Promise<string> {
  return (await gateway.createKey({ kind: 'allocated_child', parentId: account.id, limitUsd: 1 }))
    .id;
}

/** A new account key, for an operator call that changes or ends it. */
async function accountKey(): Promise<string> {
  return (await gateway.createKey({ kind: 'account', limitUsd: 1 })).id;
}

/** A batch input file, as multipart/form-data, of `purpose`. */
function batchFileForm(purpose = 'batch'): FormData {
  const line = { custom_id: 'one', method: 'POST', url: '/v1/chat/completions', body: chatRequest };
  const form = new FormData();
  form.append('purpose', purpose);
  form.append('file', new Blob([`${JSON.stringify(line)}\n`]), 'input.jsonl');
  return form;
}

/** A batch input file uploaded by the account key. */
async function batchFile(): Promise<string> {
  const response = await fetch(`${gateway.url}/v1/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.key}` },
    body: batchFileForm(),
  });
  return ((await response.json()) as { id: string }).id;
}

/** A batch of the account key, running or (`ended`) ended. */
async function openAiBatch(ended = false): Promise<string> {
  const response = await fetch(`${gateway.url}/v1/batches`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      input_file_id: await batchFile(),
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    }),
  });
  const { id } = (await response.json()) as { id: string };
  if (ended) await batchEnded(id);
  return id;
}

/** A Message Batch of the account key, running or (`ended`) ended. */
async function messageBatch(ended = false): Promise<string> {
  const response = await fetch(`${gateway.url}/v1/messages/batches`, {
    method: 'POST',
    headers: { 'x-api-key': account.key, 'content-type': 'application/json' },
    body: JSON.stringify({ requests: [{ custom_id: 'one', params: { ...chatRequest } }] }),
  });
  const { id } = (await response.json()) as { id: string };
  if (ended) await batchEnded(id);
  return id;
}

const batchEnded = (id: string) =>
  eventually(async () => {
    const batch = await gateway.gateway.parts.store.batches.getBatch(id);
    return batch?.endedAt ? true : undefined;
  });

/** A response stored for the account key, for a call that reads or deletes it. */
async function storedResponse(): Promise<string> {
  const response = await fetch(`${gateway.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'sim/chat-standard',
      input: 'Keep this.',
      max_output_tokens: 16,
    }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { id: string }).id;
}

const keyProbes = (create: () => Call, newKey: () => Promise<string>): Record<string, Probe> => ({
  listKeys: {
    ok: [() => ({ query: { include_revoked: 'true' } })],
    errors: [() => ({ query: { include_revoked: 'maybe' } })],
  },
  createKey: { ok: [create], errors: [() => ({ body: { kind: 'nothing' } })] },
  getKey: {
    ok: [async () => ({ params: { id: await newKey() } })],
    errors: [() => ({ params: { id: 'key_missing' } })],
  },
  updateKey: {
    ok: [async () => ({ params: { id: await newKey() }, body: { name: 'renamed' } })],
    errors: [async () => ({ params: { id: await newKey() }, body: {} })],
  },
  revokeKey: {
    ok: [async () => ({ params: { id: await newKey() } })],
    errors: [() => ({ params: { id: 'key_missing' } })],
  },
  rotateKey: {
    ok: [async () => ({ params: { id: await newKey() } })],
    errors: [() => ({ params: { id: 'key_missing' } })],
  },
  listKeyEvents: {
    ok: [async () => ({ params: { id: await newKey() }, query: { limit: '5' } })],
    errors: [async () => ({ params: { id: await newKey() }, query: { limit: '0' } })],
  },
  listKeyPeriods: {
    ok: [async () => ({ params: { id: await newKey() }, query: { limit: '5' } })],
    errors: [() => ({ params: { id: 'key_missing' } })],
  },
});

/** A loopback port nothing listens on: a test event's delivery is refused there, and retried. */
const HOOK_URL = 'http://127.0.0.1:1/hook';
let sharedWebhook: Promise<string> | undefined;
/** A webhook endpoint of the account key: one shared by the probes that keep it, or a new one. */
const webhookOf = (fresh = false) => {
  const create = async () =>
    (
      await gateway.gateway.parts.webhooks.create(account.id, {
        url: HOOK_URL,
        events: ['key.created'],
      })
    ).id;
  return fresh ? create() : (sharedWebhook ??= create());
};

function webhookProbes(prefix: '' | 'admin'): Record<string, Probe> {
  const id = (name: string) =>
    prefix === '' ? name : `admin${name[0]!.toUpperCase()}${name.slice(1)}`;
  const owner = prefix === '' ? {} : { account_id: account.id };
  const withId =
    (more: Omit<Call, 'params'> = {}) =>
    async () => ({ params: { id: await webhookOf() }, ...more });
  const missing = () => ({ params: { id: 'wh_missing' } });
  return {
    [id('listWebhooks')]: {
      ok: [() => (prefix === '' ? {} : { query: { account_id: account.id } })],
    },
    [id('createWebhook')]: {
      ok: [() => ({ body: { ...owner, url: HOOK_URL, events: ['key.depleted'] } })],
      errors: [() => ({ body: { ...owner, url: HOOK_URL, events: [] } })],
    },
    [id('getWebhook')]: { ok: [withId()], errors: [missing] },
    [id('changeWebhook')]: {
      ok: [withId({ body: { description: 'probe' } })],
      errors: [withId({ body: { url: HOOK_URL } }), missing],
    },
    [id('deleteWebhook')]: {
      ok: [async () => ({ params: { id: await webhookOf(true) } })],
      errors: [missing],
    },
    [id('testWebhook')]: { ok: [withId()], errors: [missing] },
    [id('listWebhookDeliveries')]: {
      ok: [withId({ query: { limit: '5' } })],
      errors: [withId({ query: { limit: '0' } }), missing],
    },
  };
}

let presets = 0;
/** A preset added for a probe to delete; its slug. */
async function newPreset(): Promise<string> {
  presets += 1;
  const slug = `deletable-${presets}`;
  const added = await fetch(`${gateway.url}/admin/v1/presets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: `@preset/${slug}`, model: 'sim/chat-standard' }),
  });
  expect(added.status).toBe(201);
  return slug;
}

/** The operator's routes: the same probes under `admin…` ids, and the two top-ups. */
function adminProbes(): Record<string, Probe> {
  const shared = keyProbes(() => ({ body: { name: 'probe account', limit_usd: 1 } }), accountKey);
  const topUp: Probe = {
    ok: [
      async () => ({ params: { id: await accountKey() }, body: { amount_usd: 1, note: 'probe' } }),
    ],
    errors: [async () => ({ params: { id: await accountKey() }, body: { amount_usd: 'one' } })],
  };
  return {
    ...Object.fromEntries(
      Object.entries(shared).map(([id, probe]) => [
        `admin${id[0]!.toUpperCase()}${id.slice(1)}`,
        probe,
      ]),
    ),
    adminRechargeKey: topUp,
    adminCreditKey: topUp,
    adminListPresets: { ok: [() => ({})] },
    adminPutPreset: {
      ok: [() => ({ body: { id: '@preset/probe', model: 'sim/chat-standard' } })],
      errors: [
        () => ({ body: { id: '@preset/probe', model: 'nobody/nothing' } }),
        () => ({ body: { id: 'no-prefix', model: 'sim/chat-standard' } }),
      ],
    },
    adminDeletePreset: {
      ok: [async () => ({ params: { slug: await newPreset() } })],
      errors: [() => ({ params: { slug: 'nothing-here' } })],
    },
    ...webhookProbes('admin'),
  };
}

/** A Gemini-form operation's probe, by the method its path ends with. */
function geminiProbe(operation: Operation): Probe {
  const method = operation.path.slice(operation.path.lastIndexOf(':') + 1);
  const generate = { contents: geminiContents, generationConfig: { maxOutputTokens: 8 } };
  const probes: Record<string, Probe> = {
    generateContent: {
      ok: [() => ({ body: generate })],
      errors: [() => ({ body: { contents: [] } })],
    },
    streamGenerateContent: {
      ok: [() => ({ body: generate, query: { alt: 'sse' } }), () => ({ body: generate })],
      errors: [() => ({ body: { contents: 'no' } })],
    },
    countTokens: {
      ok: [() => ({ body: { contents: geminiContents } })],
      errors: [() => ({ body: {} })],
    },
    embedContent: {
      ok: [
        () => ({ body: { content: { parts: [{ text: 'one' }] } } }),
        () => ({
          body: { contents: [{ parts: [{ text: 'one' }] }, { parts: [{ text: 'two' }] }] },
        }),
      ],
      errors: [() => ({ body: { content: { parts: [] } } })],
    },
    batchEmbedContents: {
      ok: [() => ({ body: { requests: [{ content: { parts: [{ text: 'one' }] } }] } })],
      errors: [() => ({ body: { requests: [] } })],
    },
  };
  const probe = probes[method];
  if (!probe) throw new Error(`no probe for the Gemini method ${method}`);
  return probe;
}

function probeOf(operation: Operation): Probe {
  if (operation.operationId.startsWith('gemini')) return geminiProbe(operation);
  const messages = { model: 'sim/chat-standard', max_tokens: 8, messages: chatRequest.messages };
  const probes: Record<string, Probe> = {
    listModels: { ok: [() => ({})] },
    getModel: {
      ok: [() => ({}), () => ({ params: { model_id: 'vision-pro' } })],
      errors: [() => ({ params: { model_id: 'nobody/nothing' } })],
    },
    listModelEndpoints: {
      ok: [() => ({})],
      errors: [() => ({ params: { author: 'nobody', model: 'nothing' } })],
    },
    getModelEndpointStats: {
      ok: [() => ({}), () => ({ query: { window: '7d' } })],
      errors: [
        () => ({ params: { author: 'nobody', model: 'nothing' } }),
        () => ({ query: { window: '1y' } }),
      ],
    },
    createChatCompletion: {
      ok: [() => ({ body: chatRequest }), () => ({ body: { ...chatRequest, stream: true } })],
      errors: [
        () => ({ body: { model: chatRequest.model } }),
        () => ({ body: { ...chatRequest, model: 'nobody/nothing' } }),
      ],
    },
    createEmbeddings: {
      ok: [
        () => ({ body: { model: 'sim/embed-small', input: 'hello' } }),
        () => ({
          body: { model: 'sim/embed-small', input: ['a', 'b'], encoding_format: 'base64' },
        }),
      ],
      errors: [() => ({ body: { model: 'sim/embed-small' } })],
    },
    getBalance: { ok: [() => ({})] },
    getKeyStatus: { ok: [() => ({})] },
    getGeneration: {
      ok: [() => ({ query: { id: generationId } })],
      errors: [() => ({}), () => ({ query: { id: '0000000000000000-NON' } })],
    },
    listGenerations: {
      ok: [() => ({ query: { limit: '2' } })],
      errors: [() => ({ query: { limit: '0' } })],
    },
    getActivity: {
      ok: [() => ({ query: { days: '7' } })],
      errors: [() => ({ query: { days: '0' } })],
    },
    getSessionActivity: {
      ok: [() => ({ query: { days: '7' } })],
      errors: [() => ({ query: { days: '0' } })],
    },
    ...keyProbes(
      () => ({ body: { kind: 'allocated_child', name: 'probe', limit_usd: 1 } }),
      childKey,
    ),
    ...adminProbes(),
    ...webhookProbes(''),
    getLiveness: { ok: [() => ({})] },
    getReadiness: { ok: [() => ({})] },
    getMetrics: { ok: [() => ({})] },
    createMessage: {
      ok: [() => ({ body: messages }), () => ({ body: { ...messages, stream: true } })],
      errors: [() => ({ body: { model: messages.model } })],
    },
    countMessageTokens: {
      ok: [() => ({ body: { model: messages.model, messages: messages.messages } })],
      errors: [() => ({ body: { model: 'nobody/nothing', messages: messages.messages } })],
    },
    countResponseInputTokens: {
      ok: [() => ({ body: { model: messages.model, input: 'Hi' } })],
      errors: [
        () => ({ body: { model: 'nobody/nothing', input: 'Hi' } }),
        () => ({ body: { model: messages.model, input: 'Hi', previous_response_id: 'resp_1' } }),
      ],
    },
    createResponse: {
      ok: [
        () => ({ body: { model: messages.model, input: 'Hi', max_output_tokens: 16 } }),
        () => ({
          body: { model: messages.model, input: 'Hi', max_output_tokens: 16, stream: true },
        }),
      ],
      errors: [() => ({ body: { model: messages.model, input: 'Hi', background: true } })],
    },
    compactResponse: {
      ok: [() => ({ body: { model: messages.model, input: 'Hi', max_output_tokens: 16 } })],
      errors: [() => ({ body: { model: messages.model, input: 'Hi', stream: true } })],
    },
    getResponse: {
      ok: [async () => ({ params: { id: await storedResponse() } })],
      errors: [() => ({ params: { id: 'resp_missing' } })],
    },
    deleteResponse: {
      ok: [async () => ({ params: { id: await storedResponse() } })],
      errors: [() => ({ params: { id: 'resp_missing' } })],
    },
    listResponseInputItems: {
      ok: [async () => ({ params: { id: await storedResponse() } })],
      errors: [
        async () => ({ params: { id: await storedResponse() }, query: { order: 'sideways' } }),
      ],
    },
    getOpenApiDocument: { ok: [() => ({})] },
    uploadFile: {
      ok: [() => ({ form: () => batchFileForm() })],
      errors: [() => ({ form: () => batchFileForm('assistants') })],
    },
    ...Object.fromEntries(
      ['getFile', 'getFileContent', 'deleteFile'].map((operationId) => [
        operationId,
        {
          ok: [async () => ({ params: { id: await batchFile() } })],
          errors: [() => ({ params: { id: 'file-missing' } })],
        },
      ]),
    ),
    createBatch: {
      ok: [
        async () => ({
          body: {
            input_file_id: await batchFile(),
            endpoint: '/v1/chat/completions',
            completion_window: '24h',
          },
        }),
      ],
      errors: [() => ({ body: { input_file_id: 'file-x', endpoint: '/v1/nothing' } })],
    },
    getBatch: {
      ok: [async () => ({ params: { id: await openAiBatch() } })],
      errors: [() => ({ params: { id: 'batch_missing' } })],
    },
    listBatches: { ok: [() => ({})], errors: [() => ({ query: { limit: '0' } })] },
    cancelBatch: {
      ok: [async () => ({ params: { id: await openAiBatch() } })],
      errors: [() => ({ params: { id: 'batch_missing' } })],
    },
    createMessageBatch: {
      ok: [() => ({ body: { requests: [{ custom_id: 'one', params: messages }] } })],
      errors: [() => ({ body: { requests: [] } })],
    },
    getMessageBatch: {
      ok: [async () => ({ params: { id: await messageBatch() } })],
      errors: [() => ({ params: { id: 'msgbatch_missing' } })],
    },
    listMessageBatches: { ok: [() => ({})], errors: [() => ({ query: { limit: '0' } })] },
    cancelMessageBatch: {
      ok: [async () => ({ params: { id: await messageBatch() } })],
      errors: [() => ({ params: { id: 'msgbatch_missing' } })],
    },
    getMessageBatchResults: {
      ok: [async () => ({ params: { id: await messageBatch(true) } })],
      errors: [() => ({ params: { id: 'msgbatch_missing' } })],
    },
  };
  const probe = probes[operation.operationId];
  if (!probe) throw new Error(`no probe for ${operation.operationId}: add one to this test`);
  return probe;
}

beforeAll(async () => {
  gateway = await startTestGateway({ adminToken });
  account = await gateway.createKey({ kind: 'account', limitUsd: 100 });
  const response = await fetch(`${gateway.url}/openapi.json`);
  expect(response.status).toBe(200);
  doc = (await response.json()) as typeof doc;
  ajv.addSchema(doc, 'openapi.json');
  operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      ...operation,
      path,
      method: method.toUpperCase(),
    })),
  );
  // A generation record to read: the chat answer's cf-ray, once its record is written.
  const chat = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(chatRequest),
  });
  expect(chat.status).toBe(200);
  generationId = chat.headers.get('cf-ray')!;
  await eventually(async () => {
    const record = await fetch(`${gateway.url}/v1/generation?id=${generationId}`, {
      headers: { authorization: `Bearer ${account.key}` },
    });
    return record.status === 200 ? true : undefined;
  });
});

afterAll(async () => {
  await gateway?.stop();
});

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document, served without a key and the same every time', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    const again = await fetch(`${gateway.url}/openapi.json`, {
      headers: { authorization: 'Bearer not-a-key' },
    });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(doc);
  });

  it('names exactly the operations the router serves, each reached at its documented path', () => {
    const registrations = gateway.gateway.routes();
    const served = registrations.filter((registration) => !registration.fallback);
    for (const registration of served)
      expect(registration.operationIds.length, String(registration.path)).toBeGreaterThan(0);
    const routed = served.flatMap((registration) => [...registration.operationIds]).sort();
    const documented = operations.map((operation) => operation.operationId).sort();
    expect(routed).toEqual(documented);
    expect(new Set(documented).size).toBe(documented.length);

    // The same router again, to ask which registration answers each documented path.
    const router = new Router();
    for (const { method, path, handler, operationIds, fallback } of registrations) {
      if (fallback) router.addFallback(method, path as RegExp, handler);
      else router.add(method, path, handler, operationIds);
    }
    for (const operation of operations) {
      const owner = served.find((registration) =>
        registration.operationIds.includes(operation.operationId),
      )!;
      expect(owner.method, operation.operationId).toBe(operation.method);
      const pathname = new URL(urlOf(operation, {})).pathname;
      const found = router.match(operation.method, pathname);
      expect(found === null || found === 'wrong_method' ? found : found.handler, pathname).toBe(
        owner.handler,
      );
    }
  });

  it("answers every operation's calls as documented, successes and errors alike", async () => {
    const refusedIn = new Set<string>();
    for (const operation of operations) {
      const probe = probeOf(operation);
      const credential = credentialOf(operation);
      for (const build of probe.ok) {
        const response = await send(operation, await build(), credential);
        expect(response.status, operation.operationId).toBeLessThan(300);
        await expectDocumented(operation, response);
      }
      for (const build of probe.errors ?? []) {
        const response = await send(operation, await build(), credential);
        expect(response.status, operation.operationId).toBeGreaterThanOrEqual(400);
        await expectDocumented(operation, response);
        refusedIn.add(String(operation.tags[0]));
      }
      // Without its key, a keyed operation is refused with 401, in its form's documented shape.
      if (credential) {
        const response = await send(operation, await probe.ok[0]!(), null);
        expect(response.status, operation.operationId).toBe(401);
        await expectDocumented(operation, response);
        refusedIn.add(String(operation.tags[0]));
      }
    }
    // Every family answered an error; /readyz's 503 has its own test, and this document has
    // no error of its own to provoke.
    const families = new Set(operations.map((operation) => String(operation.tags[0])));
    expect([...families].filter((tag) => !refusedIn.has(tag)).sort()).toEqual([
      'Documentation',
      'Operability',
    ]);
  }, 120_000);

  it('answers /readyz with the documented 503 when a dependency fails', async () => {
    const operation = operations.find((candidate) => candidate.operationId === 'getReadiness')!;
    const parts = gateway.gateway.parts;
    parts.readiness = [{ name: 'redis', ping: () => Promise.reject(new Error('down')) }];
    try {
      const response = await send(operation, {}, null);
      expect(response.status).toBe(503);
      await expectDocumented(operation, response);
    } finally {
      parts.readiness = undefined;
    }
  });

  it('takes each key exactly where the document says, and refuses it elsewhere', async () => {
    const schemes = Object.entries(securitySchemes()).filter(([name]) => name !== OPERATOR_SCHEME);
    for (const operation of operations) {
      if (operation.security.length === 0) continue;
      const listed = new Set(operation.security.flatMap((requirement) => Object.keys(requirement)));
      for (const [name, scheme] of schemes) {
        const response = await send(operation, await probeOf(operation).ok[0]!(), {
          scheme,
          value: account.key,
        });
        const what = `${operation.operationId} with ${name}`;
        if (listed.has(name)) expect(response.status, what).toBeLessThan(300);
        else expect(response.status, what).toBeGreaterThanOrEqual(400);
        await expectDocumented(operation, response);
      }
    }
  }, 120_000);
});
