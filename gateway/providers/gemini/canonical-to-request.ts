/**
 * Canonical request → Gemini `generateContent` body. A request that came in on the Gemini form
 * goes out as the caller sent it, with only the output bound replaced; any other form is built
 * from the canonical request, dropping (and reporting) the parameters Gemini cannot take.
 * @see https://ai.google.dev/api/generate-content#request-body
 */
import type {
  CanonicalPart,
  CanonicalReasoning,
  CanonicalRequest,
  CanonicalResponseFormat,
  CanonicalToolChoice,
} from '../../canonical/model';
import { reasoningPartFrom } from '../../canonical/reasoning-signature';
import type { ModelRoute } from '../provider';
import type { ProviderConfig } from '../upstream/provider-config';
import {
  budgetForEffort,
  dropWhatCannotGo,
  parseToolArguments,
  reasoningFor,
  sameFormBody,
  stopSequencesWithin,
  unsupportedField,
} from '../upstream/request-fields';
import type {
  GeminiContent,
  GeminiPart,
  GeminiRequestBody,
  GeminiThinkingConfig,
} from './wire-schema';

/** @see https://ai.google.dev/api/generate-content#generationconfig (`stopSequences`) */
const MAX_STOP_SEQUENCES = 5;

/**
 * Gemini 3 refuses (400) a history whose function calls carry no `thoughtSignature`, and a call
 * made on another form never had one. The vendor documents this value for history it did not
 * write; it is sent on the first call of each model turn, where the vendor puts real signatures.
 * @see https://ai.google.dev/gemini-api/docs/thought-signatures (FAQ)
 */
export const FOREIGN_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

/**
 * Gemini wants an image's real type, and `image/*` (all a URL-only part can say) is not one.
 * The engine fetches image URLs first and learns their type, so this is only for a URL left over;
 * JPEG is the type most images on the web have.
 */
const UNKNOWN_IMAGE_TYPE = 'image/jpeg';

export function toGeminiBody(
  request: CanonicalRequest,
  config: ProviderConfig,
  route: ModelRoute,
): Record<string, unknown> | GeminiRequestBody {
  const same = sameFormBody(request, 'gemini');
  if (same !== null) return fromSameForm(same, request.maxTokens, config.id);
  dropWhatCannotGo(request, route, config);

  const stop = stopSequencesWithin(
    request,
    MAX_STOP_SEQUENCES,
    config,
    `Gemini takes at most ${MAX_STOP_SEQUENCES} stop sequences`,
  );
  const body: GeminiRequestBody = { contents: toContents(request, config) };
  // Gemini has no system turn: instructions from inside the conversation join the system text.
  const system = [
    request.system,
    ...request.messages
      .filter((message) => message.role === 'system')
      .map((message) =>
        message.parts.map((part) => (part.type === 'text' ? part.text : '')).join(''),
      ),
  ].filter((text): text is string => Boolean(text));
  if (system.length > 0) body.systemInstruction = { parts: [{ text: system.join('\n\n') }] };

  const generationConfig: NonNullable<GeminiRequestBody['generationConfig']> = {};
  if (request.maxTokens !== null) generationConfig.maxOutputTokens = request.maxTokens;
  if (request.temperature !== null) generationConfig.temperature = request.temperature;
  if (request.topP !== null) generationConfig.topP = request.topP;
  if (stop.length > 0) generationConfig.stopSequences = stop;
  if (request.seed !== null) generationConfig.seed = request.seed;
  const reasoning = reasoningFor(request, route);
  if (reasoning) generationConfig.thinkingConfig = toThinkingConfig(reasoning);
  if (request.responseFormat) Object.assign(generationConfig, toJsonOutput(request.responseFormat));
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;

  if (request.tools.length > 0) {
    body.tools = [
      {
        functionDeclarations: request.tools.map((tool) => ({
          name: tool.name,
          ...(tool.description !== undefined ? { description: tool.description } : {}),
          parametersJsonSchema: tool.parameters,
        })),
      },
    ];
  }
  if (request.tools.length > 0 || request.toolChoice !== 'auto') {
    body.toolConfig = { functionCallingConfig: toFunctionCallingConfig(request.toolChoice) };
  }
  return body;
}

