/**
 * The gateway's OpenAPI 3.1 document, generated from the route families' descriptions
 * (routes/route-doc.ts): every body and answer is the zod schema the code validates or writes
 * with, turned into JSON Schema 2020-12 by zod. Nothing here describes a body by hand.
 */
import { z } from 'zod';
import { cfRayPattern } from '../../contract/gateway';
import { version } from '../../package.json';
import { keyPlacements, type KeyPlacement } from '../auth/authenticate';
import { messagesErrorBodySchema } from '../forms/anthropic/error-shape';
import { geminiErrorBodySchema } from '../forms/gemini/error-shape';
import { chatErrorBodySchema } from '../forms/openai/error-shape';
import type { ErrorForm, NamedSchema, RouteDoc } from '../routes/route-doc';

type Json = Record<string, unknown>;

export type OpenApiDocument = {
  openapi: string;
  info: Json;
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json> } & Json;
} & Json;

const errorSchemas: Record<ErrorForm, NamedSchema> = {
  gateway: { name: 'GatewayError', schema: chatErrorBodySchema },
  messages: { name: 'MessagesError', schema: messagesErrorBodySchema },
  gemini: { name: 'GeminiError', schema: geminiErrorBodySchema },
};

/** The security scheme of each place a key can travel, and of the operator token. */
const keySchemes: Record<KeyPlacement, string> = {
  bearer: 'bearerKey',
  'x-api-key': 'apiKeyHeader',
  'x-goog-api-key': 'googApiKeyHeader',
  query: 'keyQuery',
};
const OPERATOR_SCHEME = 'operatorToken';

const securitySchemes = {
  [keySchemes.bearer]: {
    type: 'http',
    scheme: 'bearer',
    description: 'A gateway key (`sk-…`) in `Authorization: Bearer`.',
  },
  [keySchemes['x-api-key']]: {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
    description: 'A gateway key, as the Messages form sends it.',
  },
  [keySchemes['x-goog-api-key']]: {
    type: 'apiKey',
    in: 'header',
    name: 'x-goog-api-key',
    description: 'A gateway key, as the Gemini form sends it.',
  },
  [keySchemes.query]: {
    type: 'apiKey',
    in: 'query',
    name: 'key',
    description: 'A gateway key in `?key=`; it wins over any header.',
  },
  [OPERATOR_SCHEME]: {
    type: 'http',
    scheme: 'bearer',
    description:
      'The operator token, `GATEWAY_ADMIN_TOKEN`; without it set, the operator routes answer 404.',
  },
};

/** What each error status means, whatever the route; its body is the route's form's. */
const errorMeanings: Record<number, string> = {
  400: 'The request is invalid (a field, the body or a query parameter, named in the message), or the provider refused it.',
  401: 'No key, an unknown, revoked or malformed one, or one sent where this form does not take it.',
  402: 'The key cannot spend: expired, disabled, depleted, its parent unusable, or too little left for the request.',
  403: 'The key may not do this (a child key managing keys), or the provider denied the request.',
  404: 'Not found, or not visible to this key (the same answer, so ids cannot be probed).',
  409: 'The key is revoked and cannot change.',
  413: 'The body is larger than this route takes.',
  415: 'The body is not declared `application/json`.',
  429: "A rate limit or the key's concurrency limit; retry after `Retry-After`.",
  500: 'The gateway failed; quote the request id.',
  502: 'The provider failed or answered what the gateway cannot read; retry later.',
  503: 'No provider of the model is available now; retry after `Retry-After`.',
  504: 'The provider did not answer in time; retry later.',
};

/** Statuses whose answer says when to retry. */
const RETRY_AFTER_STATUSES = new Set([429, 502, 503, 504]);

/** Every operation may answer 500: each family's error net, or the app's last one. */
const ALWAYS = [500];

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** A registry of named schemas, converted at once so shared ones are referenced, not copied. */
class NamedSchemas {
  private readonly registry = z.registry<{ id: string }>();
  private readonly byName = new Map<string, z.ZodType>();

  constructor(private readonly io: 'input' | 'output') {}

  ref({ name, schema }: NamedSchema): Json {
    const known = this.byName.get(name);
    if (known && known !== schema) throw new Error(`two schemas are named ${name}`);
    if (!known) {
      this.byName.set(name, schema);
      this.registry.add(schema, { id: name });
    }
    return schemaRef(name);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  convert(): Record<string, Json> {
    const { schemas } = z.toJSONSchema(this.registry, {
      target: 'draft-2020-12',
      io: this.io,
      unrepresentable: 'any',
      uri: (id) => `#/components/schemas/${id}`,
    });
    // Each is a part of this document, not a schema resource of its own.
    return Object.fromEntries(
      Object.entries(schemas).map(([name, { $schema: _schema, $id: _id, ...schema }]) => [
        name,
        schema as Json,
      ]),
    );
  }
}

/** A zod object's fields as OpenAPI parameters `in` the path, query or headers. */
function parametersOf(schema: z.ZodObject | undefined, where: 'path' | 'query' | 'header'): Json[] {
  if (!schema) return [];
  const converted = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
  }) as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(converted.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: where,
      required: where === 'path' || (converted.required ?? []).includes(name),
      ...(description !== undefined && { description }),
      schema: rest,
    };
  });
}

