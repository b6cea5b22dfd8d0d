/**
 * A Responses answer (docs/responses.md) in the chat-completion shape the playground reads: the
 * whole `response` object as a `chat.completion`, and the stream's events as
 * `chat.completion.chunk` lines ending `data: [DONE]`. A failure becomes the gateway's own error
 * body (`{error, type, stage}`), which the playground already shows.
 */
import type { GatewayErrorBody } from '../../contract/gateway';
import {
  responsesStreamEventSchema,
  type ResponsesObject,
  type ResponsesStreamEvent,
} from '../../contract/responses-form';

/**
 * The chat finish reason of a `response`: `completed` is `stop` (or `tool_calls` when the model
 * called tools), `incomplete` says why. The raw reason is kept when it has no chat name.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-incomplete_details
 */
export function finishReasonOf(response: ResponsesObject): string | null {
  const calledTools = response.output.some((item) => item.type === 'function_call');
  switch (response.status) {
    case 'completed':
      return calledTools ? 'tool_calls' : 'stop';
    case 'incomplete': {
      const reason = response.incomplete_details?.reason ?? null;
      if (reason === 'max_output_tokens') return 'length';
      return reason ?? 'length';
    }
    case undefined:
      return calledTools ? 'tool_calls' : 'stop';
    default:
      return response.status;
  }
}

/** `usage` in the chat shape, with the gateway's cost and the reasoning tokens kept. */
function chatUsageOf(response: ResponsesObject): Record<string, unknown> | undefined {
  const usage = response.usage;
  if (!usage) return undefined;
  return {
    prompt_tokens: usage.input_tokens,
    completion_tokens: usage.output_tokens,
    total_tokens: usage.total_tokens ?? usage.input_tokens + usage.output_tokens,
    ...(usage.cost !== undefined ? { cost: usage.cost } : {}),
    ...(usage.output_tokens_details?.reasoning_tokens !== undefined
      ? {
          completion_tokens_details: {
            reasoning_tokens: usage.output_tokens_details.reasoning_tokens,
          },
        }
      : {}),
  };
}

/** The stage of a `response.failed` code, as the gateway's error body names stages. */
function stageOfCode(code: string | null | undefined): GatewayErrorBody['stage'] {
  switch (code) {
    case 'rate_limit_exceeded':
      return 'admission';
    case 'invalid_request':
    case 'invalid_request_error':
      return 'validation';
    default:
      return 'provider';
  }
}

function failureBody(
  message: string,
  code: string | null | undefined,
  requestId?: string,
): GatewayErrorBody {
  return {
    error: message,
    type: code ?? 'server_error',
    stage: stageOfCode(code),
    ...(requestId ? { request_id: requestId } : {}),
  };
}

/** A whole `response` as a `chat.completion` (a failed one as the gateway's error body). */
export function completionFromResponse(response: ResponsesObject): Record<string, unknown> {
  if (response.status === 'failed' || response.error) {
    return failureBody(
      response.error?.message ?? 'The response failed.',
      response.error?.code,
      response.id,
    );
  }
  const text = response.output
    .filter((item) => item.type === 'message')
    .flatMap((item) => item.content ?? [])
    .flatMap((part) => (part.type === 'output_text' && part.text !== undefined ? [part.text] : []))
    .join('');
  const reasoning = response.output
    .filter((item) => item.type === 'reasoning')
    .flatMap((item) => item.summary ?? [])
    .flatMap((part) => (part.text !== undefined ? [part.text] : []))
    .join('');
  const toolCalls = response.output
    .filter((item) => item.type === 'function_call')
    .map((item, index) => ({
      id: item.call_id ?? `call_${index}`,
      type: 'function',
      function: { name: item.name ?? '', arguments: item.arguments ?? '' },
    }));
  const usage = chatUsageOf(response);
  return {
    id: response.id,
    object: 'chat.completion',
    created: response.created_at ?? Math.floor(Date.now() / 1000),
    model: response.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text === '' && toolCalls.length > 0 ? null : text,
          ...(reasoning !== '' ? { reasoning } : {}),
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: finishReasonOf(response),
      },
    ],
    ...(usage ? { usage } : {}),
  };
}

