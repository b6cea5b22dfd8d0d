/** Chat-completion request → canonical request. */
import type {
  CanonicalCacheControl,
  CanonicalMessage,
  CanonicalPart,
  CanonicalReasoning,
  CanonicalRequest,
  CanonicalResponseFormat,
  CanonicalToolChoice,
} from '../../canonical/model';
import { invalidRequest } from '../../errors';
import { reasoningPartFrom } from '../../canonical/reasoning-signature';
import { withOptional } from '../optional-fields';
import { isBase64 } from '../validation';
import type { ChatCompletionRequest } from './request-schema';

type WireCacheControl = { ttl?: '5m' | '1h' | null } | null | undefined;
type TextOrParts =
  | string
  | Array<{ type: string; text?: string; cache_control?: WireCacheControl }>
  | null
  | undefined;

/** A `cache_control` as the canonical breakpoint; undefined when there is none. */
const cacheControlOf = (value: WireCacheControl): CanonicalCacheControl | undefined =>
  value ? (value.ttl ? { ttl: value.ttl } : {}) : undefined;

/** `cacheControl` for spreading into a part: present only when the client set one. */
const withCache = (value: WireCacheControl) => {
  const cacheControl = cacheControlOf(value);
  return cacheControl ? { cacheControl } : {};
};

/** The text parts of a content, each with its breakpoint; a string is one part. */
const textBlocks = (content: TextOrParts) =>
  typeof content === 'string'
    ? [{ text: content }]
    : (content ?? []).flatMap((part) =>
        part.type === 'text' ? [{ text: part.text ?? '', ...withCache(part.cache_control) }] : [],
      );

const hasBreakpoint = (content: TextOrParts) =>
  Array.isArray(content) && content.some((part) => part.cache_control);

const joinText = (content: TextOrParts) =>
  typeof content === 'string'
    ? content
    : (content ?? []).map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('');

/** `data:image/png;base64,AAAA` → its media type and base64 data; any other URL stays a URL. */
export function imagePartFromUrl(url: string, field: string): CanonicalPart {
  if (url.startsWith('data:')) {
    const match = /^data:([\w.+-]+\/[\w.+-]+);base64,([A-Za-z0-9+/=\s]+)$/.exec(url);
    const data = match?.[2]!.replace(/\s/g, '') ?? '';
    if (!match || !isBase64(data))
      throw invalidRequest(
        `Invalid field '${field}': an image data URL must be data:<type>;base64,<data>.`,
      );
    return { type: 'image', mediaType: match[1]!, data };
  }
  if (!/^https?:\/\//.test(url))
    throw invalidRequest(`Invalid field '${field}': an image URL must be http(s) or a data URL.`);
  return { type: 'image', mediaType: 'image/*', url };
}

export function toCanonicalRequest(body: ChatCompletionRequest): CanonicalRequest {
  const system: string[] = [];
  // Kept apart only for a provider that takes cache breakpoints on system blocks.
  const systemBlocks: NonNullable<CanonicalRequest['systemBlocks']> = [];
  const messages: CanonicalMessage[] = [];
  const toolNames = new Map<string, string>();

  body.messages.forEach((message, index) => {
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(joinText(message.content));
        systemBlocks.push(...textBlocks(message.content));
        break;
      case 'user': {
        const parts: CanonicalPart[] =
          typeof message.content === 'string'
            ? [{ type: 'text', text: message.content }]
            : message.content.map((part, partIndex) =>
                part.type === 'text'
                  ? { type: 'text', text: part.text, ...withCache(part.cache_control) }
                  : imagePartFromUrl(
                      typeof part.image_url === 'string' ? part.image_url : part.image_url.url,
                      `messages.${index}.content.${partIndex}.image_url`,
                    ),
              );
        messages.push({ role: 'user', parts });
        break;
      }
      case 'assistant': {
        const parts: CanonicalPart[] = reasoningParts(message.reasoning_details ?? []);
        // Parts stay apart where one carries a breakpoint, so it stays where the client put it.
        if (hasBreakpoint(message.content)) {
          for (const block of textBlocks(message.content))
            if (block.text) parts.push({ type: 'text', ...block });
        } else {
          const text = joinText(message.content);
          if (text) parts.push({ type: 'text', text });
        }
        for (const call of message.tool_calls ?? []) {
          toolNames.set(call.id, call.function.name);
          parts.push({
            type: 'tool_call',
            id: call.id,
            name: call.function.name,
            arguments: call.function.arguments,
          });
        }
        messages.push({ role: 'assistant', parts });
        break;
      }
      case 'tool':
        messages.push({
          role: 'tool',
          parts: [
            {
              type: 'tool_result',
              toolCallId: message.tool_call_id,
              name: toolNames.get(message.tool_call_id),
              content: joinText(message.content),
              // A breakpoint on any of its parts marks the result, as OpenRouter places it.
              ...withCache(
                textBlocks(message.content).findLast((block) => block.cacheControl)?.cacheControl,
              ),
            },
          ],
        });
        break;
    }
  });

  const choice = body.tool_choice;
  const toolChoice: CanonicalToolChoice =
    choice == null ? 'auto' : typeof choice === 'string' ? choice : { name: choice.function.name };

  return {
    model: body.model,
    system: system.length > 0 ? system.join('\n\n') : null,
    messages,
    maxTokens: body.max_completion_tokens ?? body.max_tokens ?? null,
    temperature: body.temperature ?? null,
    topP: body.top_p ?? null,
    stop: body.stop == null ? [] : typeof body.stop === 'string' ? [body.stop] : body.stop,
    seed: body.seed ?? null,
    tools: (body.tools ?? []).map((tool) => ({
      name: tool.function.name,
      description: tool.function.description,
      parameters: tool.function.parameters ?? { type: 'object', properties: {} },
    })),
    toolChoice,
    stream: body.stream ?? false,
    ...withOptional(toCanonicalReasoning(body), toCanonicalResponseFormat(body.response_format)),
    ...(systemBlocks.some((block) => block.cacheControl) && { systemBlocks }),
    ...withCache(body.cache_control),
    ...(body.prompt_cache_key != null && { promptCacheKey: body.prompt_cache_key }),
  };
}

