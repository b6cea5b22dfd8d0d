/**
 * Canonical request → Messages request body. A request that arrived in the Messages form goes
 * through as the client wrote it (thinking, cache_control, metadata… reach the vendor unchanged);
 * any other form is rebuilt from the canonical fields, dropping (and reporting) the parameters
 * this API cannot honour.
 * @see https://docs.anthropic.com/en/api/messages
 */
import type {
  CanonicalCacheControl,
  CanonicalMessage,
  CanonicalPart,
  CanonicalReasoning,
  CanonicalRequest,
  CanonicalToolChoice,
} from '../../canonical/model';
import { clientFieldName } from '../../canonical/translation';
import type { ModelRoute } from '../provider';
import type { ProviderConfig } from '../upstream/provider-config';
import { openSignature } from '../../canonical/reasoning-signature';
import {
  adjustField,
  budgetForEffort,
  dropField,
  dropWhatCannotGo,
  parseToolArguments,
  reasoningFields,
  reasoningFor,
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
  if (same) return fromSameForm(same, request, route, config, maxTokens);

  dropWhatCannotGo(request, route, config);
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
  const system = toWireSystem(request);
  if (system !== null) body.system = system;
  body.messages = toWireMessages(
    request.messages.filter((message) => message.role !== 'system'),
    config.id,
  );
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
  const reasoning = reasoningFor(request, route);
  if (
    reasoning &&
    reasoning.effort !== 'none' &&
    lacksItsThinking(body.messages as WireMessage[])
  ) {
    const fields = reasoningFields(request.inbound?.form, request.inbound?.body);
    for (const field of fields.length > 0 ? fields : ['reasoning'])
      adjustField(request, field, { from: 'on', to: 'off' }, config, THINKING_LOST);
  } else addThinking(body, reasoning, maxTokens);
  const format = request.responseFormat;
  // The vendor's structured outputs take a schema only; "any JSON object" has no equivalent.
  // TODO(translation-policy): report `response_format` as dropped for a json_object here.
  if (format?.type === 'json_schema')
    body.output_config = { format: { type: 'json_schema', schema: format.schema } };
  // The request's own breakpoint: the vendor places it on the last block it can cache.
  if (request.cacheControl) body.cache_control = toWireCacheControl(request.cacheControl);
  body.stream = request.stream;
  return body;
}

/**
 * This API has no system turn: instructions from inside the conversation join the system text.
 * Text with cache breakpoints keeps its blocks, each marked where the client marked it; without
 * any, one string, as it always was (the same bytes turn after turn either way).
 */
function toWireSystem(request: CanonicalRequest): string | Block[] | null {
  const inside = request.messages.filter((message) => message.role === 'system').map(systemText);
  if (request.systemBlocks) {
    const blocks: NonNullable<CanonicalRequest['systemBlocks']> = [
      ...request.systemBlocks,
      ...inside.map((text) => ({ text })),
    ];
    return blocks.flatMap((block): Block[] =>
      // The vendor refuses empty text blocks.
      block.text === ''
        ? []
        : [{ type: 'text', text: block.text, ...cacheControlField(block.cacheControl) }],
    );
  }
  const system = [request.system, ...inside].filter((text): text is string => Boolean(text));
  return system.length > 0 ? system.join('\n\n') : null;
}

/** @see https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching */
const toWireCacheControl = (cache: CanonicalCacheControl): Block => ({
  type: 'ephemeral',
  ...(cache.ttl !== undefined && { ttl: cache.ttl }),
});

const cacheControlField = (cache: CanonicalCacheControl | undefined) =>
  cache ? { cache_control: toWireCacheControl(cache) } : {};

const systemText = (message: CanonicalMessage) =>
  message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');

/**
 * The client's own body, with the gateway's bounds; thinking blocks handed back go only to the
 * provider that made them, opened (see canonical/reasoning-signature.ts).
 */
function fromSameForm(
  same: Record<string, unknown>,
  request: CanonicalRequest,
  route: ModelRoute,
  config: ProviderConfig,
  maxTokens: number,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    ...same,
    model: route.upstreamModel,
    max_tokens: maxTokens,
    stream: request.stream,
  };
  if (Array.isArray(same.messages))
    body.messages = same.messages.map((message) => withOwnThinking(message, config.id));
  const thinking = asRecord(body.thinking);
  if (thinking && thinking.type !== 'disabled' && lacksItsThinking(body.messages as unknown[])) {
    adjustField(
      request,
      'thinking',
      { from: String(thinking.type), to: 'disabled' },
      config,
      THINKING_LOST,
    );
    delete body.thinking;
  }
  // A same-form request keeps its thinking even for a model whose providers-file entry does not
  // list `reasoning`: the entry may be incomplete, and the upstream itself decides.
  return body;
}

