/**
 * The Gemini API's wire shapes, as far as this provider reads or writes them. Answers are parsed
 * leniently (loose objects, only the fields used) so that fields the vendor adds later pass by
 * without breaking a reply; what goes out is typed, not parsed.
 * @see https://ai.google.dev/api/generate-content
 */
import { z } from 'zod';
import { reportedCount } from '../upstream/reported-count';

/** One part of an outgoing content. Same-form bodies may carry more (thoughtSignature, code…). */
export type GeminiPart =
  | { text: string; thoughtSignature?: string }
  | { inlineData: { mimeType: string; data: string } }
  | { fileData: { mimeType: string; fileUri: string } }
  | {
      functionCall: { name: string; args: Record<string, unknown>; id?: string };
      /** See `canonical-to-request.ts`: history from another form carries no real signature. */
      thoughtSignature?: string;
    }
  | { functionResponse: { name: string; response: Record<string, unknown>; id?: string } };

export type GeminiContent = { role: 'user' | 'model'; parts: GeminiPart[] };

/** @see https://ai.google.dev/api/generate-content#ThinkingConfig */
export type GeminiThinkingConfig = { includeThoughts: boolean; thinkingBudget?: number };

/** The `generateContent` body built from a canonical request of another form. */
export type GeminiRequestBody = {
  systemInstruction?: { parts: Array<{ text: string }> };
  contents: GeminiContent[];
  generationConfig?: {
    maxOutputTokens?: number;
    temperature?: number;
    topP?: number;
    stopSequences?: string[];
    seed?: number;
    thinkingConfig?: GeminiThinkingConfig;
    responseMimeType?: string;
    responseJsonSchema?: Record<string, unknown>;
  };
  tools?: Array<{
    functionDeclarations: Array<{
      name: string;
      description?: string;
      /** Takes JSON Schema as the caller wrote it, unlike `parameters` (an OpenAPI subset). */
      parametersJsonSchema: Record<string, unknown>;
    }>;
  }>;
  toolConfig?: {
    functionCallingConfig: {
      mode: 'AUTO' | 'ANY' | 'NONE';
      allowedFunctionNames?: string[];
    };
  };
};

const responsePart = z.looseObject({
  text: z.string().optional(),
  /** A thought summary (with `includeThoughts`), not part of the answer. */
  thought: z.boolean().optional(),
  /** What the model needs to see its reasoning again on a later turn (on any kind of part). */
  thoughtSignature: z.string().optional(),
  functionCall: z
    .looseObject({
      id: z.string().optional(),
      name: z.string(),
      args: z.record(z.string(), z.unknown()).nullish(),
    })
    .optional(),
});

const candidate = z.looseObject({
  // A candidate stopped by a filter may come without content, or with content and no parts.
  content: z.looseObject({ parts: z.array(responsePart).optional() }).optional(),
  finishReason: z.string().optional(),
});

/** @see https://ai.google.dev/api/generate-content#UsageMetadata */
export const usageMetadataSchema = z.looseObject({
  promptTokenCount: reportedCount,
  /** Of the prompt, the tokens read from cached content (billed at the cache price). */
  cachedContentTokenCount: reportedCount,
  candidatesTokenCount: reportedCount,
  /** Thinking tokens: billed as output, but not counted in `candidatesTokenCount`. */
  thoughtsTokenCount: reportedCount,
});

/**
 * A whole answer, and also each streamed chunk (the stream sends whole responses, one per event).
 * @see https://ai.google.dev/api/generate-content#generatecontentresponse
 */
export const generateContentResponseSchema = z.looseObject({
  candidates: z.array(candidate).optional(),
  promptFeedback: z.looseObject({ blockReason: z.string().optional() }).optional(),
  // Usage the gateway cannot read is unreported, not a broken answer (reported-count.ts).
  usageMetadata: usageMetadataSchema.nullish().catch(null),
});

/**
 * The vendor's error body (google.rpc.Status), as a whole error answer and as an in-stream event.
 * @see https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
 */
export const errorBodySchema = z.looseObject({
  error: z.looseObject({
    code: z.number().optional(),
    message: z.string().optional(),
    status: z.string().optional(),
  }),
});

export type GenerateContentResponse = z.infer<typeof generateContentResponseSchema>;
export type UsageMetadata = z.infer<typeof usageMetadataSchema>;
export type ResponsePart = z.infer<typeof responsePart>;
