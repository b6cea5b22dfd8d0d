/**
 * The conversation column for a chat model: the system prompt, the transcript, the notes about
 * the last send, and the composer with its prompt-token estimate.
 */
import { useMemo, useRef } from 'react';
import { toWireMessages } from '../build-request';
import { estimatePromptTokens } from '../metrics';
import type { RunRecord, ToolCall } from '../playground-types';
import type { ModelCapabilities } from '../use-model-capabilities';
import type { PlaygroundRuns } from '../use-playground-runs';
import type { PlaygroundSessionState } from '../use-playground-session';
import { useFollowOutput } from '../use-follow-output';
import { usePromptTokenCount } from '../use-prompt-token-count';
import { BudgetNotice } from './budget-notice';
import { Composer } from './composer';
import { PlaygroundNotices } from './playground-notices';
import { SystemPromptField } from './system-prompt-field';
import { Transcript } from './transcript';

export interface ConversationSectionProps {
  /** The key profile the count is asked with; null until one is chosen. */
  profile: string | null;
  playground: PlaygroundSessionState;
  capabilities: ModelCapabilities;
  runs: PlaygroundRuns;
  openToolCalls: ToolCall[];
  historyNote: string | null;
  /** Opens the History entry a re-run kept the dropped turns in. */
  onOpenHistoryEntry(id: string): void;
  onShowRaw(run: RunRecord): void;
  onShowCode(run: RunRecord): void;
}

export function ConversationSection({
  profile,
  playground,
  capabilities,
  runs,
  openToolCalls,
  historyNote,
  onOpenHistoryEntry,
  onShowRaw,
  onShowCode,
}: ConversationSectionProps) {
  const { session, dispatch, draft } = playground;
  // What Send would send, with the draft as the last turn, so the count follows the typing.
  const promptMessages = useMemo(
    () => [
      ...toWireMessages(session.systemPrompt, session.messages),
      ...(draft.text !== '' ? [{ role: 'user' as const, content: draft.text }] : []),
    ],
    [session.systemPrompt, session.messages, draft.text],
  );
  const promptTokens = usePromptTokenCount({
    profile,
    model: capabilities.model,
    messages: promptMessages,
    estimate: useMemo(() => estimatePromptTokens(promptMessages), [promptMessages]),
  });
  const lastMessage = session.messages.at(-1);
  const conversationEnd = useRef<HTMLDivElement>(null);
  useFollowOutput(
    conversationEnd,
    runs.running,
    (lastMessage?.text.length ?? 0) + (lastMessage?.reasoning?.length ?? 0),
  );
  return (
    <>
      <SystemPromptField
        value={session.systemPrompt}
        onChange={(text) => dispatch({ type: 'systemPromptChanged', text })}
      />
      <Transcript
        session={session}
        dispatch={dispatch}
        model={capabilities.model}
        findModel={capabilities.findModel}
        runs={runs}
        onModelChosen={playground.chooseModel}
        onShowRaw={onShowRaw}
        onShowCode={onShowCode}
      />
      <PlaygroundNotices
        rerunCopy={playground.rerunCopy}
        running={runs.running}
        onOpenRerunCopy={onOpenHistoryEntry}
        onDismissRerunCopy={playground.dismissRerunCopy}
        problems={runs.problems}
        notes={runs.notes}
        historyNote={historyNote}
        conversationImagesNote={capabilities.conversationImagesNote}
      />
      {runs.budgetShortfall && (
        <BudgetNotice
          shortfall={runs.budgetShortfall}
          onFit={runs.fitMaxTokens}
          onSendAnyway={runs.sendAnyway}
          onDismiss={runs.dismissBudget}
        />
      )}
      {/* Pinned to the bottom of the viewport: Stop stays in reach however long the reply. */}
      <div className="sticky bottom-0 z-10 -mx-1 bg-white/95 px-1 pb-2 dark:bg-zinc-950/95">
        <Composer
          draft={draft}
          onDraftChange={playground.setDraft}
          running={runs.running}
          imagesSupported={capabilities.imagesSupported}
          imagesReason={capabilities.imagesReason}
          openToolCalls={openToolCalls}
          sendDisabledReason={runs.sendDisabledReason}
          onSend={runs.send}
          onAdd={runs.addDraft}
          onStop={runs.stop}
          promptEstimate={{
            ...promptTokens,
            contextLength: capabilities.catalogModel?.context_length ?? null,
          }}
        />
      </div>
      <div ref={conversationEnd} aria-hidden="true" />
    </>
  );
}