/** What the stream translator remembers between events. */
interface StreamState {
  id: string;
  model: string;
  created: number;
  /** `output_index` of each function call → its position among the calls (the chat `index`). */
  toolIndexByOutput: Map<number, number>;
  /** True once `[DONE]` or an error was written: later events are ignored. */
  ended: boolean;
}

const dataLine = (payload: unknown) => `data: ${JSON.stringify(payload)}\n\n`;

/**
 * Translates the Responses stream, one event at a time, into chat-completion lines. Never
 * throws on a bad event: an event it cannot read becomes nothing, a failure becomes an error
 * line, and the stream's end is `[DONE]` only after `response.completed` or `.incomplete`.
 */
export function createResponsesStreamTranslator(fallbackModel: string) {
  const state: StreamState = {
    id: 'resp',
    model: fallbackModel,
    created: Math.floor(Date.now() / 1000),
    toolIndexByOutput: new Map(),
    ended: false,
  };
  const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    dataLine({
      id: state.id,
      object: 'chat.completion.chunk',
      created: state.created,
      model: state.model,
      choices: [{ index: 0, delta, finish_reason: null }],
      ...extra,
    });

  function translate(event: ResponsesStreamEvent): string {
    if (state.ended) return '';
    switch (event.type) {
      case 'response.created':
        if (event.response) {
          state.id = event.response.id;
          state.model = event.response.model;
          state.created = event.response.created_at ?? state.created;
        }
        return chunk({ role: 'assistant', content: '' });
      case 'response.output_text.delta':
        return event.delta ? chunk({ content: event.delta }) : '';
      case 'response.reasoning_summary_text.delta':
        return event.delta ? chunk({ reasoning: event.delta }) : '';
      case 'response.output_item.added': {
        if (event.item?.type !== 'function_call' || event.output_index === undefined) return '';
        const index = state.toolIndexByOutput.size;
        state.toolIndexByOutput.set(event.output_index, index);
        return chunk({
          tool_calls: [
            {
              index,
              id: event.item.call_id,
              type: 'function',
              function: { name: event.item.name ?? '', arguments: '' },
            },
          ],
        });
      }
      case 'response.function_call_arguments.delta': {
        const index = state.toolIndexByOutput.get(event.output_index ?? -1);
        if (index === undefined || !event.delta) return '';
        return chunk({ tool_calls: [{ index, function: { arguments: event.delta } }] });
      }
      case 'response.completed':
      case 'response.incomplete': {
        if (!event.response) return '';
        state.ended = true;
        const usage = chatUsageOf(event.response);
        const last = dataLine({
          id: state.id,
          object: 'chat.completion.chunk',
          created: state.created,
          model: state.model,
          choices: [{ index: 0, delta: {}, finish_reason: finishReasonOf(event.response) }],
          ...(usage ? { usage } : {}),
        });
        return `${last}data: [DONE]\n\n`;
      }
      case 'response.failed':
        state.ended = true;
        return dataLine(
          failureBody(
            event.response?.error?.message ?? 'The response failed.',
            event.response?.error?.code,
            event.response?.id,
          ),
        );
      case 'error':
        state.ended = true;
        return dataLine(failureBody(event.message ?? 'The stream failed.', event.code));
      default:
        return '';
    }
  }

  return {
    /** One SSE `data:` payload of the gateway's stream; `[DONE]` and bad JSON yield nothing. */
    translateData(data: string): string {
      let value: unknown;
      try {
        value = JSON.parse(data);
      } catch {
        return '';
      }
      const event = responsesStreamEventSchema.safeParse(value);
      return event.success ? translate(event.data) : '';
    },
    get ended(): boolean {
      return state.ended;
    },
  };
}
