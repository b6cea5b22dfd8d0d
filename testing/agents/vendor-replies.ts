/**
 * Streamed answers of each upstream kind, built for the agent CLI tests: a text answer, and one
 * tool call, each as the vendor streams it (shapes as in the recorded `gateway/vendors/<vendor>/__fixtures__`),
 * so a fake upstream can drive an agent through one round of tool use. The recorded fixtures call
 * `get_weather`, which no agent CLI has; here the test names a tool of the CLI's own. Besides the
 * three kinds, OpenAI's Responses wire, for an OpenAI upstream that declares `responses_api`.
 * @see https://docs.anthropic.com/en/api/messages-streaming
 * @see https://platform.openai.com/docs/api-reference/chat-streaming
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 * @see https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */
import type { UpstreamKind } from '../../gateway/providers/upstream/provider-config';
import { signThinking } from '../upstreams/vendor-rules';
import type { FakeReply } from '../upstreams/fake-upstream';

const sse = (data: unknown, event?: string) =>
  `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

type Answer =
  { text: string } | { tool: { id: string; name: string; args: unknown }; thinking?: string };

/** A thinking block as the vendor streams it: its text, then its signature, at `index`. */
function anthropicThinking(text: string, index: number): string[] {
  const delta = (body: unknown) =>
    sse({ type: 'content_block_delta', index, delta: body }, 'content_block_delta');
  return [
    sse(
      {
        type: 'content_block_start',
        index,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      },
      'content_block_start',
    ),
    delta({ type: 'thinking_delta', thinking: text }),
    delta({ type: 'signature_delta', signature: signThinking(text) }),
    sse({ type: 'content_block_stop', index }, 'content_block_stop'),
  ];
}

function anthropicEvents(answer: Answer): string[] {
  const thinking = 'tool' in answer && answer.thinking !== undefined ? answer.thinking : null;
  const index = thinking === null ? 0 : 1;
  const block =
    'text' in answer
      ? { start: { type: 'text', text: '' }, delta: { type: 'text_delta', text: answer.text } }
      : {
          start: { type: 'tool_use', id: answer.tool.id, name: answer.tool.name, input: {} },
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(answer.tool.args) },
        };
  return [
    sse(
      {
        type: 'message_start',
        message: {
          id: 'msg_agent_test',
          type: 'message',
          role: 'assistant',
          model: 'claude-upstream-1',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 40, output_tokens: 1 },
        },
      },
      'message_start',
    ),
    ...(thinking === null ? [] : anthropicThinking(thinking, 0)),
    sse({ type: 'content_block_start', index, content_block: block.start }, 'content_block_start'),
    sse({ type: 'content_block_delta', index, delta: block.delta }, 'content_block_delta'),
    sse({ type: 'content_block_stop', index }, 'content_block_stop'),
    sse(
      {
        type: 'message_delta',
        delta: { stop_reason: 'text' in answer ? 'end_turn' : 'tool_use', stop_sequence: null },
        usage: { output_tokens: 12 },
      },
      'message_delta',
    ),
    sse({ type: 'message_stop' }, 'message_stop'),
  ];
}

function openaiEvents(answer: Answer): string[] {
  const chunk = (delta: unknown, finish: string | null, usage: unknown = null) =>
    sse({
      id: 'chatcmpl-agent-test',
      object: 'chat.completion.chunk',
      created: 1_764_000_000,
      model: 'gpt-upstream-1',
      choices: delta === null ? [] : [{ index: 0, delta, finish_reason: finish }],
      usage,
    });
  const delta =
    'text' in answer
      ? { role: 'assistant', content: answer.text }
      : {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              index: 0,
              id: answer.tool.id,
              type: 'function',
              function: { name: answer.tool.name, arguments: JSON.stringify(answer.tool.args) },
            },
          ],
        };
  return [
    chunk(delta, null),
    chunk({}, 'text' in answer ? 'stop' : 'tool_calls'),
    chunk(null, null, { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 }),
    'data: [DONE]\n\n',
  ];
}

function geminiEvents(answer: Answer): string[] {
  const part =
    'text' in answer
      ? { text: answer.text }
      : { functionCall: { name: answer.tool.name, args: answer.tool.args } };
  return [
    sse({
      candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 40, candidatesTokenCount: 12, totalTokenCount: 52 },
      modelVersion: 'gemini-upstream-1',
    }),
  ];
}

function responsesEvents(answer: Answer): string[] {
  const item =
    'text' in answer
      ? {
          id: 'msg_agent_test',
          type: 'message',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: answer.text, annotations: [] }],
        }
      : {
          id: 'fc_agent_test',
          type: 'function_call',
          status: 'completed',
          call_id: answer.tool.id,
          name: answer.tool.name,
          arguments: JSON.stringify(answer.tool.args),
        };
  const response = {
    id: 'resp_agent_test',
    object: 'response',
    created_at: 1_764_000_000,
    model: 'gpt-upstream-1',
  };
  const started =
    'text' in answer
      ? { ...item, status: 'in_progress', content: [] }
      : { ...item, status: 'in_progress', arguments: '' };
  // The text arrives as a delta; a call's arguments arrive whole in its `done` item.
  const deltas =
    'text' in answer
      ? [
          {
            type: 'response.output_text.delta',
            item_id: item.id,
            output_index: 0,
            content_index: 0,
            delta: answer.text,
          },
        ]
      : [];
  const events = [
    { type: 'response.created', response: { ...response, status: 'in_progress', output: [] } },
    { type: 'response.output_item.added', output_index: 0, item: started },
    ...deltas,
    { type: 'response.output_item.done', output_index: 0, item },
    {
      type: 'response.completed',
      response: {
        ...response,
        status: 'completed',
        output: [item],
        usage: { input_tokens: 40, output_tokens: 12, total_tokens: 52 },
      },
    },
  ];
  return events.map((event, index) => sse({ ...event, sequence_number: index }, event.type));
}

/** An upstream kind, or an OpenAI upstream speaking the Responses wire. */
export type ReplyWire = UpstreamKind | 'openai-responses';

const BUILDERS: Record<ReplyWire, (answer: Answer) => string[]> = {
  anthropic: anthropicEvents,
  'openai-compatible': openaiEvents,
  'openai-responses': responsesEvents,
  gemini: geminiEvents,
};

export const textReply = (kind: ReplyWire, text: string): FakeReply => ({
  headers: { 'content-type': 'text/event-stream' },
  events: BUILDERS[kind]({ text }),
});

/**
 * A tool call; with `thinking`, an Anthropic answer starts with that thinking block, signed as
 * the rule-keeping fake checks it (`testing/upstreams/vendor-rules.ts`). Other kinds ignore it.
 */
export const toolCallReply = (
  kind: ReplyWire,
  tool: { id: string; name: string; args: unknown },
  thinking?: string,
): FakeReply => ({
  headers: { 'content-type': 'text/event-stream' },
  events: BUILDERS[kind]({ tool, ...(thinking !== undefined && { thinking }) }),
});
