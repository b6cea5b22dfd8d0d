/**
 * Messages server-sent events → canonical events. Text goes out as each `text_delta` arrives; a
 * tool call goes out whole when its block stops; `finish` waits for the stream's end, since the
 * usage arrives in `message_delta` after the stop reason.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/streaming
 */
import type { z } from 'zod';
import type { CanonicalEvent } from '../../canonical/model';
import { sealSignature } from '../../canonical/reasoning-signature';
import type { UpstreamSseEvent } from '../upstream/adapter';
import { UpstreamError } from '../upstream-error';
import { inBandStatus } from './error-mapping';
import { finishEvent, reasoningEvent, toUsage } from './response-to-canonical';
import {
  contentBlockDeltaSchema,
  contentBlockStartSchema,
  contentBlockStopSchema,
  errorBodySchema,
  messageDeltaSchema,
  messageStartSchema,
  streamEventSchema,
  textBlockSchema,
  toolUseBlockSchema,
  type AnthropicUsage,
} from './wire-schema';

/** A tool_use block still streaming its input. */
type OpenToolCall = {
  id: string;
  name: string;
  /** `input_json_delta` fragments so far. */
  json: string;
  /** The input the block started with, as JSON, when it was not empty. */
  startInput: string | null;
};

type HeldUsage = {
  input_tokens: number | null;
  output_tokens: number | null;
  cache_creation_input_tokens: number | null;
  cache_read_input_tokens: number | null;
  cache_creation: AnthropicUsage['cache_creation'];
  output_tokens_details: AnthropicUsage['output_tokens_details'];
};

export type AnthropicStreamState = {
  /**
   * The usage as last reported, field by field. The vendor's counts are cumulative: a later
   * report replaces an earlier one, never adds to it.
   */
  usage: HeldUsage | null;
  /** Open tool_use blocks by content index. */
  toolCalls: Map<number, OpenToolCall>;
  stopReason: string | null;
  stopSequence: string | null;
  /** A stop reason or `message_stop` arrived: the answer is whole. */
  finished: boolean;
  /** The usage `message_start` reported has gone out, ahead of the answer's first event. */
  startUsageTold: boolean;
};

export function createStreamState(): AnthropicStreamState {
  return {
    usage: null,
    toolCalls: new Map(),
    stopReason: null,
    stopSequence: null,
    finished: false,
    startUsageTold: false,
  };
}

export function transformStreamEvent(
  state: AnthropicStreamState,
  event: UpstreamSseEvent,
  providerId: string,
): CanonicalEvent[] {
  const events = readStreamEvent(state, event, providerId);
  if (state.startUsageTold || events.length === 0) return events;
  // The prompt's usage (its cache reads and writes) is known from `message_start` on: it goes out
  // with the first event of the answer, so a form can tell it at the start (the Messages form's
  // own `message_start`), and the answer still begins when its content does (fallback, deadlines).
  state.startUsageTold = true;
  const usage = toUsage(state.usage);
  return usage === null ? events : [{ type: 'usage', usage }, ...events];
}

