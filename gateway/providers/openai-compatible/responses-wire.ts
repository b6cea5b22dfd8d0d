/**
 * The Responses wire of an OpenAI-compatible upstream that declares it (`responses_api: true` in
 * the providers file): a request that arrived in the Responses form goes to `{base}/responses`
 * as the client sent it, with only the model and the reserved output bound replaced (and
 * `previous_response_id` resolved into the input already, since the upstream does not know the
 * gateway's ids). Its answer, plain or streamed, is read into canonical events here.
 * @see https://platform.openai.com/docs/api-reference/responses
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
import { z } from 'zod';
import { compactionContext, openCompaction } from '../../canonical/compaction-envelope';
import type { CanonicalEvent, CanonicalRequest, ReportedUsage } from '../../canonical/model';
import type { ModelRoute } from '../provider';
import type { ProviderConfig } from '../upstream/provider-config';
import {
  openReasoning,
  openSignature,
  reasoningPartFrom,
  sealSignature,
} from '../../canonical/reasoning-signature';
import { reportedCount } from '../upstream/reported-count';
import { trimBase } from '../upstream/request-fields';
import { UpstreamError } from '../upstream-error';
import { inBandError } from './error-mapping';

type Body = Record<string, unknown>;

/** Whether this request goes to the upstream's Responses endpoint. */
export const speaksResponses = (request: CanonicalRequest, config: ProviderConfig) =>
  config.responsesApi === true && request.inbound?.form === 'responses' && !request.inbound.rebuilt;

export const responsesUrl = (baseUrl: string) => `${trimBase(baseUrl)}/responses`;

export function toResponsesBody(
  request: CanonicalRequest,
  route: ModelRoute,
  providerId: string,
): Body {
  const body: Body = { ...request.inbound!.body, model: route.upstreamModel };
  if (Array.isArray(body.input))
    body.input = body.input.flatMap((item) => ownReasoning(item, providerId));
  body.stream = request.stream;
  if (request.maxTokens !== null) body.max_output_tokens = request.maxTokens;
  delete body.previous_response_id;
  if (Array.isArray(body.input)) body.input = body.input.map(openedCompaction);
  // The gateway answers in the request: a background job upstream would leave it nothing to read.
  delete body.background;
  return body;
}

/**
 * A reasoning item the gateway sealed goes back with this upstream's own `encrypted_content`, or
 * not at all when another provider made it; items the gateway never sealed go as sent.
 */
function ownReasoning(item: unknown, providerId: string): unknown[] {
  const record = item as Body | null;
  if (record?.type !== 'reasoning' || typeof record.encrypted_content !== 'string') return [item];
  const sealed = record.encrypted_content;
  if (!openReasoning(sealed) && !openSignature(sealed)) return [item];
  const part = reasoningPartFrom('', undefined, sealed);
  if (part.providerId !== providerId || part.encrypted === undefined) return [];
  return [{ ...record, encrypted_content: part.encrypted }];
}

/**
 * A `compaction` item the gateway sealed, as the summary the model reads: the upstream cannot
 * open the gateway's envelope. Its own compaction items pass as they came.
 */
function openedCompaction(item: unknown): unknown {
  const content = (item as { type?: unknown; encrypted_content?: unknown } | null) ?? {};
  if (content.type !== 'compaction' || typeof content.encrypted_content !== 'string') return item;
  const opened = openCompaction(content.encrypted_content);
  if (opened.kind !== 'gateway') return item;
  return {
    role: 'user',
    content: [{ type: 'input_text', text: compactionContext(opened.summary) }],
  };
}

const usageSchema = z.looseObject({
  input_tokens: reportedCount,
  output_tokens: reportedCount,
  /** `cache_write_tokens`: what servers that count cache writes apart (Azure's) report. */
  input_tokens_details: z
    .looseObject({ cached_tokens: reportedCount, cache_write_tokens: reportedCount })
    .nullish(),
  output_tokens_details: z.looseObject({ reasoning_tokens: reportedCount }).nullish(),
});

const item = z.looseObject({
  type: z.string(),
  id: z.string().nullish(),
  call_id: z.string().nullish(),
  name: z.string().nullish(),
  namespace: z.string().nullish(),
  arguments: z.string().nullish(),
  input: z.string().nullish(),
  content: z.array(z.looseObject({ type: z.string(), text: z.string().nullish() })).nullish(),
  summary: z.array(z.looseObject({ text: z.string() })).nullish(),
  encrypted_content: z.string().nullish(),
});

export const responseObjectSchema = z.looseObject({
  object: z.literal('response'),
  status: z.string().nullish(),
  incomplete_details: z.looseObject({ reason: z.string().nullish() }).nullish(),
  error: z.looseObject({ message: z.string().nullish(), code: z.string().nullish() }).nullish(),
  output: z.array(item).nullish(),
  usage: usageSchema.nullish(),
});

type ResponseObject = z.infer<typeof responseObjectSchema>;
type Item = z.infer<typeof item>;

const toUsage = (usage: z.infer<typeof usageSchema> | null | undefined): ReportedUsage | null =>
  usage
    ? {
        promptTokens: usage.input_tokens ?? null,
        completionTokens: usage.output_tokens ?? null,
        cacheReadTokens: usage.input_tokens_details?.cached_tokens ?? 0,
        cacheWriteTokens: usage.input_tokens_details?.cache_write_tokens ?? 0,
        reasoningTokens: usage.output_tokens_details?.reasoning_tokens ?? 0,
      }
    : null;