/**
 * Thinking as a budget, which Gemini 2.5 and 3 both take (3 maps it to its levels): the one
 * given, else one for the effort; 0 turns thinking off where the model allows it.
 * @see https://ai.google.dev/gemini-api/docs/thinking#set-budget
 */
function toThinkingConfig(reasoning: CanonicalReasoning): GeminiThinkingConfig {
  const config: GeminiThinkingConfig = { includeThoughts: reasoning.includeText };
  if (reasoning.budgetTokens !== null) config.thinkingBudget = reasoning.budgetTokens;
  else if (reasoning.effort !== null) config.thinkingBudget = budgetForEffort(reasoning.effort);
  return config;
}

/** @see https://ai.google.dev/gemini-api/docs/structured-output */
function toJsonOutput(format: CanonicalResponseFormat): {
  responseMimeType: string;
  responseJsonSchema?: Record<string, unknown>;
} {
  return {
    responseMimeType: 'application/json',
    ...(format.type === 'json_schema' && { responseJsonSchema: format.schema }),
  };
}

/**
 * The caller's own body: safety settings, non-function tools, cached content and the rest of the
 * generation config reach the vendor unchanged. The model is in the URL, so a `model` field
 * (which the vendor binds to the path) is not sent. Thought signatures go back opened, and only
 * to the provider that made them.
 */
function fromSameForm(
  inbound: Record<string, unknown>,
  maxTokens: number | null,
  providerId: string,
): Record<string, unknown> {
  const body: Record<string, unknown> = { ...inbound };
  delete body.model;
  // A conversation from another provider (or one whose signatures were lost) has calls without a
  // signature; Gemini 3 refuses such history unless the first call of a model turn without any
  // signature says it is to be skipped (as for history written elsewhere).
  if (Array.isArray(body.contents)) {
    body.contents = body.contents.map((content: unknown) =>
      withSignedFirstCall(withOwnSignatures(content, providerId)),
    );
  }
  // A same-form request keeps its thinkingConfig even for a model whose providers-file entry does
  // not list `reasoning`: the entry may be incomplete, and the upstream itself decides.
  if (maxTokens === null) return body;
  const generationConfig = isRecord(body.generationConfig) ? body.generationConfig : {};
  return { ...body, generationConfig: { ...generationConfig, maxOutputTokens: maxTokens } };
}

/** Opens this provider's sealed signatures and takes away every other one. */
function withOwnSignatures(content: unknown, providerId: string): unknown {
  if (!isRecord(content) || !Array.isArray(content.parts)) return content;
  return {
    ...content,
    parts: content.parts.map((part: unknown) => {
      if (!isRecord(part) || typeof part.thoughtSignature !== 'string') return part;
      const opened = reasoningPartFrom('', part.thoughtSignature);
      const { thoughtSignature: _sealed, ...rest } = part;
      return opened.providerId === providerId && opened.signature !== undefined
        ? { ...rest, thoughtSignature: opened.signature }
        : rest;
    }),
  };
}

function withSignedFirstCall(content: unknown): unknown {
  if (!isRecord(content) || content.role !== 'model' || !Array.isArray(content.parts))
    return content;
  const parts = content.parts as unknown[];
  const first = parts.findIndex((part) => isRecord(part) && isRecord(part.functionCall));
  if (first === -1) return content;
  const call = parts[first] as Record<string, unknown>;
  // A turn that carries a signature anywhere came from Gemini itself: leave it exactly as it is.
  if (parts.some((part) => isRecord(part) && typeof part.thoughtSignature === 'string'))
    return content;
  const signed = [...parts];
  signed[first] = { ...call, thoughtSignature: FOREIGN_THOUGHT_SIGNATURE };
  return { ...content, parts: signed };
}

/**
 * Canonical messages → contents. Tool results are `user` turns; turns of the same role in a row
 * are merged, since the vendor expects the roles to alternate.
 */
