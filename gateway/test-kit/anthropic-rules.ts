/**
 * Anthropic's documented rules on thinking blocks, as a fake upstream enforces them: with
 * thinking on, the last assistant turn that holds a tool call must start with a thinking (or
 * redacted_thinking) block, and every thinking block handed back must carry the signature the
 * upstream made for exactly that text. The answers are the vendor's own 400s.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks
 */
import { createHash } from 'node:crypto';
import type { FakeReply, RecordedRequest } from './fake-upstream';

/** The signature this fake makes for a thinking text: a change of one byte changes it. */
export const signThinking = (text: string) =>
  `sig-${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;

const refusal = (message: string): FakeReply => ({
  status: 400,
  body: { type: 'error', error: { type: 'invalid_request_error', message } },
});

type Block = { type?: string; thinking?: string; signature?: string; data?: string };
type Message = { role?: string; content?: unknown };

/** The vendor's 400 for a request that breaks its thinking rules, or null when it keeps them. */
export function anthropicThinkingRules(request: RecordedRequest): FakeReply | null {
  const body = request.body as { thinking?: { type?: string }; messages?: Message[] };
  const messages = body.messages ?? [];
  for (const [index, message] of messages.entries()) {
    if (message.role !== 'assistant' || !Array.isArray(message.content)) continue;
    for (const [position, block] of (message.content as Block[]).entries()) {
      if (block.type === 'thinking' && block.signature !== signThinking(block.thinking ?? ''))
        return refusal(
          `messages.${index}.content.${position}: Invalid \`signature\` in \`thinking\` block`,
        );
    }
  }
  const thinking = body.thinking?.type;
  if (thinking === undefined || thinking === 'disabled') return null;
  const lastIndex = messages.findLastIndex((message) => message.role === 'assistant');
  const last = messages[lastIndex];
  if (!last || !Array.isArray(last.content)) return null;
  const blocks = last.content as Block[];
  if (!blocks.some((block) => block.type === 'tool_use')) return null;
  const first = blocks[0]?.type;
  if (first === 'thinking' || first === 'redacted_thinking') return null;
  return refusal(
    `messages.${lastIndex}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`,
  );
}
