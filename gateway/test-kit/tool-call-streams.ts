/**
 * Minimal streamed answers of each upstream kind that call one tool, in the vendor's own event
 * shapes, for tests where a real client (an agent CLI) must run a tool of its own choosing: the
 * recorded fixtures call `get_weather`, which such a client does not have.
 * @see https://platform.openai.com/docs/api-reference/chat-streaming
 * @see https://docs.anthropic.com/en/api/messages-streaming
 * @see https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */
import type { UpstreamKind } from '../providers/upstream/provider-config';

const sse = (data: unknown, event?: string) =>
  `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

/** A stream that calls `name` with `args` and ends, as `kind` sends it. */
export function toolCallStream(
  kind: UpstreamKind | 'openai-responses',
  name: string,
  args: Record<string, unknown>,
): string[] {
  const argumentsText = JSON.stringify(args);
  switch (kind) {
    case 'openai-compatible': {
      const base = { id: 'chatcmpl-tool', object: 'chat.completion.chunk', created: 1, model: 'm' };
      return [
        sse({
          ...base,
          choices: [
            {
              index: 0,
              delta: {
                role: 'assistant',
                tool_calls: [
                  {
                    index: 0,
                    id: 'call_t1',
                    type: 'function',
                    function: { name, arguments: argumentsText },
                  },
                ],
              },
              finish_reason: null,
            },
          ],
        }),
        sse({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }),
        sse({
          ...base,
          choices: [],
          usage: { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 },
        }),
        'data: [DONE]\n\n',
      ];
    }
    case 'anthropic':
      return [
        sse(
          {
            type: 'message_start',
            message: {
              id: 'msg_tool',
              type: 'message',
              role: 'assistant',
              model: 'm',
              content: [],
              stop_reason: null,
              stop_sequence: null,
              usage: { input_tokens: 40, output_tokens: 1 },
            },
          },
          'message_start',
        ),
        sse(
          {
            type: 'content_block_start',
            index: 0,
            content_block: { type: 'tool_use', id: 'toolu_t1', name, input: {} },
          },
          'content_block_start',
        ),
        sse(
          {
            type: 'content_block_delta',
            index: 0,
            delta: { type: 'input_json_delta', partial_json: argumentsText },
          },
          'content_block_delta',
        ),
        sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop'),
        sse(
          {
            type: 'message_delta',
            delta: { stop_reason: 'tool_use', stop_sequence: null },
            usage: { output_tokens: 12 },
          },
          'message_delta',
        ),
        sse({ type: 'message_stop' }, 'message_stop'),
      ];
    case 'gemini':
      return [
        sse({
          candidates: [
            {
              content: { role: 'model', parts: [{ functionCall: { name, args } }] },
              finishReason: 'STOP',
              index: 0,
            },
          ],
          usageMetadata: { promptTokenCount: 40, candidatesTokenCount: 12, totalTokenCount: 52 },
        }),
      ];
    case 'openai-responses': {
      const call = {
        id: 'fc_t1',
        type: 'function_call',
        status: 'completed',
        call_id: 'call_t1',
        name,
        arguments: argumentsText,
      };
      const response = { id: 'resp_t1', object: 'response', created_at: 1, model: 'm' };
      const usage = { input_tokens: 40, output_tokens: 12, total_tokens: 52 };
      return [
        sse(
          {
            type: 'response.created',
            sequence_number: 0,
            response: { ...response, status: 'in_progress', output: [] },
          },
          'response.created',
        ),
        sse(
          {
            type: 'response.output_item.added',
            sequence_number: 1,
            output_index: 0,
            item: { ...call, status: 'in_progress', arguments: '' },
          },
          'response.output_item.added',
        ),
        sse(
          { type: 'response.output_item.done', sequence_number: 2, output_index: 0, item: call },
          'response.output_item.done',
        ),
        sse(
          {
            type: 'response.completed',
            sequence_number: 3,
            response: { ...response, status: 'completed', output: [call], usage },
          },
          'response.completed',
        ),
      ];
    }
  }
}

/** A streamed text answer of each kind, the answer after a tool round. */
export function textStream(kind: UpstreamKind | 'openai-responses', text: string): string[] {
  switch (kind) {
    case 'openai-compatible': {
      const base = { id: 'chatcmpl-text', object: 'chat.completion.chunk', created: 1, model: 'm' };
      return [
        sse({
          ...base,
          choices: [{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null }],
        }),
        sse({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
        sse({
          ...base,
          choices: [],
          usage: { prompt_tokens: 60, completion_tokens: 8, total_tokens: 68 },
        }),
        'data: [DONE]\n\n',
      ];
    }
    case 'anthropic':
      return [
        sse(
          {
            type: 'message_start',
            message: {
              id: 'msg_text',
              type: 'message',
              role: 'assistant',
              model: 'm',
              content: [],
              stop_reason: null,
              stop_sequence: null,
              usage: { input_tokens: 60, output_tokens: 1 },
            },
          },
          'message_start',
        ),
        sse(
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          'content_block_start',
        ),
        sse(
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
          'content_block_delta',
        ),
        sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop'),
        sse(
          {
            type: 'message_delta',
            delta: { stop_reason: 'end_turn', stop_sequence: null },
            usage: { output_tokens: 8 },
          },
          'message_delta',
        ),
        sse({ type: 'message_stop' }, 'message_stop'),
      ];
    case 'gemini':
      return [
        sse({
          candidates: [
            { content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 },
          ],
          usageMetadata: { promptTokenCount: 60, candidatesTokenCount: 8, totalTokenCount: 68 },
        }),
      ];
    case 'openai-responses': {
      const message = {
        id: 'msg_t2',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text, annotations: [] }],
      };
      const response = { id: 'resp_t2', object: 'response', created_at: 1, model: 'm' };
      return [
        sse(
          {
            type: 'response.created',
            sequence_number: 0,
            response: { ...response, status: 'in_progress', output: [] },
          },
          'response.created',
        ),
        sse(
          {
            type: 'response.output_item.added',
            sequence_number: 1,
            output_index: 0,
            item: { ...message, status: 'in_progress', content: [] },
          },
          'response.output_item.added',
        ),
        sse(
          {
            type: 'response.output_text.delta',
            sequence_number: 2,
            item_id: 'msg_t2',
            output_index: 0,
            content_index: 0,
            delta: text,
          },
          'response.output_text.delta',
        ),
        sse(
          { type: 'response.output_item.done', sequence_number: 3, output_index: 0, item: message },
          'response.output_item.done',
        ),
        sse(
          {
            type: 'response.completed',
            sequence_number: 4,
            response: {
              ...response,
              status: 'completed',
              output: [message],
              usage: { input_tokens: 60, output_tokens: 8, total_tokens: 68 },
            },
          },
          'response.completed',
        ),
      ];
    }
  }
}
