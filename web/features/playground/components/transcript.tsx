/**
 * The conversation as sent: its messages (editable, re-runnable), the tool calls waiting for
 * results, the compare columns, and the question of which compared reply a new message follows.
 */
import type { CatalogModel } from '../../../../contract/workbench-api';
import type { PlaygroundAction } from '../conversation-state';
import type { PlaygroundSession, RunRecord } from '../playground-types';
import type { PlaygroundRuns } from '../use-playground-runs';
import { CompareLanes, ContinueChoicePanel } from './compare-lanes';
import { MessageItem } from './message-item';
import { ToolResultsForm } from './tool-results-form';

export interface TranscriptProps {
  session: PlaygroundSession;
  dispatch(action: PlaygroundAction): void;
  /** The chosen model, for the messages no run has answered yet. */
  model: string;
  findModel(id: string): CatalogModel | undefined;
  runs: PlaygroundRuns;
  /** A compared reply was kept: its model becomes the chosen one. */
  onModelChosen(model: string): void;
  onShowRaw(run: RunRecord): void;
  onShowCode(run: RunRecord): void;
}

export function Transcript({
  session,
  dispatch,
  model,
  findModel,
  runs,
  onModelChosen,
  onShowRaw,
  onShowCode,
}: TranscriptProps) {
  const lastMessage = session.messages.at(-1);
  const pendingToolCalls =
    lastMessage?.role === 'assistant' &&
    lastMessage.toolCalls &&
    lastMessage.toolCalls.length > 0 &&
    lastMessage.run?.status !== 'streaming'
      ? lastMessage.toolCalls
      : null;
  return (
    <>
      {session.messages.length > 0 && (
        <ol aria-label="Conversation" className="flex flex-col gap-2">
          {session.messages.map((message, index) => (
            <MessageItem
              key={message.id}
              message={message}
              position={index + 1}
              model={findModel(message.run?.model ?? model)}
              locked={runs.running}
              onEdit={(changes) => dispatch({ type: 'messageEdited', id: message.id, changes })}
              onDelete={() => dispatch({ type: 'messageDeleted', id: message.id })}
              onRerun={() => runs.rerunFrom(message)}
              onStop={runs.stop}
              onDiscard={() => {
                const asked = session.messages[index - 1];
                dispatch({ type: 'messageDeleted', id: message.id });
                if (asked?.role === 'user') dispatch({ type: 'messageDeleted', id: asked.id });
              }}
              onRemoveImage={(imageIndex) =>
                dispatch({
                  type: 'messageEdited',
                  id: message.id,
                  changes: {
                    images: message.images.filter((_, other) => other !== imageIndex),
                  },
                })
              }
              onShowRaw={onShowRaw}
              onShowCode={onShowCode}
            />
          ))}
        </ol>
      )}

      {pendingToolCalls && (
        <ToolResultsForm
          key={lastMessage?.id}
          toolCalls={pendingToolCalls}
          disabled={runs.running}
          onSubmit={runs.submitToolResults}
        />
      )}

      <CompareLanes
        lanes={session.compareLanes}
        findModel={findModel}
        running={runs.running}
        onKeep={(replyId) => {
          const lane = session.compareLanes.find((candidate) => candidate.reply?.id === replyId);
          dispatch({ type: 'compareReplyKept', replyId });
          if (lane) onModelChosen(lane.model);
        }}
        onShowRaw={onShowRaw}
        onShowCode={onShowCode}
      />

      {runs.continueChoice && (
        <ContinueChoicePanel
          lanes={runs.keepableLanes}
          action={runs.continueChoice}
          onChoose={runs.continueWith}
          onCancel={runs.cancelContinue}
        />
      )}
    </>
  );
}
