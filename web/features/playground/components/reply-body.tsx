/**
 * An assistant reply: its reasoning, the Markdown text as it streams, the tool calls it asked for, how it
 * ended (stopped, failed) and its metrics.
 */
import type { CatalogModel } from '../../../../contract/workbench-api';
import type { ConversationMessage } from '../playground-types';
import { replyLimits } from '../long-text';
import { FoldedText } from './folded-text';
import { HungGatewayNote } from './hung-gateway-note';
import { MarkdownContent } from './markdown-content';
import { ReasoningBlock } from './reasoning-block';
import { ReplyMetrics } from './reply-metrics';
import { RunErrorPanel } from './run-error-panel';
import { StoppedNote } from './stopped-note';

export function ToolCallList({ message }: { message: ConversationMessage }) {
  if (!message.toolCalls || message.toolCalls.length === 0) return null;
  return (
    <ul className="mt-2 flex flex-col gap-1.5" aria-label="Tool calls">
      {message.toolCalls.map((call) => (
        <li
          key={call.id}
          className="rounded-md border border-violet-200 bg-violet-50/60 p-2 dark:border-violet-900 dark:bg-violet-950/30"
        >
          <p className="text-xs">
            <span className="font-medium">Tool call</span>{' '}
            <code className="font-mono font-semibold">{call.function.name}</code>{' '}
            <span className="font-mono text-zinc-500 dark:text-zinc-400">{call.id}</span>
          </p>
          <pre className="mt-1 overflow-x-auto font-mono text-xs whitespace-pre-wrap">
            {call.function.arguments || '{}'}
          </pre>
        </li>
      ))}
    </ul>
  );
}

export function ReplyBody({
  message,
  model,
  copyLabel,
  onStop,
}: {
  message: ConversationMessage;
  model: CatalogModel | undefined;
  /** What the reply is called in copy buttons' names ("turn 3"). */
  copyLabel: string;
  /** Stops the reply, offered in place when the gateway stops answering. */
  onStop?(): void;
}) {
  const run = message.run;
  const streaming = run?.status === 'streaming';
  const empty = message.text === '' && (message.toolCalls?.length ?? 0) === 0;
  return (
    <div aria-busy={streaming} className="min-w-0">
      <ReasoningBlock message={message} />
      {message.text !== '' &&
        (streaming ? (
          <MarkdownContent text={message.text} codeCopyLabel={copyLabel} />
        ) : (
          <FoldedText text={message.text} limits={replyLimits}>
            {(shown) => <MarkdownContent text={shown} codeCopyLabel={copyLabel} />}
          </FoldedText>
        ))}
      {streaming && empty && !message.reasoning && (
        <p className="text-sm text-zinc-500 dark:text-zinc-400" role="status">
          Waiting for the first token…
        </p>
      )}
      {!streaming && empty && run?.status !== 'error' && (
        <p className="text-sm text-zinc-500 italic dark:text-zinc-400">(empty reply)</p>
      )}
      {streaming && onStop && <HungGatewayNote onStop={onStop} />}
      <ToolCallList message={message} />
      <StoppedNote message={message} />
      {run?.error && (
        <div className="mt-2">
          <RunErrorPanel error={run.error} />
        </div>
      )}
      {run && <ReplyMetrics run={run} replyText={message.text} model={model} />}
    </div>
  );
}