/**
 * OpenRouter's `reasoning_details` → reasoning parts: the entries of one `index` are one block
 * (a stream sends a block in pieces), its signature or encrypted data opened for its provider.
 */
function reasoningParts(
  details: NonNullable<
    Extract<ChatCompletionRequest['messages'][number], { role: 'assistant' }>['reasoning_details']
  >,
): CanonicalPart[] {
  const blocks = new Map<number, { text: string; signature?: string; encrypted?: string }>();
  details.forEach((detail, position) => {
    const index = detail.index ?? position;
    const block = blocks.get(index) ?? { text: '' };
    blocks.set(index, block);
    if (detail.type === 'reasoning.text') block.text += detail.text ?? '';
    if (detail.signature) block.signature = detail.signature;
    if (detail.type === 'reasoning.encrypted' && detail.data) block.encrypted = detail.data;
  });
  return [...blocks.values()].map((block) =>
    reasoningPartFrom(block.text, block.signature, block.encrypted),
  );
}

/**
 * OpenAI's `reasoning_effort`, or OpenRouter's `reasoning` object (which wins where both are
 * given: it says more). `enabled: false` is effort `none`.
 * @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-reasoning_effort
 * @see https://openrouter.ai/docs/use-cases/reasoning-tokens
 */
function toCanonicalReasoning(body: ChatCompletionRequest): CanonicalReasoning | null {
  const object = body.reasoning;
  if (object) {
    return {
      effort: object.enabled === false ? 'none' : (object.effort ?? body.reasoning_effort ?? null),
      budgetTokens: object.max_tokens ?? null,
      includeText: object.exclude !== true,
    };
  }
  if (body.reasoning_effort)
    return { effort: body.reasoning_effort, budgetTokens: null, includeText: true };
  return null;
}

/** @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-response_format */
export function toCanonicalResponseFormat(
  format: ChatCompletionRequest['response_format'],
): CanonicalResponseFormat | null {
  switch (format?.type) {
    case 'json_object':
      return { type: 'json_object' };
    case 'json_schema':
      return {
        type: 'json_schema',
        name: format.json_schema.name,
        schema: format.json_schema.schema ?? { type: 'object' },
        strict: format.json_schema.strict === true,
      };
    default:
      return null;
  }
}
