/**
 * Rules a vendor enforces on what it is sent, for fake upstreams (`FakeUpstream.refuse`): a test
 * upstream refuses what the real one would, with the vendor's status and error shape.
 */
import { createHash } from 'node:crypto';
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

/**
 * Anthropic's documented rules on thinking blocks, as a fake upstream enforces them (`FakeUpstream.refuse`): with
 * thinking on, the last assistant turn that holds a tool call must start with a thinking (or
 * redacted_thinking) block, and every thinking block handed back must carry the signature the
 * upstream made for exactly that text. The answers are the vendor's own 400s.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks
 */

/** The signature this fake makes for a thinking text: a change of one byte changes it. */
export const signThinking = (text: string) =>
  `sig-${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;

type ThinkingBlock = { type?: string; thinking?: string; signature?: string; data?: string };
type Message = { role?: string; content?: unknown };

/** The vendor's 400 for a request that breaks its thinking rules, or null when it keeps them. */
export function anthropicThinkingRules(request: RecordedRequest): FakeReply | undefined {
  const body = request.body as { thinking?: { type?: string }; messages?: Message[] };
  const messages = body.messages ?? [];
  for (const [index, message] of messages.entries()) {
    if (message.role !== 'assistant' || !Array.isArray(message.content)) continue;
    for (const [position, block] of (message.content as ThinkingBlock[]).entries()) {
      if (block.type === 'thinking' && block.signature !== signThinking(block.thinking ?? ''))
        return anthropicRefusal(
          `messages.${index}.content.${position}: Invalid \`signature\` in \`thinking\` block`,
        );
    }
  }
  const thinking = body.thinking?.type;
  if (thinking === undefined || thinking === 'disabled') return undefined;
  const lastIndex = messages.findLastIndex((message) => message.role === 'assistant');
  const last = messages[lastIndex];
  if (!last || !Array.isArray(last.content)) return undefined;
  const blocks = last.content as ThinkingBlock[];
  if (!blocks.some((block) => block.type === 'tool_use')) return undefined;
  const first = blocks[0]?.type;
  if (first === 'thinking' || first === 'redacted_thinking') return undefined;
  return anthropicRefusal(
    `messages.${lastIndex}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`,
  );
}