/** The ways an operation takes its key, each a security requirement (any one of them will do). */
function securityOf(doc: RouteDoc): Json[] {
  if (doc.auth === 'none') return [];
  if (doc.auth === 'operator') return [{ [OPERATOR_SCHEME]: [] }];
  return keyPlacements[doc.auth].map((placement) => ({ [keySchemes[placement]]: [] }));
}

function headersFor(status: number): Json {
  return {
    'cf-ray': { $ref: '#/components/headers/CfRay' },
    ...(RETRY_AFTER_STATUSES.has(status) && {
      'retry-after': { $ref: '#/components/headers/RetryAfter' },
    }),
  };
}

function operationOf(doc: RouteDoc, inputs: NamedSchemas, outputs: NamedSchemas): Json {
  const responses: Record<string, Json> = {};
  for (const [status, answer] of Object.entries(doc.responses)) {
    responses[status] = {
      description: answer.description,
      headers: headersFor(Number(status)),
      content: Object.fromEntries(
        Object.entries(answer.content).map(([mediaType, body]) => [
          mediaType,
          'text' in body
            ? { schema: { type: 'string', description: body.text } }
            : { schema: outputs.ref(body) },
        ]),
      ),
    };
  }
  const errorBody = outputs.ref(errorSchemas[doc.errors.form]);
  for (const status of [...new Set([...doc.errors.statuses, ...ALWAYS])].sort((a, b) => a - b)) {
    if (responses[status]) throw new Error(`${doc.operationId}: ${status} is twice`);
    responses[status] = {
      description: errorMeanings[status] ?? 'An error.',
      headers: headersFor(status),
      content: { 'application/json': { schema: errorBody } },
    };
  }
  const parameters = [
    ...parametersOf(doc.pathParams, 'path'),
    ...parametersOf(doc.query, 'query'),
    ...parametersOf(doc.headers, 'header'),
  ];
  return {
    operationId: doc.operationId,
    summary: doc.summary,
    ...(doc.description && { description: doc.description }),
    tags: [doc.tag],
    security: securityOf(doc),
    ...(parameters.length > 0 && { parameters }),
    ...(doc.body && {
      requestBody: {
        required: true,
        content: { 'application/json': { schema: inputs.ref(doc.body) } },
      },
    }),
    responses,
  };
}

/** The document for `routes`; throws on two operations with one id, method and path, or name. */
export function buildOpenApiDocument(routes: readonly RouteDoc[]): OpenApiDocument {
  const inputs = new NamedSchemas('input');
  const outputs = new NamedSchemas('output');
  const paths: OpenApiDocument['paths'] = {};
  const seenIds = new Set<string>();
  for (const doc of routes) {
    if (seenIds.has(doc.operationId)) throw new Error(`operation ${doc.operationId} is twice`);
    seenIds.add(doc.operationId);
    const item = (paths[doc.path] ??= {});
    const method = doc.method.toLowerCase();
    if (item[method]) throw new Error(`${doc.method} ${doc.path} is twice`);
    item[method] = operationOf(doc, inputs, outputs);
  }
  const inputSchemas = inputs.convert();
  const outputSchemas = outputs.convert();
  for (const name of Object.keys(inputSchemas)) {
    if (outputs.has(name)) throw new Error(`${name} names a request and an answer`);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Model gateway',
      version,
      description:
        'Every route the gateway serves. Every answer carries `cf-ray`, the request id its error bodies and generation records quote. `HEAD` works wherever `GET` does; a wrong method gets 405 with `Allow`, an unknown path 404.',
    },
    servers: [{ url: '/', description: 'This gateway' }],
    tags: [...new Set(routes.map((doc) => doc.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: { ...inputSchemas, ...outputSchemas },
      securitySchemes,
      headers: {
        CfRay: {
          description: "The request's trace id: 16 hex digits, a dash, a location.",
          schema: { type: 'string', pattern: cfRayPattern.source },
        },
        RetryAfter: {
          description: 'Seconds after which a retry may succeed.',
          schema: { type: 'integer', minimum: 0 },
        },
      },
    },
  };
}
