/**
 * Canonical request → chat-completions request body. A request that arrived on the
 * chat-completions form is passed on as the client sent it, with only the gateway's own fields
 * replaced, so fields the gateway does not model (`response_format`, `logprobs`…) still reach the
 * server; `n` above 1 is the exception (see `refuseSeveralChoices`). A request from another form
 * is built from the canonical fields; what it carries that cannot be mapped is dropped and
 * reported (`upstream/request-fields.ts`). The gateway's own `provider` object never goes out.
 * @see https://platform.openai.com/docs/api-reference/chat/create
 */
import type {
  CanonicalMessage,
  CanonicalPart,
  CanonicalRequest,
  CanonicalResponseFormat,
  CanonicalToolChoice,
} from '../../canonical/model';
import type { ModelRoute } from '../provider';
import type { ProviderConfig } from '../upstream/provider-config';
import { invalidRequest } from '../../errors';
import {
  dropWhatCannotGo,
  effortForBudget,
  reasoningFor,
  sameFormBody,
  stopSequencesWithin,
} from '../upstream/request-fields';

type Body = Record<string, unknown>;

/** The most stop sequences the chat-completions API takes. */
const MAX_STOP_SEQUENCES = 4;

export function toChatCompletionsBody(
  request: CanonicalRequest,
  route: ModelRoute,
  config: ProviderConfig,
): Body {
  const inbound = sameFormBody(request, 'openai-compatible');
  return inbound
    ? fromSameForm(inbound, request, route, config)
    : fromCanonical(request, route, config);
}

function fromSameForm(
  inbound: Body,
  request: CanonicalRequest,
  route: ModelRoute,
  config: ProviderConfig,
): Body {
  refuseSeveralChoices(inbound, config);
  const body: Body = { ...inbound, model: route.upstreamModel, stream: request.stream };
  // A same-form request keeps its reasoning fields even for a model whose providers-file entry
  // does not list `reasoning`: the entry may be incomplete, and the upstream itself decides.
  if (request.maxTokens !== null) {
    // The bound the pipeline reserved for is the one the server must enforce: keep the client's
    // spelling of it, and drop the other so the server cannot pick a larger one.
    if (inbound.max_completion_tokens != null) {
      body.max_completion_tokens = request.maxTokens;
      delete body.max_tokens;
    } else body.max_tokens = request.maxTokens;
  }
  if (request.stream) {
    body.stream_options = { ...asObject(inbound.stream_options), include_usage: true };
  } else {
    // OpenAI refuses `stream_options` without `stream: true`, and the gateway decides `stream`.
    delete body.stream_options;
  }
  if (config.inlineImageUrls && Array.isArray(inbound.messages)) {
    body.messages = withInlinedImages(inbound.messages, request.messages);
  }
  return body;
}

/**
 * `n` above 1 asks the server for several choices. The gateway answers with one (the reservation,
 * the charge and every form's answer are for one choice), so passing it on would bill the client
 * for choices it never sees: refused, as a request from another form is. `n: 1` (or none) is fine.
 */
function refuseSeveralChoices(inbound: Body, config: ProviderConfig): void {
  const { n } = inbound;
  if (n === undefined || n === null || n === 1) return;
  throw invalidRequest(
    `Field 'n' cannot be sent to provider '${config.id}' (${config.kind}): the gateway answers ` +
      `with one choice per request, and n is ${JSON.stringify(n).slice(0, 40)}. Leave n out (or ` +
      'send 1), and send one request per choice you want.',
  );
}

function fromCanonical(request: CanonicalRequest, route: ModelRoute, config: ProviderConfig): Body {
  dropWhatCannotGo(request, route, config);
  const stop = stopSequencesWithin(
    request,
    MAX_STOP_SEQUENCES,
    config,
    `at most ${MAX_STOP_SEQUENCES} stop sequences`,
  );
  const messages: Body[] = [];
  if (request.system !== null) messages.push({ role: 'system', content: request.system });
  for (const message of request.messages) messages.push(...toWireMessages(message));

  const body: Body = { model: route.upstreamModel, messages };
  if (request.maxTokens !== null) body.max_tokens = request.maxTokens;
  if (request.temperature !== null) body.temperature = request.temperature;
  if (request.topP !== null) body.top_p = request.topP;
  if (stop.length > 0) body.stop = stop;
  if (request.seed !== null) body.seed = request.seed;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: {
        name: tool.name,
        ...(tool.description === undefined ? {} : { description: tool.description }),
        parameters: tool.parameters,
      },
    }));
  }
  const toolChoice = toWireToolChoice(request.toolChoice, request.tools.length > 0);
  if (toolChoice !== undefined) body.tool_choice = toolChoice;
  const reasoning = reasoningFor(request, route);
  if (reasoning) {
    const effort =
      reasoning.effort ??
      (reasoning.budgetTokens !== null ? effortForBudget(reasoning.budgetTokens) : null);
    if (effort !== null) body.reasoning_effort = effort;
  }
  if (request.responseFormat) body.response_format = toWireResponseFormat(request.responseFormat);
  // Routes requests that share a prefix to the same cache upstream; the prefix itself is ours to
  // keep stable (nothing in this body changes from one turn to the next but the new messages).
  if (request.promptCacheKey !== undefined) body.prompt_cache_key = request.promptCacheKey;
  body.stream = request.stream;
  if (request.stream) body.stream_options = { include_usage: true };
  return body;
}

