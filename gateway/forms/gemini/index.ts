/** The Gemini form (vendor B) as one object (see public-form.ts). The model and mode are in the path. */
import { unmappedFields, type PublicForm } from '../public-form';
import { objectArgumentsCheck } from '../tool-arguments';
import { parseBody } from '../validation';
import { geminiErrorBody } from './error-shape';
import { toCanonicalRequest } from './request-to-canonical';
import { generateContentRequestSchema } from './request-schema';
import { toGenerateContentResponse } from './canonical-to-response';
import { writeGeminiStream } from './canonical-to-stream';

const MAPPED = new Set([
  'contents',
  'systemInstruction',
  'generationConfig',
  'tools',
  'toolConfig',
]);
/** `generationConfig` fields the canonical request carries; others (topK, responseModalities…) do not. */
const MAPPED_GENERATION_CONFIG = new Set([
  'maxOutputTokens',
  'temperature',
  'topP',
  'stopSequences',
  'seed',
  'candidateCount',
  'thinkingConfig',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
]);

/** Top-level and nested fields (generation config, non-function tools) a canonical request lacks. */
function geminiUnmappedFields(body: Record<string, unknown>): string[] {
  const fields = unmappedFields(body, MAPPED);
  const config = body.generationConfig as Record<string, unknown> | undefined;
  if (config) {
    fields.push(
      ...unmappedFields(config, MAPPED_GENERATION_CONFIG).map(
        (field) => `generationConfig.${field}`,
      ),
    );
  }
  // A part the canonical request cannot carry (executable code, its result): the model would
  // not see it, so another kind refuses it rather than lose it.
  const carried = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse'];
  const contents = (body.contents as Array<{ parts: Array<Record<string, unknown>> }>) ?? [];
  contents.forEach((content, index) => {
    content.parts.forEach((part, partIndex) => {
      if (part.thought !== true && !carried.some((key) => part[key] !== undefined)) {
        fields.push(`contents.${index}.parts.${partIndex}`);
      }
    });
  });
  const tools = (body.tools as Array<Record<string, unknown>> | undefined) ?? [];
  tools.forEach((tool, index) => {
    fields.push(
      ...unmappedFields(tool, new Set(['functionDeclarations'])).map(
        (field) => `tools.${index}.${field}`,
      ),
    );
  });
  return fields;
}

export const geminiForm: PublicForm = {
  name: 'gemini',
  auth: 'gemini',
  toCanonical(body, target) {
    const parsed = parseBody(generateContentRequestSchema, body);
    return {
      ...toCanonicalRequest(parsed, target.model ?? '', target.stream ?? false),
      inbound: { form: 'gemini', body: parsed, unmappedFields: geminiUnmappedFields(parsed) },
    };
  },
  toResponse: (answer, meta) =>
    toGenerateContentResponse(answer, meta.model, meta.traceId, meta.keyId),
  writeStream: (response, events, meta) =>
    writeGeminiStream(response, events, {
      model: meta.model,
      traceId: meta.traceId,
      framing: meta.url.searchParams.get('alt') === 'sse' ? 'sse' : 'json_array',
      keyId: meta.keyId,
    }),
  errorBody: geminiErrorBody,
  // Its tool calls carry an object (`input` / `args`): arguments of any other kind are refused.
  answerCheck: objectArgumentsCheck,
};