function readStreamEvent(
  state: AnthropicStreamState,
  event: UpstreamSseEvent,
  providerId: string,
): CanonicalEvent[] {
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch {
    // An error event is an error even when its body is unreadable.
    if (event.event === 'error') throw inBandError(undefined, providerId);
    throw malformed(providerId);
  }
  const envelope = streamEventSchema.safeParse(data);
  const type = event.event === 'error' ? 'error' : envelope.success ? envelope.data.type : null;
  if (type === null) throw malformed(providerId);
  const read = <Output>(schema: z.ZodType<Output>) => {
    const parsed = schema.safeParse(data);
    if (!parsed.success) throw malformed(providerId);
    return parsed.data;
  };

  switch (type) {
    case 'message_start': {
      // Its `output_tokens` (1) is a placeholder, never a count of the answer: only
      // `message_delta` says that, and without it the gateway counts the text itself.
      const usage = read(messageStartSchema).message.usage;
      mergeUsage(state, usage && { ...usage, output_tokens: null });
      return [];
    }

    case 'content_block_start': {
      const { index, content_block: block } = read(contentBlockStartSchema);
      if (block.type === 'text') {
        const text = textBlockSchema.safeParse(block);
        if (!text.success) throw malformed(providerId);
        return text.data.text === '' ? [] : [{ type: 'text-delta', text: text.data.text }];
      }
      if (block.type === 'tool_use') {
        const call = toolUseBlockSchema.safeParse(block);
        if (!call.success) throw malformed(providerId);
        const input = call.data.input;
        const hasInput =
          input !== null && typeof input === 'object' && Object.keys(input).length > 0;
        state.toolCalls.set(index, {
          id: call.data.id,
          name: call.data.name,
          json: '',
          startInput: hasInput ? JSON.stringify(input) : null,
        });
      }
      // A redacted block comes whole; a thinking block streams its text and then its signature.
      if (block.type === 'redacted_thinking') return [reasoningEvent(block, providerId)];
      // Server tool blocks carry nothing canonical.
      return [];
    }

    case 'content_block_delta': {
      const { index, delta } = read(contentBlockDeltaSchema);
      if (delta.type === 'text_delta') {
        if (delta.text === undefined) throw malformed(providerId);
        return delta.text === '' ? [] : [{ type: 'text-delta', text: delta.text }];
      }
      if (delta.type === 'input_json_delta') {
        const call = state.toolCalls.get(index);
        // Input of a block that is not a tool_use of ours (a server tool's) is not an answer.
        if (call) call.json += delta.partial_json ?? '';
      }
      if (delta.type === 'thinking_delta')
        return delta.thinking ? [{ type: 'reasoning-delta', text: delta.thinking }] : [];
      if (delta.type === 'signature_delta' && delta.signature)
        return [
          {
            type: 'reasoning-delta',
            text: '',
            signature: sealSignature(providerId, delta.signature),
          },
        ];
      // citations_delta and newer kinds: not part of the canonical answer.
      return [];
    }

    case 'content_block_stop': {
      const { index } = read(contentBlockStopSchema);
      const call = state.toolCalls.get(index);
      if (!call) return [];
      state.toolCalls.delete(index);
      return [
        {
          type: 'tool-call',
          id: call.id,
          name: call.name,
          arguments: call.json !== '' ? call.json : (call.startInput ?? '{}'),
        },
      ];
    }

    case 'message_delta': {
      const { delta, usage } = read(messageDeltaSchema);
      if (delta.stop_reason) {
        state.stopReason = delta.stop_reason;
        state.stopSequence = delta.stop_sequence ?? null;
        state.finished = true;
      }
      mergeUsage(state, usage);
      return [];
    }

    case 'message_stop':
      state.finished = true;
      return [];

    case 'error':
      throw inBandError(data, providerId);

    // `ping`, and event types newer than this code, carry nothing to pass on.
    default:
      return [];
  }
}

export function finishStream(state: AnthropicStreamState, providerId: string): CanonicalEvent[] {
  if (!state.finished) {
    throw new UpstreamError(
      'cut',
      providerId,
      'The provider’s stream ended before the answer did.',
    );
  }
  return [finishEvent(state.stopReason, state.stopSequence, toUsage(state.usage))];
}

/** What the stream has reported so far (the prompt arrives with `message_start`). */
export const anthropicUsageSoFar = (state: AnthropicStreamState) => toUsage(state.usage);

/** Each field the report carries replaces the one held; fields it omits keep their value. */
function mergeUsage(state: AnthropicStreamState, report: AnthropicUsage | null | undefined) {
  if (!report) return;
  const held: HeldUsage = state.usage ?? {
    input_tokens: null,
    output_tokens: null,
    cache_creation_input_tokens: null,
    cache_read_input_tokens: null,
    cache_creation: null,
    output_tokens_details: null,
  };
  state.usage = {
    input_tokens: report.input_tokens ?? held.input_tokens,
    output_tokens: report.output_tokens ?? held.output_tokens,
    cache_creation_input_tokens:
      report.cache_creation_input_tokens ?? held.cache_creation_input_tokens,
    cache_read_input_tokens: report.cache_read_input_tokens ?? held.cache_read_input_tokens,
    cache_creation: report.cache_creation ?? held.cache_creation,
    output_tokens_details: report.output_tokens_details ?? held.output_tokens_details,
  };
}

/**
 * `{type: 'error', error: {type, message}}` inside a 200 stream → an in-band failure standing for
 * the status the vendor would have answered with. Only the type and the message are kept, and the
 * engine cleans the message.
 */
function inBandError(data: unknown, providerId: string): UpstreamError {
  const body = errorBodySchema.safeParse(data);
  const upstreamType = body.success ? body.data.error.type : undefined;
  const message =
    (body.success && body.data.error.message) || 'The provider reported an error mid-answer.';
  return new UpstreamError('in_band', providerId, message, {
    status: inBandStatus(upstreamType),
    upstreamType,
  });
}

const malformed = (providerId: string) =>
  new UpstreamError(
    'malformed',
    providerId,
    'The provider sent a stream event the gateway cannot read.',
  );