function withOwnThinking(message: unknown, providerId: string): unknown {
  const record = asRecord(message);
  if (!record || !Array.isArray(record.content)) return message;
  const content = record.content.flatMap((block: unknown) => {
    const value = asRecord(block);
    if (value?.type === 'thinking') {
      const opened = typeof value.signature === 'string' ? openSignature(value.signature) : null;
      return opened?.providerId === providerId ? [{ ...value, signature: opened.signature }] : [];
    }
    if (value?.type === 'redacted_thinking') {
      const opened = typeof value.data === 'string' ? openSignature(value.data) : null;
      return opened?.providerId === providerId ? [{ ...value, data: opened.signature }] : [];
    }
    return [block];
  });
  return { ...record, content };
}

const THINKING_LOST =
  "the last assistant turn's tool call comes without the thinking block this provider signed";

/**
 * Whether the last assistant turn holds a tool call without starting with a thinking block: the
 * vendor refuses thinking then (400, "Expected `thinking` or `redacted_thinking`, but found
 * `tool_use`"), so the turn goes without thinking, reported, rather than refused.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks
 */
export function lacksItsThinking(messages: unknown[] | undefined): boolean {
  const last = asRecord(
    [...(messages ?? [])].reverse().find((message) => asRecord(message)?.role === 'assistant'),
  );
  if (!last || !Array.isArray(last.content)) return false;
  const types = last.content.map((block: unknown) => asRecord(block)?.type);
  return types.includes('tool_use') && types[0] !== 'thinking' && types[0] !== 'redacted_thinking';
}

const asRecord = (value: unknown): Record<string, unknown> | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;

/** The vendor's smallest thinking budget. */
const MIN_THINKING_BUDGET = 1_024;

/**
 * Extended thinking with a budget: the one given, else one for the effort. The vendor wants
 * `max_tokens` above the budget, and no temperature (nor a top_p below 0.95) with thinking.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking
 */
function addThinking(
  body: Record<string, unknown>,
  reasoning: CanonicalReasoning | null,
  maxTokens: number,
): void {
  if (!reasoning) return;
  if (reasoning.effort === 'none') {
    body.thinking = { type: 'disabled' };
    return;
  }
  // The vendor refuses thinking with a forced tool (tool_choice any or tool): the client's tool
  // choice wins. TODO(translation-policy): report `reasoning` as dropped here.
  const choice = (body.tool_choice as { type?: string } | undefined)?.type;
  if (choice === 'any' || choice === 'tool') return;
  const wanted = reasoning.budgetTokens ?? budgetForEffort(reasoning.effort);
  const budget = Math.min(Math.max(wanted, MIN_THINKING_BUDGET), maxTokens - 1);
  // TODO(translation-policy): report `reasoning` as dropped: max_tokens leaves no room to think.
  if (budget < MIN_THINKING_BUDGET) return;
  body.thinking = { type: 'enabled', budget_tokens: budget };
  // TODO(translation-policy): report these as dropped (thinking does not take them).
  delete body.temperature;
  if (typeof body.top_p === 'number' && body.top_p < 0.95) delete body.top_p;
}

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
export function toWireMessages(messages: CanonicalMessage[], providerId: string): WireMessage[] {
  const wire: WireMessage[] = [];
  for (const message of messages) {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const content = message.parts.flatMap((part) => toBlock(part, providerId));
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

function toBlock(part: CanonicalPart, providerId: string): Block[] {
  switch (part.type) {
    case 'text':
      // The vendor refuses empty text blocks; chat-completion clients send `content: ""` with calls.
      return part.text === ''
        ? []
        : [{ type: 'text', text: part.text, ...cacheControlField(part.cacheControl) }];
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
          ...cacheControlField(part.cacheControl),
        },
      ];
    case 'reasoning':
      // Only this provider's own reasoning goes back to it, signed as it made it; reasoning text
      // without its signature is refused by the vendor, so it is not sent.
      if (part.providerId !== providerId) return [];
      if (part.encrypted !== undefined)
        return [{ type: 'redacted_thinking', data: part.encrypted }];
      if (part.signature !== undefined)
        return [{ type: 'thinking', thinking: part.text, signature: part.signature }];
      return [];
  }
}
