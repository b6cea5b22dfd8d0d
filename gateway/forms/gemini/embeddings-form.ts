/**
 * The Gemini form's embeddings: `models/{model}:embedContent` with one `content` (answered with
 * one `embedding`) or, as newer clients send it, a `contents` array (answered with `embeddings`),
 * and `:batchEmbedContents` with its `requests` (each one content). A content's text parts are
 * embedded as one text. `@google/genai`'s `models.embedContent` calls `:batchEmbedContents`.
 * `taskType` and `title` are accepted; they change nothing here.
 * @see https://ai.google.dev/api/embeddings
 */
import { z } from 'zod';
import { invalidRequest } from '../../errors';
import type { EmbeddingForm } from '../embedding-form';
import { MAX_EMBEDDING_INPUTS } from '../openai/embeddings-form';
import { parseBody } from '../validation';
import { geminiErrorBody } from './error-shape';

const content = z.looseObject({
  parts: z.array(z.looseObject({ text: z.string().optional() })).min(1),
});
type Content = z.infer<typeof content>;

const dimensions = z.number().int().positive().optional();

export const embedContentSchema = z.looseObject({
  content: content.optional(),
  contents: z.array(content).min(1).max(MAX_EMBEDDING_INPUTS).optional(),
  outputDimensionality: dimensions,
});

export const batchEmbedContentsSchema = z.looseObject({
  requests: z
    .array(z.looseObject({ content, outputDimensionality: dimensions }))
    .min(1)
    .max(MAX_EMBEDDING_INPUTS),
});

const embeddingValues = z.object({ values: z.array(z.number()) });

/** What `toResponse` writes: one `embedding` for one `content`, else `embeddings`. */
export const embedContentResponseSchema = z.union([
  z.object({ embedding: embeddingValues }),
  z.object({ embeddings: z.array(embeddingValues) }),
]);

/** A content's text parts as one text; a part with no text (an image, a file) cannot be embedded here. */
function textOf(item: Content, field: string): string {
  const texts = item.parts.map((part, index) => {
    if (part.text === undefined)
      throw invalidRequest(
        `Invalid field '${field}.parts.${index}': only text parts can be embedded.`,
      );
    return part.text;
  });
  const joined = texts.join('\n');
  if (joined === '') throw invalidRequest(`Invalid field '${field}': the text must not be empty.`);
  return joined;
}

export const geminiEmbeddingsForm: EmbeddingForm = {
  name: 'gemini',
  auth: 'gemini',
  toCanonical(body, target) {
    if (target.method === 'batchEmbedContents') {
      const parsed = parseBody(batchEmbedContentsSchema, body);
      const asked = new Set(parsed.requests.map((request) => request.outputDimensionality ?? null));
      if (asked.size > 1)
        throw invalidRequest(
          "Invalid field 'requests': give every request the same outputDimensionality.",
        );
      return {
        model: target.model!,
        inputs: parsed.requests.map((request, index) =>
          textOf(request.content, `requests.${index}.content`),
        ),
        dimensions: [...asked][0] ?? null,
        inbound: { form: 'gemini', body: parsed },
      };
    }
    const parsed = parseBody(embedContentSchema, body);
    const contents = parsed.contents ?? (parsed.content ? [parsed.content] : []);
    if (contents.length === 0 || (parsed.content && parsed.contents))
      throw invalidRequest("Invalid field 'content': give one content, or several as contents.");
    return {
      model: target.model!,
      inputs: contents.map((item, index) =>
        textOf(item, parsed.contents ? `contents.${index}` : 'content'),
      ),
      dimensions: parsed.outputDimensionality ?? null,
      inbound: { form: 'gemini', body: parsed },
    };
  },
  toResponse(answer, target): z.output<typeof embedContentResponseSchema> {
    const embeddings = answer.vectors.map((values) => ({ values }));
    // One `content` gets one `embedding`; several, and every batch, get `embeddings`.
    if (target.method === 'embedContent' && answer.request.inbound?.body.content !== undefined)
      return { embedding: embeddings[0]! };
    return { embeddings };
  },
  errorBody: geminiErrorBody,
};
