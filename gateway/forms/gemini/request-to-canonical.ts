/** Gemini `generateContent` request → canonical request. The model comes from the path. */
import type {
  CanonicalMessage,
  CanonicalPart,
  CanonicalReasoning,
  CanonicalRequest,
  CanonicalResponseFormat,
  CanonicalToolChoice,
} from '../../canonical/model';
import { reasoningPartFrom } from '../../canonical/reasoning-signature';
import { withOptional } from '../optional-fields';
import { invalidRequest } from '../../errors';
import { isBase64 } from '../validation';
import type { GeminiContent, GeminiPart, GenerateContentRequest } from './request-schema';

/**
 * A function call keeps the id it carries (the gateway's answers give one); canonical tool calls
 * need one, so a call without gets a stable one from its position. A response whose id names a
 * call answers that call. One without an id, or with an id no call has (a client's own), answers
 * the first call of its name in the latest model turn that no response has answered yet, so two
 * calls of one function made in one turn (parallel calls) each get their own result, in order.
 */
const callId = (contentIndex: number, partIndex: number) => `call_${contentIndex}_${partIndex}`;

export function toCanonicalRequest(
  body: GenerateContentRequest,
  model: string,
  stream: boolean,
): CanonicalRequest {
  const config = body.generationConfig ?? {};
  return {
    model,
    system: systemText(body.systemInstruction),
    messages: toCanonicalMessages(body.contents),
    maxTokens: config.maxOutputTokens ?? null,
    temperature: config.temperature ?? null,
    topP: config.topP ?? null,
    stop: config.stopSequences ?? [],
    seed: config.seed ?? null,
    tools: (body.tools ?? []).flatMap((tool) =>
      (tool.functionDeclarations ?? []).map((declaration) => ({
        name: declaration.name,
        description: declaration.description,
        parameters:
          declaration.parametersJsonSchema ??
          (declaration.parameters
            ? toJsonSchema(declaration.parameters)
            : { type: 'object', properties: {} }),
      })),
    ),
    toolChoice: toCanonicalToolChoice(body.toolConfig?.functionCallingConfig),
    stream,
    ...withOptional(toCanonicalReasoning(config.thinkingConfig), toCanonicalResponseFormat(config)),
  };
}

type GenerationConfig = NonNullable<GenerateContentRequest['generationConfig']>;

/**
 * `thinkingBudget` 0 turns thinking off and -1 leaves it to the model; `thinkingLevel` (Gemini 3)
 * is an effort. Thoughts appear in the answer only with `includeThoughts`.
 * @see https://ai.google.dev/gemini-api/docs/thinking
 */
function toCanonicalReasoning(
  thinking: GenerationConfig['thinkingConfig'],
): CanonicalReasoning | null {
  if (!thinking) return null;
  const budget = thinking.thinkingBudget;
  const level = thinking.thinkingLevel?.toLowerCase();
  const effort: CanonicalReasoning['effort'] =
    budget === 0
      ? 'none'
      : level === 'minimal' || level === 'low' || level === 'medium' || level === 'high'
        ? level
        : null;
  return {
    effort,
    budgetTokens: budget !== undefined && budget > 0 ? budget : null,
    includeText: thinking.includeThoughts === true,
  };
}

/**
 * JSON when `responseMimeType` says so: matching `responseJsonSchema` (JSON Schema) or
 * `responseSchema` (the vendor's OpenAPI subset), else any JSON.
 * @see https://ai.google.dev/gemini-api/docs/structured-output
 */
function toCanonicalResponseFormat(config: GenerationConfig): CanonicalResponseFormat | null {
  if (config.responseMimeType !== 'application/json') return null;
  const schema =
    config.responseJsonSchema ??
    (config.responseSchema ? toJsonSchema(config.responseSchema) : undefined);
  if (!schema) return { type: 'json_object' };
  // The vendor always holds the answer to the schema it was given.
  return { type: 'json_schema', name: 'response', schema, strict: true };
}

export function toCanonicalMessages(contents: GeminiContent[]): CanonicalMessage[] {
  const messages: CanonicalMessage[] = [];
  const latestCallIdByName = new Map<string, string>();
  const callIds = new Set<string>();
  /** Call ids of the latest model turn not answered yet, by function name, in call order. */
  let unanswered = new Map<string, string[]>();
  contents.forEach((content, contentIndex) => {
    const role = content.role === 'model' ? 'assistant' : 'user';
    if (role === 'assistant') unanswered = new Map();
    const parts: CanonicalPart[] = [];
    const results: CanonicalPart[] = [];
    content.parts.forEach((part, partIndex) => {
      const field = `contents.${contentIndex}.parts.${partIndex}`;
      if (role === 'assistant' && (part.thought || part.thoughtSignature !== undefined)) {
        addReasoning(parts, part);
        if (part.thought) return;
      }
      const converted = toCanonicalPart(part, field);
      if (converted === null) return;
      if (converted.type === 'tool_call') {
        if (role !== 'assistant')
          throw invalidRequest(
            `Invalid field '${field}.functionCall': function calls belong in 'model' turns.`,
          );
        converted.id = part.functionCall?.id ?? callId(contentIndex, partIndex);
        latestCallIdByName.set(converted.name, converted.id);
        callIds.add(converted.id);
        unanswered.set(converted.name, [...(unanswered.get(converted.name) ?? []), converted.id]);
        parts.push(converted);
      } else if (converted.type === 'tool_result') {
        const waiting = unanswered.get(converted.name!) ?? [];
        const given = part.functionResponse?.id;
        if (given !== undefined && callIds.has(given)) {
          if (waiting.includes(given)) waiting.splice(waiting.indexOf(given), 1);
          converted.toolCallId = given;
        } else {
          converted.toolCallId =
            waiting.shift() ?? latestCallIdByName.get(converted.name!) ?? converted.name!;
        }
        results.push(converted);
      } else {
        parts.push(converted);
      }
    });
    // Function responses are their own canonical `tool` turn, ahead of any text that came with them.
    if (results.length > 0) messages.push({ role: 'tool', parts: results });
    if (parts.length > 0 || results.length === 0) messages.push({ role, parts });
  });
  return messages;
}

