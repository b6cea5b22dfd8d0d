/**
 * The model's reasoning above its answer, in a collapsible "Reasoning" block with its token
 * count: open while the model thinks and nothing of the answer has come yet, folded after,
 * unless the person opened or closed it themselves.
 */
import { useState } from 'react';
import type { ConversationMessage } from '../playground-types';

export function ReasoningBlock({ message }: { message: ConversationMessage }) {
  const [chosenOpen, setChosenOpen] = useState<boolean | null>(null);
  const text = message.reasoning ?? '';
  const tokens = message.run?.usage?.reasoning_tokens ?? 0;
  const streaming = message.run?.status === 'streaming';
  if (text === '' && tokens === 0) return null;
  const answering = message.text !== '' || (message.toolCalls?.length ?? 0) > 0;
  const open = chosenOpen ?? (streaming && !answering);
  const count =
    tokens > 0
      ? `${tokens.toLocaleString('en-US')} ${tokens === 1 ? 'token' : 'tokens'}`
      : streaming
        ? 'thinking…'
        : null;
  return (
    <details
      open={open}
      onToggle={(event) => {
        const nowOpen = event.currentTarget.open;
        if (nowOpen !== open) setChosenOpen(nowOpen);
      }}
      className="mb-2 rounded-md border border-zinc-200 bg-zinc-50 text-sm dark:border-zinc-800 dark:bg-zinc-900"
    >
      <summary className="cursor-pointer px-2 py-1 text-xs font-medium text-zinc-700 dark:text-zinc-300">
        Reasoning
        {count && <span className="font-normal text-zinc-500 dark:text-zinc-400"> · {count}</span>}
      </summary>
      <p className="border-t border-zinc-200 px-2 py-1.5 text-xs break-words whitespace-pre-wrap text-zinc-600 dark:border-zinc-800 dark:text-zinc-400">
        {text !== ''
          ? text
          : 'The model did not show its reasoning; the tokens are charged as output.'}
      </p>
    </details>
  );
}
