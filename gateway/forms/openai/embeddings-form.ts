/**
 * OpenAI's embeddings form, `POST /v1/embeddings`: `input` as a string, strings, token ids or
 * arrays of token ids (at most 2,048 inputs, as OpenAI takes), and the vectors back as floats or
 * as base64 of little-endian float32, as OpenAI encodes them. Errors in the gateway's own shape,
 * as the chat-completion form writes them.
 * @see https://platform.openai.com/docs/api-reference/embeddings/create
 */
import { z } from 'zod';
import type { EmbeddingForm } from '../embedding-form';
import { parseBody } from '../validation';
import { chatErrorBody } from './error-shape';

/** OpenAI's bound on inputs per request; the gateway splits for upstreams that take fewer. */
export const MAX_EMBEDDING_INPUTS = 2_048;

const text = z.string().min(1, { message: 'an input must not be empty' });
const tokenIds = z.array(z.number().int().min(0)).min(1, { message: 'an input must not be empty' });

export const embeddingsRequestSchema = z.looseObject({
  model: z.string().min(1),
  input: z.union([
    text,
    z.array(text).min(1).max(MAX_EMBEDDING_INPUTS),
    tokenIds,
    z.array(tokenIds).min(1).max(MAX_EMBEDDING_INPUTS),
  ]),
  dimensions: z.number().int().positive().optional(),
  encoding_format: z.enum(['float', 'base64']).optional(),
  user: z.string().optional(),
});

/** The answer `toResponse` writes; the OpenAPI document describes it with this. */
export const embeddingsResponseSchema = z.object({
  object: z.literal('list'),
  data: z.array(
    z.object({
      object: z.literal('embedding'),
      index: z.number().int(),
      embedding: z
        .union([z.array(z.number()), z.string()])
        .describe("Floats, or with encoding_format 'base64' little-endian float32 in base64."),
    }),
  ),
  model: z.string(),
  usage: z.object({
    prompt_tokens: z.number().int(),
    total_tokens: z.number().int(),
    cost: z.number().describe("The gateway's charge for the request, in USD."),
  }),
});

/** The vector as OpenAI's `base64` encoding has it: little-endian float32, whatever the machine. */
export function toBase64Floats(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => bytes.writeFloatLE(value, index * 4));
  return bytes.toString('base64');
}

export const embeddingsForm: EmbeddingForm = {
  name: 'embeddings',
  auth: 'chat_completions',
  toCanonical(body) {
    const parsed = parseBody(embeddingsRequestSchema, body);
    const { input } = parsed;
    // One string, or one array of token ids, is one input.
    const inputs =
      typeof input === 'string' || typeof input[0] === 'number'
        ? [input as string | number[]]
        : (input as string[] | number[][]);
    return {
      model: parsed.model,
      inputs,
      dimensions: parsed.dimensions ?? null,
      ...(parsed.user !== undefined && { user: parsed.user }),
      inbound: { form: 'embeddings', body: parsed },
    };
  },
  toResponse(answer): z.output<typeof embeddingsResponseSchema> {
    const base64 = answer.request.inbound?.body.encoding_format === 'base64';
    return {
      object: 'list',
      data: answer.vectors.map((vector, index) => ({
        object: 'embedding' as const,
        index,
        embedding: base64 ? toBase64Floats(vector) : vector,
      })),
      model: answer.model,
      usage: {
        prompt_tokens: answer.promptTokens,
        total_tokens: answer.promptTokens,
        cost: answer.costUsd,
      },
    };
  },
  errorBody: chatErrorBody,
};