function toContents(request: CanonicalRequest, config: ProviderConfig): GeminiContent[] {
  const contents: GeminiContent[] = [];
  // Gemini matches a function response to its call by id where both have one, else by name;
  // canonical results may carry only the call's id, so names are looked up from earlier calls.
  const callNames = new Map<string, string>();
  for (const message of request.messages) {
    if (message.role === 'system') continue;
    const role = message.role === 'assistant' ? 'model' : 'user';
    const parts: GeminiPart[] = [];
    // This provider's signature rides on the part after its reasoning, where the vendor put it.
    let signature: string | undefined;
    for (const part of message.parts) {
      if (part.type === 'reasoning') {
        if (part.providerId === config.id && part.signature !== undefined)
          signature = part.signature;
        continue;
      }
      const converted = toPart(part, callNames, config);
      if (converted === null) continue;
      if (signature !== undefined && ('functionCall' in converted || 'text' in converted)) {
        parts.push({ ...converted, thoughtSignature: signature });
        signature = undefined;
      } else parts.push(converted);
    }
    // The vendor refuses a content without parts (an assistant turn that said nothing).
    if (parts.length === 0) continue;
    const previous = contents.at(-1);
    if (previous?.role === role) previous.parts.push(...parts);
    else contents.push({ role, parts });
  }
  for (const content of contents) {
    if (content.role !== 'model') continue;
    if (content.parts.some((part) => 'thoughtSignature' in part)) continue;
    const first = content.parts.findIndex((part) => 'functionCall' in part);
    const call = content.parts[first];
    if (call && 'functionCall' in call) {
      content.parts[first] = { ...call, thoughtSignature: FOREIGN_THOUGHT_SIGNATURE };
    }
  }
  return contents;
}

function toPart(
  part: CanonicalPart,
  callNames: Map<string, string>,
  config: ProviderConfig,
): GeminiPart | null {
  switch (part.type) {
    case 'text':
      // The vendor refuses an empty text part.
      return part.text === '' ? null : { text: part.text };
    case 'image': {
      const mimeType =
        part.mediaType && !part.mediaType.endsWith('/*') ? part.mediaType : UNKNOWN_IMAGE_TYPE;
      if (part.data) return { inlineData: { mimeType, data: part.data } };
      if (part.url) return { fileData: { mimeType, fileUri: part.url } };
      return null;
    }
    // Ids go along where a call has one and a result answers a call made before it.
    // @see https://ai.google.dev/api/caching#FunctionCall
    case 'tool_call':
      callNames.set(part.id, part.name);
      return {
        functionCall: {
          name: part.name,
          args: parseToolArguments(part.arguments),
          ...(part.id !== '' && { id: part.id }),
        },
      };
    case 'tool_result': {
      const name = part.name ?? callNames.get(part.toolCallId);
      if (name === undefined) {
        throw unsupportedField('messages', config, 'a tool result names no function');
      }
      return {
        functionResponse: {
          name,
          response: toFunctionResponse(part),
          ...(callNames.has(part.toolCallId) && { id: part.toolCallId }),
        },
      };
    }
    case 'reasoning':
      // Its signature is placed by toContents; the thought text itself is not sent back.
      return null;
  }
}

/**
 * The vendor wants a JSON object: a result that is one goes as is, other text is wrapped. A failed
 * call's result goes under `error`, the key the vendor reads as the function having failed.
 * @see https://ai.google.dev/api/caching#FunctionResponse
 */
function toFunctionResponse(
  part: Extract<CanonicalPart, { type: 'tool_result' }>,
): Record<string, unknown> {
  const object = jsonObject(part.content);
  if (part.isError) return { error: object ?? part.content };
  return object ?? { content: part.content };
}

/**
 * `ANY` makes the model call a function; with one allowed name, that function.
 * @see https://ai.google.dev/api/caching#FunctionCallingConfig
 */
function toFunctionCallingConfig(
  choice: CanonicalToolChoice,
): NonNullable<GeminiRequestBody['toolConfig']>['functionCallingConfig'] {
  if (typeof choice === 'object') return { mode: 'ANY', allowedFunctionNames: [choice.name] };
  switch (choice) {
    case 'none':
      return { mode: 'NONE' };
    case 'required':
      return { mode: 'ANY' };
    case 'auto':
    default:
      return { mode: 'AUTO' };
  }
}

function jsonObject(text: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
