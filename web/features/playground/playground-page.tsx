/**
 * The playground: try a model through the gateway before writing code. A conversation with a
 * system prompt and editable messages, the parameters the model supports, streamed replies with
 * their metrics and charge, the raw exchange, code export, compare, tools and images, history and
 * presets. It talks only to the BFF (`/api`); keys stay there. The pieces live beside it: sending
 * (`use-playground-runs`), saving (`use-history-autosave`), keys (`use-playground-shortcuts`),
 * the URL's `?model=` and `?api=` (`useSearchParamState`), and, for an embedding model, the
 * embeddings view (`embeddings/`) in place of the conversation.
 */
import { useCallback, useId, useMemo, useReducer, useState } from 'react';
import { useCatalog } from '../../api/catalog';
import { useHealth } from '../../api/health';
import { useProfile } from '../../app/profile-context';
import { Badge } from '../../components/badge';
import { Button } from '../../components/button';
import { ErrorPanel } from '../../components/error-panel';
import { PageLayout } from '../../components/page-layout';
import { useSearchParamState } from '../../lib/use-search-param-state';
import { codeSubjectOf, codeSubjectOfRun } from './code-subject';
import { ApiChoice, apiFromParam } from './components/api-choice';
import { CodeDialog, type CodeSubject } from './components/code-dialog';
import { CompareLanes, ContinueChoicePanel } from './components/compare-lanes';
import { Composer, type ComposerDraft } from './components/composer';
import { HistoryDialog } from './components/history-dialog';
import { MessageItem } from './components/message-item';
import { ModelCombobox } from './components/model-combobox';
import { ParametersPanel } from './components/parameters-panel';
import { PresetsPopover } from './components/presets-popover';
import { RawViewDialog } from './components/raw-view-dialog';
import { ToolResultsForm } from './components/tool-results-form';
import { ToolsEditor } from './components/tools-editor';
import {
  createSession,
  openToolCalls as findOpenToolCalls,
  playgroundReducer,
} from './conversation-state';
import { hasConversation, readCurrentSession } from './current-session-store';
import {
  createHistoryId,
  historyStore,
  historyTitleOf,
  saveConversationCopy,
  type HistoryEntry,
} from './history-store';
import { EmbeddingsView } from './embeddings/embeddings-view';
import { isEmbeddingModel } from './embeddings/similarity';
import { useEmbeddingsDraft } from './embeddings/use-embeddings-draft';
import { parseToolsText, toWireMessages } from './build-request';
import { estimatePromptTokens } from './metrics';
import { supportsImages, supportsTools } from './parameters';
import type { PlaygroundSession, RunRecord } from './playground-types';
import { useHistoryAutosave } from './use-history-autosave';
import { usePlaygroundRuns } from './use-playground-runs';
import { usePlaygroundShortcuts } from './use-playground-shortcuts';
import './playground.css';

const emptyDraft: ComposerDraft = { role: 'user', text: '', images: [] };

/**
 * The session to start with: the conversation on screen before a reload (a `?model=` in the URL
 * still wins, as a link's deliberate choice), else a new one.
 */
function initialState(urlModel: string | null): {
  session: PlaygroundSession;
  historyId: string;
  restored: boolean;
} {
  const saved = readCurrentSession();
  if (saved && hasConversation(saved.session)) {
    return {
      session: urlModel ? { ...saved.session, model: urlModel } : saved.session,
      historyId: saved.historyId,
      restored: true,
    };
  }
  return {
    session: saved
      ? { ...createSession(urlModel ?? saved.session.model), parameters: saved.session.parameters }
      : createSession(urlModel ?? ''),
    historyId: saved?.historyId ?? createHistoryId(),
    restored: false,
  };
}

