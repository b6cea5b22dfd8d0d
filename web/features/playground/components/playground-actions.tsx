/** The page header's actions: presets, History, Get code and New conversation. */
import { Button } from '../../../components/button';
import type { PlaygroundAction } from '../conversation-state';
import type { PlaygroundSession } from '../playground-types';
import { PresetsPopover } from './presets-popover';

export interface PlaygroundActionsProps {
  /** The session with the model in use filled in, as a preset would save it. */
  session: PlaygroundSession;
  dispatch(action: PlaygroundAction): void;
  onModelChosen(model: string): void;
  onOpenHistory(): void;
  onGetCode(): void;
  onNewConversation(): void;
}

export function PlaygroundActions({
  session,
  dispatch,
  onModelChosen,
  onOpenHistory,
  onGetCode,
  onNewConversation,
}: PlaygroundActionsProps) {
  return (
    <>
      <PresetsPopover
        session={session}
        onApply={(preset) => {
          if (preset.model) onModelChosen(preset.model);
          dispatch({ type: 'systemPromptChanged', text: preset.systemPrompt });
          dispatch({ type: 'parametersChanged', changes: preset.parameters });
          dispatch({ type: 'toolsTextChanged', text: preset.toolsText });
        }}
      />
      <Button size="small" onClick={onOpenHistory}>
        History
      </Button>
      <Button size="small" onClick={onGetCode}>
        Get code
      </Button>
      <Button
        size="small"
        variant="ghost"
        onClick={onNewConversation}
        disabled={session.messages.length === 0 && session.compareLanes.length === 0}
      >
        New conversation
      </Button>
    </>
  );
}
