/** The chat-completion form as one object (see public-form.ts). */
import { unmappedFields, type PublicForm } from '../public-form';
import { bodyRouting, withoutRouting } from '../request-routing';
import { parseBody } from '../validation';
import { chatErrorBody } from './error-shape';
import { toCanonicalRequest } from './request-to-canonical';
import { chatCompletionRequestSchema, type ChatCompletionRequest } from './request-schema';
import { toChatCompletion } from './canonical-to-response';
import { writeChatCompletionStream } from './canonical-to-stream';

/**
 * The fields the canonical request carries, and those that change nothing about the answer
 * (`user`, `store`, usage options the gateway always honours). Anything else (`logprobs`, `n`…) reaches an OpenAI-compatible upstream only.
 */
const MAPPED = new Set([
  'model',
  'messages',
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'stop',
  'seed',
  'tools',
  'tool_choice',
  'stream',
  'stream_options',
  'reasoning_effort',
  'reasoning',
  'response_format',
  'user',
  'store',
  'provider',
  'models',
  'cache_control',
  'prompt_cache_key',
]);

/**
 * Where the client put `cache_control`: on text parts (and the request) the canonical request
 * carries it, on an image part it does not.
 */
function cacheControlFields(body: ChatCompletionRequest) {
  const carried = body.cache_control ? ['cache_control'] : [];
  const unmapped: string[] = [];
  body.messages.forEach((message, index) => {
    if (!Array.isArray(message.content)) return;
    message.content.forEach((part, partIndex) => {
      if (!(part as { cache_control?: unknown }).cache_control) return;
      const path = `messages.${index}.content.${partIndex}.cache_control`;
      (part.type === 'text' ? carried : unmapped).push(path);
    });
  });
  return { carried, unmapped };
}

export const chatCompletionsForm: PublicForm = {
  name: 'chat_completions',
  auth: 'chat_completions',
  toCanonical(body) {
    const parsed = parseBody(chatCompletionRequestSchema, body);
    const cache = cacheControlFields(parsed);
    return {
      ...toCanonicalRequest(parsed),
      ...bodyRouting(parsed),
      inbound: {
        form: 'chat_completions',
        body: withoutRouting(parsed),
        unmappedFields: [...unmappedFields(parsed, MAPPED), ...cache.unmapped],
        ...(cache.carried.length > 0 && { cacheFields: cache.carried }),
      },
    };
  },
  toResponse: (answer, meta) => toChatCompletion(answer, meta.model, meta.traceId, meta.created),
  writeStream: (response, events, meta) =>
    writeChatCompletionStream(response, events, {
      model: meta.model,
      traceId: meta.traceId,
      created: meta.created,
      includeUsage:
        (meta.request.inbound?.body.stream_options as { include_usage?: boolean } | undefined)
          ?.include_usage === true,
    }),
  errorBody: chatErrorBody,
};