export function PlaygroundPage() {
  const catalogQuery = useCatalog();
  const healthQuery = useHealth();
  const { profile, profiles } = useProfile();
  const { searchParams, setParam } = useSearchParamState();
  const urlModel = searchParams.get('model');
  const api = apiFromParam(searchParams.get('api'));
  const embeddingsDraft = useEmbeddingsDraft();

  const [initial] = useState(() => initialState(urlModel));
  const [session, dispatch] = useReducer(playgroundReducer, initial.session);
  const [historyId, setHistoryId] = useState(initial.historyId);
  const [restoredNote, setRestoredNote] = useState(initial.restored);
  const [draft, setDraft] = useState<ComposerDraft>(emptyDraft);
  const [rawRun, setRawRun] = useState<RunRecord | null>(null);
  const [codeRequest, setCodeRequest] = useState<CodeSubject | null | undefined>(undefined);
  const [historyOpen, setHistoryOpen] = useState(false);
  /** The History entry a re-run kept the dropped turns in (or null when it could not). */
  const [rerunCopy, setRerunCopy] = useState<
    { kept: true; id: string; title: string } | { kept: false } | null
  >(null);
  const systemPromptId = useId();

  // A `?model=` that changes while the page is open (a link from the catalog) is followed.
  const [followedUrlModel, setFollowedUrlModel] = useState(urlModel);
  if (urlModel !== followedUrlModel) {
    setFollowedUrlModel(urlModel);
    if (urlModel) dispatch({ type: 'modelChosen', model: urlModel });
  }

  const models = useMemo(() => catalogQuery.data?.models ?? [], [catalogQuery.data]);
  const findModel = useCallback((id: string) => models.find((model) => model.id === id), [models]);
  // Until a model is chosen, the catalog's first one is used (and becomes the choice on send).
  const model = session.model || models[0]?.id || '';
  const catalogModel = findModel(model);
  const catalogKnown = catalogQuery.isSuccess;
  const embeddingModel = isEmbeddingModel(catalogModel);
  const toolsSupported =
    supportsTools(catalogModel) || (catalogKnown && !catalogModel && model !== '');
  const imagesSupported = supportsImages(catalogModel);
  const imagesReason = imagesSupported
    ? null
    : catalogModel
      ? `${model} does not take image input.`
      : model
        ? `${model} is not in the catalog, so whether it takes images is unknown.`
        : 'Choose a model that takes image input first.';
  const toolNames = useMemo(
    () => (parseToolsText(session.toolsText).tools ?? []).map((tool) => tool.function.name),
    [session.toolsText],
  );
  // What Send would send, with the draft as the last turn, so the count follows the typing.
  const promptTokens = useMemo(
    () =>
      estimatePromptTokens([
        ...toWireMessages(session.systemPrompt, session.messages),
        ...(draft.text !== '' ? [{ role: 'user' as const, content: draft.text }] : []),
      ]),
    [session.systemPrompt, session.messages, draft.text],
  );
  // Images already in the conversation go with every request: a model that takes none refuses it.
  const conversationImages = session.messages.reduce(
    (count, message) => count + message.images.length,
    0,
  );
  const conversationImagesNote =
    catalogModel && !imagesSupported && conversationImages > 0
      ? `Earlier turns of this conversation carry ${conversationImages === 1 ? 'an image' : `${conversationImages} images`}, which ${model} does not take: sending it would be refused. Choose a model that takes images, or start a new conversation.`
      : null;
  const gatewayBaseUrl = healthQuery.data?.gateway_base_url ?? null;
  const maskedKeyFor = (profileName: string) =>
    profiles.find((candidate) => candidate.name === profileName)?.masked_key ?? null;
  const openCalls = useMemo(() => findOpenToolCalls(session.messages), [session.messages]);

  function chooseModel(id: string) {
    dispatch({ type: 'modelChosen', model: id });
    setParam('model', id, 'replace');
    setFollowedUrlModel(id);
  }

  const runs = usePlaygroundRuns({
    session,
    dispatch,
    profile,
    model,
    api,
    findModel,
    draft,
    setDraft,
    openToolCalls: openCalls,
    onModelChosen: chooseModel,
    onRerunDiscards: (current) => {
      // The turns after the re-run's starting point are kept, never just dropped.
      const copy = saveConversationCopy(current, historyTitleOf(historyId, current));
      setRerunCopy(copy ? { kept: true, ...copy } : { kept: false });
    },
  });
  const { historyNote } = useHistoryAutosave({ session, historyId, running: runs.running });
  usePlaygroundShortcuts({ running: runs.running, onStop: runs.stop, onSend: runs.send });

  function openCode() {
    setCodeRequest(
      codeSubjectOf({
        profile,
        model,
        catalogModel,
        api,
        session,
        draft,
        hasDraft: runs.hasDraft,
        openToolCalls: openCalls,
        embeddingsDraft: embeddingsDraft.draft,
      }),
    );
  }

  function openHistoryEntry(entry: HistoryEntry) {
    runs.stop();
    setRerunCopy(null);
    dispatch({ type: 'sessionLoaded', session: entry.session });
    setHistoryId(entry.id);
    setHistoryOpen(false);
    setRestoredNote(false);
    runs.reset();
    if (entry.session.model) chooseModel(entry.session.model);
  }

  function newConversation() {
    runs.stop();
    dispatch({ type: 'conversationCleared' });
    setHistoryId(createHistoryId());
    // Images picked for the old conversation do not belong to the new one.
    setDraft((current) => ({
      ...current,
      images: [],
      role: current.role === 'tool' ? 'user' : current.role,
    }));
    setRestoredNote(false);
    setRerunCopy(null);
    runs.reset();
  }

  const lastMessage = session.messages.at(-1);
  const pendingToolCalls =
    lastMessage?.role === 'assistant' &&
    lastMessage.toolCalls &&
    lastMessage.toolCalls.length > 0 &&
    lastMessage.run?.status !== 'streaming'
      ? lastMessage.toolCalls
      : null;

  return (
    <PageLayout
      title="Playground"
      description="Try a model through the gateway before writing code. Keys stay with the workbench server."
      actions={
        <>
          <PresetsPopover
            session={{ ...session, model }}
            onApply={(preset) => {
              if (preset.model) chooseModel(preset.model);
              dispatch({ type: 'systemPromptChanged', text: preset.systemPrompt });
              dispatch({ type: 'parametersChanged', changes: preset.parameters });
              dispatch({ type: 'toolsTextChanged', text: preset.toolsText });
            }}
          />
          <Button size="small" onClick={() => setHistoryOpen(true)}>
            History
          </Button>
          <Button size="small" onClick={openCode}>
            Get code
          </Button>
          <Button
            size="small"
            variant="ghost"
            onClick={newConversation}
            disabled={session.messages.length === 0 && session.compareLanes.length === 0}
          >
            New conversation
          </Button>
        </>
      }
    >
      {restoredNote && !embeddingModel && (
        <div
          role="status"
          className="flex flex-wrap items-center gap-2 rounded-md border border-sky-200 bg-sky-50 px-3 py-2 text-sm text-sky-950 dark:border-sky-900 dark:bg-sky-950/40 dark:text-sky-100"
        >
          <span>
            Your conversation from before the reload is back (kept in this browser, never with a
            key). New conversation starts afresh; History keeps every run.
          </span>
          <Button size="small" variant="ghost" onClick={() => setRestoredNote(false)}>
            Dismiss
          </Button>
        </div>
      )}
      <div
        className={embeddingModel ? 'grid gap-4' : 'grid gap-4 lg:grid-cols-[minmax(0,1fr)_17rem]'}
      >
        <div className="flex min-w-0 flex-col gap-3">
          <section
            aria-label="Model choice"
            className="flex flex-col gap-2 rounded-lg border border-zinc-200 p-3 dark:border-zinc-800"
          >
            {catalogQuery.isError && (
              <ErrorPanel
                what="Loading the catalog"
                error={catalogQuery.error}
                onRetry={() => void catalogQuery.refetch()}
              />
            )}
            <div className="flex flex-wrap items-end gap-3">
              <ModelCombobox
                label="Model"
                value={model}
                models={models}
                onChange={chooseModel}
                placeholder={catalogQuery.isPending ? 'Loading the catalog…' : 'Search models…'}
                className="min-w-0 flex-1 basis-72"
              />
              {!embeddingModel && (
                <ApiChoice
                  value={api}
                  onChange={(choice) =>
                    setParam('api', choice === 'responses' ? choice : null, 'replace')
                  }
                />
              )}
              <label className="flex h-9 items-center gap-2 text-sm" hidden={embeddingModel}>
                <input
                  type="checkbox"
                  checked={session.compareEnabled}
                  onChange={(event) =>
                    dispatch({ type: 'compareToggled', enabled: event.target.checked })
                  }
                  className="size-4 accent-sky-700"
                />
                Compare
              </label>
            </div>
            <div className="flex flex-wrap gap-1.5 text-xs">
              {embeddingModel && <Badge tone="sky">embeddings</Badge>}
              {catalogModel && !embeddingModel && (
                <>
                  <Badge tone={toolsSupported ? 'violet' : 'neutral'}>
                    {toolsSupported ? 'tools' : 'no tools'}
                  </Badge>
                  <Badge tone={imagesSupported ? 'sky' : 'neutral'}>
                    {imagesSupported ? 'image input' : 'text input only'}
                  </Badge>
                </>
              )}
              {!catalogModel && model && !catalogQuery.isPending && (
                <Badge tone="amber">not in the catalog</Badge>
              )}
            </div>
            {session.compareEnabled && !embeddingModel && (
              <div className="flex flex-col gap-2 border-t border-zinc-200 pt-2 dark:border-zinc-800">
                <p className="text-xs text-zinc-600 dark:text-zinc-400">
                  Send runs the same conversation and parameters on every model at once.
                </p>
                <div className="flex flex-wrap items-start gap-3">
                  {[0, 1].map((index) =>
                    index <= session.compareModels.length ? (
                      <div key={index} className="flex min-w-0 flex-1 basis-60 items-start gap-1">
                        <ModelCombobox
                          label={index === 0 ? 'Compare with' : 'And with'}
                          value={session.compareModels[index] ?? ''}
                          models={models}
                          onChange={(id) =>
                            dispatch({ type: 'compareModelChosen', index, model: id })
                          }
                          placeholder="Search models…"
                          className="min-w-0 flex-1"
                        />
                        {session.compareModels[index] && (
                          <Button
                            size="small"
                            variant="ghost"
                            className="mt-5"
                            aria-label={`Remove ${session.compareModels[index]} from the comparison`}
                            onClick={() => dispatch({ type: 'compareModelRemoved', index })}
                          >
                            ✕
                          </Button>
                        )}
                      </div>
                    ) : null,
                  )}
                </div>
              </div>
            )}
          </section>

          {embeddingModel ? (
            <EmbeddingsView profile={profile} model={model} draftState={embeddingsDraft} />
          ) : (
            <>
              <div className="flex flex-col gap-1">
                <label
                  htmlFor={systemPromptId}
                  className="text-xs font-medium text-zinc-600 dark:text-zinc-400"
                >
                  System prompt
                </label>
                <textarea
                  id={systemPromptId}
                  value={session.systemPrompt}
                  onChange={(event) =>
                    dispatch({ type: 'systemPromptChanged', text: event.target.value })
                  }
                  rows={2}
                  placeholder="Optional instructions sent first, as a system message"
                  className="w-full resize-y rounded-md border border-zinc-300 bg-white p-2 text-sm dark:border-zinc-700 dark:bg-zinc-900"
                />
              </div>

              {session.messages.length > 0 && (
                <ol aria-label="Conversation" className="flex flex-col gap-2">
                  {session.messages.map((message, index) => (
                    <MessageItem
                      key={message.id}
                      message={message}
                      position={index + 1}
                      model={findModel(message.run?.model ?? model)}
                      locked={runs.running}
                      onEdit={(changes) =>
                        dispatch({ type: 'messageEdited', id: message.id, changes })
                      }
                      onDelete={() => dispatch({ type: 'messageDeleted', id: message.id })}
                      onRerun={() => runs.rerunFrom(message)}
                      onRemoveImage={(imageIndex) =>
                        dispatch({
                          type: 'messageEdited',
                          id: message.id,
                          changes: {
                            images: message.images.filter((_, other) => other !== imageIndex),
                          },
                        })
                      }
                      onShowRaw={setRawRun}
                      onShowCode={(run) => setCodeRequest(codeSubjectOfRun(run))}
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
                  const lane = session.compareLanes.find(
                    (candidate) => candidate.reply?.id === replyId,
                  );
                  dispatch({ type: 'compareReplyKept', replyId });
                  if (lane) chooseModel(lane.model);
                }}
                onShowRaw={setRawRun}
                onShowCode={(run) => setCodeRequest(codeSubjectOfRun(run))}
              />

              {runs.continueChoice && (
                <ContinueChoicePanel
                  lanes={runs.keepableLanes}
                  action={runs.continueChoice}
                  onChoose={runs.continueWith}
                  onCancel={runs.cancelContinue}
                />
              )}
              {rerunCopy && (
                <div
                  role="status"
                  className="flex flex-wrap items-center gap-2 rounded-md border border-sky-200 bg-sky-50 px-3 py-2 text-sm text-sky-950 dark:border-sky-900 dark:bg-sky-950/40 dark:text-sky-100"
                >
                  {rerunCopy.kept ? (
                    <>
                      <span>
                        The re-run replaced the turns after it. The conversation as it was is kept
                        in History as “{rerunCopy.title}”.
                      </span>
                      <Button
                        size="small"
                        disabled={runs.running}
                        onClick={() => {
                          const entry = historyStore
                            .read()
                            .find((candidate) => candidate.id === rerunCopy.id);
                          if (entry) openHistoryEntry(entry);
                        }}
                      >
                        Open the earlier conversation
                      </Button>
                    </>
                  ) : (
                    <span>
                      The re-run replaced the turns after it, and the browser’s storage is full or
                      blocked, so no copy of them could be kept.
                    </span>
                  )}
                  <Button size="small" variant="ghost" onClick={() => setRerunCopy(null)}>
                    Dismiss
                  </Button>
                </div>
              )}
              {runs.problems.length > 0 && (
                <div
                  role="alert"
                  className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-950 dark:border-red-800 dark:bg-red-950/40 dark:text-red-100"
                >
                  <p className="font-semibold">Not sent:</p>
                  <ul className="mt-1 list-disc pl-5">
                    {runs.problems.map((problem) => (
                      <li key={problem}>{problem}</li>
                    ))}
                  </ul>
                </div>
              )}
              {runs.notes.length > 0 && (
                <ul className="text-xs text-amber-800 dark:text-amber-300">
                  {runs.notes.map((note) => (
                    <li key={note}>{note}</li>
                  ))}
                </ul>
              )}
              {historyNote && (
                <p className="text-xs text-amber-800 dark:text-amber-300">{historyNote}</p>
              )}
              {conversationImagesNote && (
                <p role="alert" className="text-xs text-amber-900 dark:text-amber-200">
                  {conversationImagesNote}
                </p>
              )}

              <Composer
                draft={draft}
                onDraftChange={setDraft}
                running={runs.running}
                imagesSupported={imagesSupported}
                imagesReason={imagesReason}
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
          <aside
            aria-label="Request settings"
            className="flex flex-col gap-5 lg:sticky lg:top-16 lg:max-h-[calc(100vh-5rem)] lg:self-start lg:overflow-y-auto"
          >
            <ParametersPanel
              parameters={session.parameters}
              model={catalogModel}
              toolNames={toolNames}
              onChange={(changes) => dispatch({ type: 'parametersChanged', changes })}
            />
            <ToolsEditor
              text={session.toolsText}
              onChange={(text) => dispatch({ type: 'toolsTextChanged', text })}
              supported={toolsSupported}
              modelId={model}
              inCatalog={catalogModel !== undefined}
            />
          </aside>
        )}
      </div>

      <RawViewDialog
        run={rawRun}
        onClose={() => setRawRun(null)}
        gatewayBaseUrl={gatewayBaseUrl}
        maskedKey={rawRun ? maskedKeyFor(rawRun.request.profile) : null}
      />
      <CodeDialog
        open={codeRequest !== undefined}
        onOpenChange={(open) => {
          if (!open) setCodeRequest(undefined);
        }}
        subject={codeRequest ?? null}
        gatewayBaseUrl={gatewayBaseUrl}
        model={codeRequest ? findModel(codeRequest.request.model) : catalogModel}
      />
      <HistoryDialog
        open={historyOpen}
        onOpenChange={setHistoryOpen}
        currentId={historyId}
        onOpen={openHistoryEntry}
      />
    </PageLayout>
  );
}
