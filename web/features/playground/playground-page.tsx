/**
 * The playground: try a model through the gateway before writing code. A conversation with a
 * system prompt and editable messages, the parameters the model supports, streamed replies with
 * their metrics and charge, the raw exchange, code export, compare, tools and images, history and
 * presets. It talks only to the BFF (`/api`); keys stay there. The page wires the pieces that live
 * beside it: the session (`use-playground-session`), what the model can take
 * (`use-model-capabilities`), sending (`use-playground-runs`), "Get code" (`use-code-export`),
 * saving (`use-history-autosave`), keys (`use-playground-shortcuts`), the sections in
 * `components/`, and, for an embedding model, the embeddings view (`embeddings/`) in place of the
 * conversation.
 */
import { useMemo, useState } from 'react';
import { useCatalog } from '../../api/catalog';
import { useHealth } from '../../api/health';
import { useProfile } from '../../app/profile-context';
import { PageLayout } from '../../components/page-layout';
import { useSearchParamState } from '../../lib/use-search-param-state';
import { toWireMessages } from './build-request';
import { apiFromParam } from './components/api-choice';
import { CodeDialog } from './components/code-dialog';
import { Composer } from './components/composer';
import { HistoryDialog } from './components/history-dialog';
import { ModelLine } from './components/model-line';
import { PlaygroundActions } from './components/playground-actions';
import { PlaygroundNotices, RestoredNote } from './components/playground-notices';
import { RawViewDialog } from './components/raw-view-dialog';
import { RequestSettings } from './components/request-settings';
import { SystemPromptField } from './components/system-prompt-field';
import { Transcript } from './components/transcript';
import { openToolCalls as findOpenToolCalls } from './conversation-state';
import { EmbeddingsView } from './embeddings/embeddings-view';
import { useEmbeddingsDraft } from './embeddings/use-embeddings-draft';
import { historyStore, type HistoryEntry } from './history-store';
import { estimatePromptTokens } from './metrics';
import type { RunRecord } from './playground-types';
import { useCodeExport } from './use-code-export';
import { useHistoryAutosave } from './use-history-autosave';
import { useModelCapabilities } from './use-model-capabilities';
import { usePlaygroundRuns } from './use-playground-runs';
import { usePlaygroundSession } from './use-playground-session';
import { usePlaygroundShortcuts } from './use-playground-shortcuts';
import './playground.css';

