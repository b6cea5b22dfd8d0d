/**
 * Rules a vendor enforces on what it is sent, for fake upstreams (`FakeUpstream.refuse`): a test
 * upstream refuses what the real one would, with the vendor's status and error shape.
 */
import type { FakeReply, RecordedRequest } from './fake-upstream';

/** @see https://docs.anthropic.com/en/api/errors */
const anthropicRefusal = (message: string): FakeReply => ({
  status: 400,
  body: { type: 'error', error: { type: 'invalid_request_error', message } },
});

type Block = Record<string, unknown>;

/**
 * Tool ids as an upstream that constrains them checks them: each `tool_use` in the history has an
 * id this upstream issued (`issued`, filled by the test as it scripts replies), and each
 * `tool_result` answers a `tool_use` of the assistant turn right before it, as Anthropic requires.
 * @see https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use
 */
export function anthropicToolIds(issued: ReadonlySet<string>) {
  return (request: RecordedRequest): FakeReply | undefined => {
    const messages = (request.body.messages ?? []) as Array<{ role: string; content: unknown }>;
    let previousUses: string[] = [];
    for (const [index, message] of messages.entries()) {
      const blocks = Array.isArray(message.content) ? (message.content as Block[]) : [];
      const uses = blocks.filter((block) => block.type === 'tool_use').map((block) => block.id);
      for (const id of uses) {
        if (typeof id !== 'string' || !issued.has(id))
          return anthropicRefusal(
            `messages.${index}.content: \`tool_use\` id ${String(id)} was not issued by this upstream.`,
          );
      }
      for (const block of blocks) {
        if (block.type === 'tool_result' && !previousUses.includes(block.tool_use_id as string))
          return anthropicRefusal(
            `messages.${index}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ` +
              `${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding ` +
              '`tool_use` block in the previous message.',
          );
      }
      previousUses = message.role === 'assistant' ? (uses as string[]) : [];
    }
    return undefined;
  };
}
