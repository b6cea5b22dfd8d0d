/**
 * Canonical request → Messages request body. A request that arrived in the Messages form goes
 * through as the client wrote it (thinking, cache_control, metadata… reach the vendor unchanged);
 * any other form is rebuilt from the canonical fields, dropping (and reporting) the parameters
 * this API cannot honour.
 * @see https://docs.anthropic.com/en/api/messages
 */
import type {
  CanonicalMessage,
  CanonicalPart,
  CanonicalRequest,
  CanonicalToolChoice,
} from '../../canonical/model';
import { clientFieldName } from '../../canonical/translation';
import type { ModelRoute } from '../provider';
import type { ProviderConfig } from '../upstream/provider-config';
import {
  adjustField,
  dropField,
  dropInboundHeaders,
  dropUnmappedFields,
  parseToolArguments,
  sameFormBody,
} from '../upstream/request-fields';

type Block = Record<string, unknown>;
type WireMessage = { role: 'user' | 'assistant'; content: Block[] };

export function toMessagesBody(
  request: CanonicalRequest,
  route: ModelRoute,
  config: ProviderConfig,
): Record<string, unknown> {
  // The vendor requires `max_tokens`; the pipeline always sets it, the route's bound is a backstop.
  const maxTokens = request.maxTokens ?? route.maxCompletionTokens;

  const same = sameFormBody(request, 'anthropic');
  if (same) {
    return { ...same, model: route.upstreamModel, max_tokens: maxTokens, stream: request.stream };
  }

  dropUnmappedFields(request, config);
  dropInboundHeaders(request, config);
  if (request.seed !== null) {
    dropField(request, clientFieldName(request, 'seed'), config, 'this provider has no seed');
  }
  let temperature = request.temperature;
  if (temperature !== null && temperature > 1) {
    const field = clientFieldName(request, 'temperature');
    adjustField(request, field, { from: temperature, to: 1 }, config, 'it takes 0 to 1');
    temperature = 1;
  }

  const body: Record<string, unknown> = { model: route.upstreamModel, max_tokens: maxTokens };
  // This API has no system turn: instructions from inside the conversation join the system text.
  const system = [
    request.system,
    ...request.messages.filter((message) => message.role === 'system').map(systemText),
  ].filter((text): text is string => Boolean(text));
  if (system.length > 0) body.system = system.join('\n\n');
  body.messages = toWireMessages(request.messages.filter((message) => message.role !== 'system'));
  if (temperature !== null) body.temperature = temperature;
  if (request.topP !== null) body.top_p = request.topP;
  if (request.stop.length > 0) body.stop_sequences = request.stop;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      name: tool.name,
      ...(tool.description !== undefined && { description: tool.description }),
      // The vendor insists on an object schema; a schema that omits its type means one.
      input_schema: { type: 'object', ...tool.parameters },
    }));
  }
  const toolChoice = toWireToolChoice(request.toolChoice, request.tools.length > 0);
  if (toolChoice) body.tool_choice = toolChoice;
  body.stream = request.stream;
  return body;
}

const systemText = (message: CanonicalMessage) =>
  message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');

/**
 * Without tools, `auto` and `none` mean the same and the vendor refuses a tool_choice with no
 * tools, so neither is sent; `required` or a named tool still is, for the vendor to refuse.
 */
function toWireToolChoice(choice: CanonicalToolChoice, hasTools: boolean): Block | null {
  if (choice === 'auto') return hasTools ? { type: 'auto' } : null;
  if (choice === 'none') return hasTools ? { type: 'none' } : null;
  if (choice === 'required') return { type: 'any' };
  return { type: 'tool', name: choice.name };
}

/**
 * Canonical turns → alternating user/assistant turns, as the vendor requires: tool results are a
 * user turn, and consecutive turns of one role become one (a tool-result turn followed by the
 * user's text, say). In a user turn the tool results go first, which the vendor also requires.
 */
export function toWireMessages(messages: CanonicalMessage[]): WireMessage[] {
  const wire: WireMessage[] = [];
  for (const message of messages) {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const content = message.parts.flatMap(toBlock);
    // A turn with nothing left (an assistant's empty text next to no tool call) is not sent:
    // the vendor refuses empty content.
    if (content.length === 0) continue;
    const previous = wire.at(-1);
    if (previous && previous.role === role) previous.content.push(...content);
    else wire.push({ role, content });
  }
  for (const message of wire) {
    if (message.role === 'user') {
      message.content = [
        ...message.content.filter((block) => block.type === 'tool_result'),
        ...message.content.filter((block) => block.type !== 'tool_result'),
      ];
    }
  }
  return wire;
}

function toBlock(part: CanonicalPart): Block[] {
  switch (part.type) {
    case 'text':
      // The vendor refuses empty text blocks; chat-completion clients send `content: ""` with calls.
      return part.text === '' ? [] : [{ type: 'text', text: part.text }];
    case 'image':
      return [
        {
          type: 'image',
          source:
            part.data !== undefined
              ? { type: 'base64', media_type: part.mediaType, data: part.data }
              : { type: 'url', url: part.url },
        },
      ];
    case 'tool_call':
      return [
        {
          type: 'tool_use',
          id: part.id,
          name: part.name,
          input: parseToolArguments(part.arguments),
        },
      ];
    case 'tool_result':
      return [
        {
          type: 'tool_result',
          tool_use_id: part.toolCallId,
          content: part.content,
          ...(part.isError !== undefined && { is_error: part.isError }),
        },
      ];
    case 'reasoning':
      // Handed back only where it was made; round trips are the agent-clients issue's.
      return [];
  }
}