export function PlaygroundPage() {
  const catalogQuery = useCatalog();
  const healthQuery = useHealth();
  const { profile, profiles } = useProfile();
  const { searchParams, setParam } = useSearchParamState();
  const api = apiFromParam(searchParams.get('api'));
  const embeddingsDraft = useEmbeddingsDraft();
  const playground = usePlaygroundSession({
    urlModel: searchParams.get('model'),
    setUrlModel: (id) => setParam('model', id, 'replace'),
  });
  const { session, dispatch, draft, chooseModel } = playground;
  const capabilities = useModelCapabilities({
    catalogModels: catalogQuery.data?.models,
    catalogKnown: catalogQuery.isSuccess,
    chosenModel: session.model,
    messages: session.messages,
  });
  const { model, catalogModel, embeddingModel, findModel } = capabilities;
  const [rawRun, setRawRun] = useState<RunRecord | null>(null);
  const [historyOpen, setHistoryOpen] = useState(false);
  const openCalls = useMemo(() => findOpenToolCalls(session.messages), [session.messages]);
  // What Send would send, with the draft as the last turn, so the count follows the typing.
  const promptTokens = useMemo(
    () =>
      estimatePromptTokens([
        ...toWireMessages(session.systemPrompt, session.messages),
        ...(draft.text !== '' ? [{ role: 'user' as const, content: draft.text }] : []),
      ]),
    [session.systemPrompt, session.messages, draft.text],
  );
  const gatewayBaseUrl = healthQuery.data?.gateway_base_url ?? null;
  const maskedKeyFor = (profileName: string) =>
    profiles.find((candidate) => candidate.name === profileName)?.masked_key ?? null;

  const runs = usePlaygroundRuns({
    session,
    dispatch,
    profile,
    model,
    api,
    findModel,
    draft,
    setDraft: playground.setDraft,
    openToolCalls: openCalls,
    onModelChosen: chooseModel,
    onRerunDiscards: playground.keepRerunDiscards,
  });
  const { historyNote } = useHistoryAutosave({
    session,
    historyId: playground.historyId,
    running: runs.running,
  });
  usePlaygroundShortcuts({ running: runs.running, onStop: runs.stop, onSend: runs.send });
  const code = useCodeExport(() => ({
    profile,
    model,
    catalogModel,
    api,
    session,
    draft,
    hasDraft: runs.hasDraft,
    openToolCalls: openCalls,
    embeddingsDraft: embeddingsDraft.draft,
  }));

  function openHistoryEntry(entry: HistoryEntry) {
    runs.stop();
    playground.loadEntry(entry);
    setHistoryOpen(false);
    runs.reset();
  }

  function newConversation() {
    runs.stop();
    playground.startNew();
    runs.reset();
  }

  return (
    <PageLayout
      title="Playground"
      description="Try a model through the gateway before writing code. Keys stay with the workbench server."
      actions={
        <PlaygroundActions
          session={{ ...session, model }}
          dispatch={dispatch}
          onModelChosen={chooseModel}
          onOpenHistory={() => setHistoryOpen(true)}
          onGetCode={code.showCurrent}
          onNewConversation={newConversation}
        />
      }
    >
      {playground.restoredNote && !embeddingModel && (
        <RestoredNote onDismiss={playground.dismissRestoredNote} />
      )}
      <div
        className={embeddingModel ? 'grid gap-4' : 'grid gap-4 lg:grid-cols-[minmax(0,1fr)_17rem]'}
      >
        <div className="flex min-w-0 flex-col gap-3">
          <ModelLine
            capabilities={capabilities}
            catalog={{
              isPending: catalogQuery.isPending,
              isError: catalogQuery.isError,
              error: catalogQuery.error,
              refetch: () => void catalogQuery.refetch(),
            }}
            api={api}
            onApiChange={(choice) =>
              setParam('api', choice === 'responses' ? choice : null, 'replace')
            }
            session={session}
            dispatch={dispatch}
            onModelChosen={chooseModel}
          />

          {embeddingModel ? (
            <EmbeddingsView profile={profile} model={model} draftState={embeddingsDraft} />
          ) : (
            <>
              <SystemPromptField
                value={session.systemPrompt}
                onChange={(text) => dispatch({ type: 'systemPromptChanged', text })}
              />
              <Transcript
                session={session}
                dispatch={dispatch}
                model={model}
                findModel={findModel}
                runs={runs}
                onModelChosen={chooseModel}
                onShowRaw={setRawRun}
                onShowCode={code.showRun}
              />
              <PlaygroundNotices
                rerunCopy={playground.rerunCopy}
                running={runs.running}
                onOpenRerunCopy={(id) => {
                  const entry = historyStore.read().find((candidate) => candidate.id === id);
                  if (entry) openHistoryEntry(entry);
                }}
                onDismissRerunCopy={playground.dismissRerunCopy}
                problems={runs.problems}
                notes={runs.notes}
                historyNote={historyNote}
                conversationImagesNote={capabilities.conversationImagesNote}
              />
              <Composer
                draft={draft}
                onDraftChange={playground.setDraft}
                running={runs.running}
                imagesSupported={capabilities.imagesSupported}
                imagesReason={capabilities.imagesReason}
                openToolCalls={openCalls}
                sendDisabledReason={runs.sendDisabledReason}
                onSend={runs.send}
                onAdd={runs.addDraft}
                onStop={runs.stop}
                promptEstimate={{
                  tokens: promptTokens,
                  contextLength: catalogModel?.context_length ?? null,
                }}
              />
            </>
          )}
        </div>

        {!embeddingModel && (
          <RequestSettings session={session} dispatch={dispatch} capabilities={capabilities} />
        )}
      </div>

      <RawViewDialog
        run={rawRun}
        onClose={() => setRawRun(null)}
        gatewayBaseUrl={gatewayBaseUrl}
        maskedKey={rawRun ? maskedKeyFor(rawRun.request.profile) : null}
      />
      <CodeDialog
        open={code.open}
        onOpenChange={(open) => {
          if (!open) code.close();
        }}
        subject={code.subject}
        gatewayBaseUrl={gatewayBaseUrl}
        model={code.subject ? findModel(code.subject.request.model) : catalogModel}
      />
      <HistoryDialog
        open={historyOpen}
        onOpenChange={setHistoryOpen}
        currentId={playground.historyId}
        onOpen={openHistoryEntry}
      />
    </PageLayout>
  );
}
