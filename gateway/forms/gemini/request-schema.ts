/**
 * The Gemini `generateContent` request as the gateway accepts it. Only the fields the gateway
 * uses are described; others (`safetySettings`, `cachedContent`…) are kept and
 * ignored, so newer clients that send more still work.
 * @see https://ai.google.dev/api/generate-content#request-body
 */
import { z } from 'zod';

/** Values that are the caller's own data, kept exactly as sent (no key renaming inside). */
const OPAQUE_FIELDS = new Set([
  'args',
  'response',
  'parametersJsonSchema',
  'responseJsonSchema',
  'labels',
  'example',
  'default',
]);

const snakeToCamel = (name: string) =>
  name.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());

/**
 * The vendor's REST API is proto JSON: it takes `system_instruction` and `inline_data` (its
 * documentation's curl examples) as well as `systemInstruction` and `inlineData` (its clients).
 * Field names become camelCase here, except inside the caller's own data, and the names of
 * schema `properties`, which are the caller's too.
 * @see https://protobuf.dev/programming-guides/json/
 */
export function camelizeFieldNames(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelizeFieldNames);
  if (value === null || typeof value !== 'object') return value;
  const renamed: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value)) {
    const camel = snakeToCamel(name);
    if (OPAQUE_FIELDS.has(camel)) renamed[camel] = inner;
    else if (
      camel === 'properties' &&
      inner !== null &&
      typeof inner === 'object' &&
      !Array.isArray(inner)
    ) {
      renamed[camel] = Object.fromEntries(
        Object.entries(inner).map(([property, schema]) => [property, camelizeFieldNames(schema)]),
      );
    } else renamed[camel] = camelizeFieldNames(inner);
  }
  return renamed;
}

const part = z.looseObject({
  text: z.string().optional(),
  inlineData: z.looseObject({ mimeType: z.string().min(1), data: z.string().min(1) }).optional(),
  fileData: z
    .looseObject({ mimeType: z.string().optional(), fileUri: z.string().min(1) })
    .optional(),
  functionCall: z
    .looseObject({
      id: z.string().optional(),
      name: z.string().min(1),
      args: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  functionResponse: z
    .looseObject({
      id: z.string().optional(),
      name: z.string().min(1),
      response: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  thought: z.boolean().optional(),
  /** What the model needs to see its reasoning again: on a thought, a call or a text part. */
  thoughtSignature: z.string().optional(),
});

const content = z.looseObject({
  // The vendor's old `function` role carried function responses; it reads as a user turn.
  role: z.enum(['user', 'model', 'function']).optional(),
  parts: z.array(part),
});

const functionDeclaration = z.looseObject({
  name: z.string().min(1),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
  parametersJsonSchema: z.record(z.string(), z.unknown()).optional(),
});

const generateContentRequestObject = z.looseObject({
  contents: z.array(content).min(1),
  systemInstruction: z.union([z.string(), content]).optional(),
  generationConfig: z
    .looseObject({
      maxOutputTokens: z.number().int().positive().optional(),
      temperature: z.number().min(0).max(2).optional(),
      topP: z.number().min(0).max(1).optional(),
      topK: z.number().optional(),
      stopSequences: z.array(z.string()).max(5).optional(),
      seed: z.number().int().optional(),
      candidateCount: z.literal(1, { message: 'only one candidate is supported' }).optional(),
      /** @see https://ai.google.dev/gemini-api/docs/thinking */
      thinkingConfig: z
        .looseObject({
          includeThoughts: z.boolean().optional(),
          thinkingBudget: z.number().int().min(-1).optional(),
          thinkingLevel: z.string().optional(),
        })
        .optional(),
      /** @see https://ai.google.dev/gemini-api/docs/structured-output */
      responseMimeType: z.string().optional(),
      responseSchema: z.record(z.string(), z.unknown()).optional(),
      responseJsonSchema: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  // Tools other than functions (code execution, search) are kept and ignored.
  tools: z
    .array(z.looseObject({ functionDeclarations: z.array(functionDeclaration).optional() }))
    .optional(),
  toolConfig: z
    .looseObject({
      functionCallingConfig: z
        .looseObject({
          mode: z.enum(['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED']).optional(),
          allowedFunctionNames: z.array(z.string()).optional(),
        })
        .optional(),
    })
    .optional(),
});

export const generateContentRequestSchema = z.preprocess(
  camelizeFieldNames,
  generateContentRequestObject,
);

/**
 * `countTokens` takes either `contents` or a whole `generateContentRequest`.
 * @see https://ai.google.dev/api/tokens#method:-models.counttokens
 */
export const countTokensRequestSchema = z.preprocess(
  camelizeFieldNames,
  z.looseObject({
    contents: z.array(content).optional(),
    generateContentRequest: generateContentRequestObject.optional(),
  }),
);

export type GenerateContentRequest = z.infer<typeof generateContentRequestObject>;
export type GeminiContent = z.infer<typeof content>;
export type GeminiPart = z.infer<typeof part>;