/** @see https://platform.openai.com/docs/guides/structured-outputs */
function toWireResponseFormat(format: CanonicalResponseFormat): Body {
  if (format.type === 'json_object') return { type: 'json_object' };
  return {
    type: 'json_schema',
    json_schema: { name: format.name, schema: format.schema, strict: format.strict },
  };
}

function toWireMessages(message: CanonicalMessage): Body[] {
  switch (message.role) {
    // This wire takes a system message anywhere in the conversation: it stays where it was.
    case 'system':
      return [{ role: 'system', content: textOf(message.parts) }];
    case 'user':
      return [{ role: 'user', content: userContent(message.parts) }];
    case 'assistant': {
      const text = textOf(message.parts);
      const toolCalls = message.parts.flatMap((part) =>
        part.type === 'tool_call'
          ? [
              {
                id: part.id,
                type: 'function',
                function: { name: part.name, arguments: part.arguments },
              },
            ]
          : [],
      );
      // `content` may be left out only when the turn carries tool calls.
      return [
        {
          role: 'assistant',
          ...(text !== '' || toolCalls.length === 0 ? { content: text } : {}),
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
      ];
    }
    case 'tool':
      return message.parts.flatMap((part) =>
        part.type === 'tool_result'
          ? [
              {
                role: 'tool',
                tool_call_id: part.toolCallId,
                // A tool message has no error flag on this wire; the prefix keeps the model from
                // reading a failure as the tool's answer.
                content: part.isError ? `Error: ${part.content}` : part.content,
              },
            ]
          : [],
      );
  }
}

/** Plain text stays a string (every server takes it); images make it a list of parts. */
function userContent(parts: CanonicalPart[]): string | Body[] {
  const [only] = parts;
  if (parts.length === 1 && only?.type === 'text') return only.text;
  return parts.flatMap((part): Body[] => {
    if (part.type === 'text') return [{ type: 'text', text: part.text }];
    if (part.type === 'image') return [{ type: 'image_url', image_url: { url: imageUrl(part) } }];
    return [];
  });
}

const imageUrl = (part: Extract<CanonicalPart, { type: 'image' }>) =>
  part.data !== undefined ? `data:${part.mediaType};base64,${part.data}` : (part.url ?? '');

const textOf = (parts: CanonicalPart[]) =>
  parts.map((part) => (part.type === 'text' ? part.text : '')).join('');

/**
 * `auto` is the server's default and `none` means nothing without tools; both are left out then,
 * since OpenAI refuses `tool_choice` without `tools`.
 */
function toWireToolChoice(choice: CanonicalToolChoice, hasTools: boolean): unknown {
  if (typeof choice === 'object') return { type: 'function', function: { name: choice.name } };
  if (!hasTools && (choice === 'auto' || choice === 'none')) return undefined;
  return choice;
}

/**
 * The client's messages with each image URL replaced by the image the engine fetched and inlined
 * (for a server that cannot fetch URLs itself). The form's converter turns each `image_url` part
 * into one canonical image, in order, so the two lists pair up one to one; if they ever do not,
 * the messages are sent as they came rather than with the wrong image.
 */
function withInlinedImages(messages: unknown[], canonical: CanonicalMessage[]): unknown[] {
  const images = canonical.flatMap((message) =>
    message.parts.filter((part) => part.type === 'image'),
  );
  let next = 0;
  const replaced = messages.map((message) => {
    const content = asObject(message).content;
    if (!Array.isArray(content)) return message;
    return {
      ...asObject(message),
      content: content.map((part) => {
        if (asObject(part).type !== 'image_url') return part;
        const image = images[next++];
        if (image?.data === undefined) return part;
        const original = asObject(part).image_url;
        const url = imageUrl(image);
        return {
          ...asObject(part),
          image_url: typeof original === 'string' ? url : { ...asObject(original), url },
        };
      }),
    };
  });
  return next === images.length ? replaced : messages;
}

const asObject = (value: unknown): Body =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Body) : {};
