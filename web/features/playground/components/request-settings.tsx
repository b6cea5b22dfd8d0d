/** The request's settings beside the conversation: its parameters and its tools. */
import { useMemo } from 'react';
import { parseToolsText } from '../build-request';
import type { PlaygroundAction } from '../conversation-state';
import type { PlaygroundSession } from '../playground-types';
import type { ModelCapabilities } from '../use-model-capabilities';
import { ParametersPanel } from './parameters-panel';
import { ToolsEditor } from './tools-editor';

export function RequestSettings({
  session,
  dispatch,
  capabilities,
}: {
  session: PlaygroundSession;
  dispatch(action: PlaygroundAction): void;
  capabilities: ModelCapabilities;
}) {
  const toolNames = useMemo(
    () => (parseToolsText(session.toolsText).tools ?? []).map((tool) => tool.function.name),
    [session.toolsText],
  );
  return (
    <aside
      aria-label="Request settings"
      className="flex flex-col gap-5 lg:sticky lg:top-16 lg:max-h-[calc(100vh-5rem)] lg:self-start lg:overflow-y-auto"
    >
      <ParametersPanel
        parameters={session.parameters}
        model={capabilities.catalogModel}
        toolNames={toolNames}
        onChange={(changes) => dispatch({ type: 'parametersChanged', changes })}
      />
      <ToolsEditor
        text={session.toolsText}
        onChange={(text) => dispatch({ type: 'toolsTextChanged', text })}
        supported={capabilities.toolsSupported}
        modelId={capabilities.model}
        inCatalog={capabilities.catalogModel !== undefined}
      />
    </aside>
  );
}
