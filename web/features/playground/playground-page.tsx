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
import { useAllowedModels } from '../../api/balance';
import { useCatalog } from '../../api/catalog';
import { useProfile } from '../../app/profile-context';
import { PageLayout } from '../../components/page-layout';
import { useSearchParamState } from '../../lib/use-search-param-state';
import { apiFromParam } from './components/api-choice';
import { ConversationSection } from './components/conversation-section';
import { ModelLine } from './components/model-line';
import { PlaygroundActions } from './components/playground-actions';
import { PlaygroundDialogs } from './components/playground-dialogs';
import { RestoredNote } from './components/playground-notices';
import { RequestSettings } from './components/request-settings';
import { openToolCalls as findOpenToolCalls } from './conversation-state';
import { EmbeddingsView } from './embeddings/embeddings-view';
import { useEmbeddingsDraft } from './embeddings/use-embeddings-draft';
import { historyStore, type HistoryEntry } from './history-store';
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
  const { profile } = useProfile();
  const { searchParams, setParam, update } = useSearchParamState();
  const api = apiFromParam(searchParams.get('api'));
  const embeddingsDraft = useEmbeddingsDraft();
  const playground = usePlaygroundSession({
    urlModel: searchParams.get('model'),
    setUrlModel: (id) => setParam('model', id, 'replace'),
    urlCompare: searchParams.get('compare'),
    // Not setParam: an empty `?compare=` (ticked, no model yet) is kept.
    setUrlCompare: (value) =>
      update((current) => {
        if (value === null) current.delete('compare');
        else current.set('compare', value);
        return current;
      }, 'replace'),
  });
  const { session, dispatch, draft, chooseModel } = playground;
  const allowed = useAllowedModels(profile);
  const profileModels = useMemo(
    () => catalogQuery.data?.models.filter((entry) => allowed.allows(entry.id)),
    [catalogQuery.data, allowed],
  );
  const capabilities = useModelCapabilities({
    catalogModels: profileModels,
    catalogKnown: catalogQuery.isSuccess,
    chosenModel: session.model,
    messages: session.messages,
  });
  const { model, catalogModel, embeddingModel, findModel } = capabilities;
  const [rawRun, setRawRun] = useState<RunRecord | null>(null);
  const [historyOpen, setHistoryOpen] = useState(false);
  const openCalls = useMemo(() => findOpenToolCalls(session.messages), [session.messages]);

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
            catalog={catalogQuery}
            api={api}
            onApiChange={(choice) =>
              setParam('api', choice === 'responses' ? choice : null, 'replace')
            }
            session={session}
            dispatch={dispatch}
            onModelChosen={chooseModel}
            allowedModels={allowed}
          />

          {embeddingModel ? (
            <EmbeddingsView profile={profile} model={model} draftState={embeddingsDraft} />
          ) : (
            <ConversationSection
              profile={profile}
              playground={playground}
              capabilities={capabilities}
              runs={runs}
              openToolCalls={openCalls}
              historyNote={historyNote}
              onOpenHistoryEntry={(id) => {
                const entry = historyStore.read().find((candidate) => candidate.id === id);
                if (entry) openHistoryEntry(entry);
              }}
              onShowRaw={setRawRun}
              onShowCode={code.showRun}
            />
          )}
        </div>

        {!embeddingModel && (
          <RequestSettings session={session} dispatch={dispatch} capabilities={capabilities} />
        )}
      </div>

      <PlaygroundDialogs
        rawRun={rawRun}
        onCloseRaw={() => setRawRun(null)}
        code={code}
        codeModel={code.subject ? findModel(code.subject.request.model) : catalogModel}
        historyOpen={historyOpen}
        onHistoryOpenChange={setHistoryOpen}
        historyId={playground.historyId}
        onOpenHistoryEntry={openHistoryEntry}
      />
    </PageLayout>
  );
}