/**
 * Thought summaries become reasoning text; a `thoughtSignature` (which the vendor puts on the part
 * after the thoughts: a call, or text) closes the reasoning before it. Consecutive thoughts are one
 * block, as the canonical events make them.
 */
function addReasoning(parts: CanonicalPart[], part: GeminiPart): void {
  const open = parts.at(-1);
  const text = part.thought ? (part.text ?? '') : '';
  if (open?.type === 'reasoning' && open.signature === undefined && open.providerId === undefined) {
    const merged = reasoningPartFrom(open.text + text, part.thoughtSignature);
    parts[parts.length - 1] = merged;
    return;
  }
  parts.push(reasoningPartFrom(text, part.thoughtSignature));
}

function toCanonicalPart(part: GeminiPart, field: string): CanonicalPart | null {
  // Thought summaries of other turns (a user turn cannot have any) carry nothing.
  if (part.thought) return null;
  if (part.text !== undefined) return { type: 'text', text: part.text };
  if (part.inlineData) {
    if (!isBase64(part.inlineData.data)) {
      throw invalidRequest(`Invalid field '${field}.inlineData.data': the data is not base64.`);
    }
    return { type: 'image', mediaType: part.inlineData.mimeType, data: part.inlineData.data };
  }
  if (part.fileData) {
    if (!/^https?:\/\//.test(part.fileData.fileUri)) {
      throw invalidRequest(
        `Invalid field '${field}.fileData.fileUri': only http(s) file URIs can be fetched by this gateway.`,
      );
    }
    return {
      type: 'image',
      mediaType: part.fileData.mimeType ?? 'image/*',
      url: part.fileData.fileUri,
    };
  }
  if (part.functionCall) {
    return {
      type: 'tool_call',
      id: '',
      name: part.functionCall.name,
      arguments: JSON.stringify(part.functionCall.args ?? {}),
    };
  }
  if (part.functionResponse) {
    return {
      type: 'tool_result',
      toolCallId: '',
      name: part.functionResponse.name,
      content: JSON.stringify(part.functionResponse.response ?? {}),
    };
  }
  // Parts the gateway does not use (executable code, video metadata…) are dropped.
  return null;
}

function systemText(system: GenerateContentRequest['systemInstruction']): string | null {
  if (system === undefined) return null;
  const text =
    typeof system === 'string' ? system : system.parts.map((part) => part.text ?? '').join('\n\n');
  return text === '' ? null : text;
}

/**
 * The vendor's Schema is an OpenAPI subset with upper-case types (`OBJECT`, `STRING`); canonical
 * parameters are JSON Schema, whose types are lower-case. Everything else is kept as sent.
 * @see https://ai.google.dev/api/caching#Schema
 */
export function toJsonSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const converted: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(schema)) {
    if (name === 'type' && typeof value === 'string') converted.type = value.toLowerCase();
    else if (name === 'properties' && value !== null && typeof value === 'object') {
      converted.properties = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([property, inner]) => [
          property,
          inner !== null && typeof inner === 'object'
            ? toJsonSchema(inner as Record<string, unknown>)
            : inner,
        ]),
      );
    } else if (
      name === 'items' &&
      value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value)
    ) {
      converted.items = toJsonSchema(value as Record<string, unknown>);
    } else if (name === 'anyOf' && Array.isArray(value)) {
      converted.anyOf = value.map((inner: unknown) =>
        inner !== null && typeof inner === 'object'
          ? toJsonSchema(inner as Record<string, unknown>)
          : inner,
      );
    } else converted[name] = value;
  }
  return converted;
}

/**
 * `ANY` with exactly one allowed function forces that function; otherwise `ANY` is "some tool".
 * @see https://ai.google.dev/api/caching#FunctionCallingConfig
 */
function toCanonicalToolChoice(
  config: NonNullable<GenerateContentRequest['toolConfig']>['functionCallingConfig'],
): CanonicalToolChoice {
  switch (config?.mode) {
    case 'ANY': {
      const allowed = config.allowedFunctionNames ?? [];
      return allowed.length === 1 ? { name: allowed[0]! } : 'required';
    }
    case 'NONE':
      return 'none';
    case 'AUTO':
    case 'VALIDATED':
    case 'MODE_UNSPECIFIED':
    default:
      return 'auto';
  }
}