/** One finished output item → its canonical events (a message's text, a call, reasoning). */
function itemEvents(output: Item, withText: boolean, providerId: string): CanonicalEvent[] {
  switch (output.type) {
    case 'message': {
      if (!withText) return [];
      const text = (output.content ?? []).map((part) => part.text ?? '').join('');
      return text === '' ? [] : [{ type: 'text-delta', text }];
    }
    case 'function_call':
      return [
        {
          type: 'tool-call',
          id: output.call_id ?? output.id ?? '',
          // Namespaced functions travel flattened, as the Responses form reads them back.
          name: output.namespace ? `${output.namespace}__${output.name}` : (output.name ?? ''),
          arguments: output.arguments ?? '',
        },
      ];
    case 'custom_tool_call':
      return [
        {
          type: 'tool-call',
          id: output.call_id ?? output.id ?? '',
          name: output.name ?? '',
          arguments: JSON.stringify({ input: output.input ?? '' }),
        },
      ];
    case 'reasoning':
      return [
        {
          type: 'reasoning-delta',
          text: withText ? (output.summary ?? []).map((part) => part.text).join('\n') : '',
          ...(output.encrypted_content
            ? { encrypted: sealSignature(providerId, output.encrypted_content) }
            : {}),
        },
      ];
    default:
      // A hosted tool's own item (web search, file search): the upstream ran it; its result is in
      // the message that follows.
      return [];
  }
}

function finishOf(response: ResponseObject, madeCalls: boolean): CanonicalEvent {
  const reason = response.incomplete_details?.reason ?? null;
  const finishReason =
    response.status === 'incomplete'
      ? reason === 'content_filter'
        ? 'content_filter'
        : 'length'
      : madeCalls
        ? 'tool_calls'
        : 'stop';
  return {
    type: 'finish',
    finishReason,
    rawFinishReason: reason ?? response.status ?? null,
    stopSequence: null,
    usage: toUsage(response.usage),
  };
}

/** A plain answer of the Responses wire → canonical events. */
export function fromResponseObject(body: unknown, providerId: string): CanonicalEvent[] {
  const parsed = responseObjectSchema.safeParse(body);
  if (!parsed.success)
    throw new UpstreamError(
      'malformed',
      providerId,
      'The provider sent a response the gateway cannot read.',
    );
  const response = parsed.data;
  if (response.status === 'failed')
    throw inBandError(
      { message: response.error?.message ?? undefined, code: response.error?.code ?? undefined },
      providerId,
    );
  const events = (response.output ?? []).flatMap((output) => itemEvents(output, true, providerId));
  events.push(
    finishOf(
      response,
      events.some((event) => event.type === 'tool-call'),
    ),
  );
  return events;
}

export type ResponsesStreamState = {
  madeCalls: boolean;
  /** Reasoning summary text already streamed, so the item's done event does not repeat it. */
  reasoningStreamed: boolean;
  finished: ResponseObject | null;
};

export const createResponsesStreamState = (): ResponsesStreamState => ({
  madeCalls: false,
  reasoningStreamed: false,
  finished: null,
});

const streamEventSchema = z.looseObject({
  type: z.string(),
  delta: z.string().nullish(),
  item: item.nullish(),
  response: z.unknown().optional(),
  message: z.string().nullish(),
  code: z.string().nullish(),
});

/** One event of the Responses stream → the canonical events it carries. */
export function transformResponsesEvent(
  state: ResponsesStreamState,
  json: unknown,
  providerId: string,
): CanonicalEvent[] {
  const parsed = streamEventSchema.safeParse(json);
  if (!parsed.success)
    throw new UpstreamError(
      'malformed',
      providerId,
      'The provider sent a stream event the gateway cannot read.',
    );
  const event = parsed.data;
  switch (event.type) {
    case 'response.output_text.delta':
      return event.delta ? [{ type: 'text-delta', text: event.delta }] : [];
    case 'response.reasoning_summary_text.delta':
      if (!event.delta) return [];
      state.reasoningStreamed = true;
      return [{ type: 'reasoning-delta', text: event.delta }];
    case 'response.output_item.done': {
      if (!event.item || event.item.type === 'message') return [];
      const events = itemEvents(event.item, !state.reasoningStreamed, providerId);
      if (event.item.type === 'reasoning') state.reasoningStreamed = false;
      if (events.some((converted) => converted.type === 'tool-call')) state.madeCalls = true;
      // A reasoning item with nothing to say and no encrypted form closes nothing.
      return events.filter(
        (converted) =>
          converted.type !== 'reasoning-delta' || converted.text !== '' || converted.encrypted,
      );
    }
    case 'response.completed':
    case 'response.incomplete': {
      const response = responseObjectSchema.safeParse(event.response);
      if (!response.success)
        throw new UpstreamError(
          'malformed',
          providerId,
          'The provider sent a final response the gateway cannot read.',
        );
      state.finished = response.data;
      return [];
    }
    case 'response.failed': {
      const response = responseObjectSchema.safeParse(event.response);
      const error = response.success ? response.data.error : null;
      throw inBandError(
        { message: error?.message ?? undefined, code: error?.code ?? undefined },
        providerId,
      );
    }
    case 'error':
      throw inBandError(
        { message: event.message ?? undefined, code: event.code ?? undefined },
        providerId,
      );
    default:
      return [];
  }
}

export function finishResponsesStream(
  state: ResponsesStreamState,
  providerId: string,
): CanonicalEvent[] {
  if (!state.finished)
    throw new UpstreamError(
      'cut',
      providerId,
      'The provider’s stream ended before the answer did.',
    );
  return [finishOf(state.finished, state.madeCalls)];
}

export const responsesUsageSoFar = (state: ResponsesStreamState) =>
  state.finished ? toUsage(state.finished.usage) : null;
