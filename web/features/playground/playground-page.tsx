/**
 * The playground: try a model through the gateway before writing code. A conversation with a
 * system prompt and editable messages, the parameters the model supports, streamed replies with
 * their metrics, the raw exchange, code export, compare, tools and images, history and presets.
 * It talks only to the BFF (`/api`); keys stay there.
 */
import { useCallback, useEffect, useEffectEvent, useId, useMemo, useReducer, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import type { ChatRequest } from '../../../contract/workbench-api';
import { useCatalog } from '../../api/catalog';
import { useHealth } from '../../api/health';
import { useProfile } from '../../app/profile-context';
import { Badge } from '../../components/badge';
import { Button } from '../../components/button';
import { ErrorPanel } from '../../components/error-panel';
import { PageLayout } from '../../components/page-layout';
import { buildChatRequest } from './build-request';
import { CodeDialog } from './components/code-dialog';
import { CompareLanes } from './components/compare-lanes';
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
  createMessage,
  createMessageId,
  createSession,
  maximumCompareModels,
  playgroundReducer,
  rerunCut,
} from './conversation-state';
import { createHistoryId, saveHistoryEntry, type HistoryEntry } from './history-store';
import { supportsImages, supportsTools } from './parameters';
import type { ConversationMessage, RunRecord } from './playground-types';
import { pendingReply, useChatRunner } from './use-chat-runner';
import './playground.css';

/** How long edits settle before the session is written to history. */
const historySaveDelayMs = 400;

const emptyDraft: ComposerDraft = { role: 'user', text: '', images: [] };

/** True while a dialog is open: Esc then belongs to the dialog, not to Stop. */
function dialogIsOpen(): boolean {
  return document.querySelector('[role="dialog"][data-state="open"]') !== null;
}

export function PlaygroundPage() {
  const catalogQuery = useCatalog();
  const healthQuery = useHealth();
  const { profile, profiles } = useProfile();
  const [searchParams, setSearchParams] = useSearchParams();
  const urlModel = searchParams.get('model');

  const [session, dispatch] = useReducer(playgroundReducer, urlModel ?? '', createSession);
  const [historyId, setHistoryId] = useState(createHistoryId);
  const [draft, setDraft] = useState<ComposerDraft>(emptyDraft);
  const [problems, setProblems] = useState<string[]>([]);
  const [notes, setNotes] = useState<string[]>([]);
  const [rawRun, setRawRun] = useState<RunRecord | null>(null);
  const [codeRequest, setCodeRequest] = useState<ChatRequest['request'] | null | undefined>(undefined);
  const [historyOpen, setHistoryOpen] = useState(false);
  const [historyNote, setHistoryNote] = useState<string | null>(null);
  const runner = useChatRunner(dispatch);
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
  const toolsSupported = supportsTools(catalogModel);
  const imagesSupported = supportsImages(catalogModel);
  const gatewayBaseUrl = healthQuery.data?.gateway_base_url ?? null;
  const maskedKeyFor = (profileName: string) => profiles.find((candidate) => candidate.name === profileName)?.masked_key ?? null;

  const compareModels = session.compareEnabled ? session.compareModels.filter((id) => id !== '') : [];
  const runModels = [model, ...compareModels.filter((id) => id !== model)].slice(0, maximumCompareModels);

  function chooseModel(id: string) {
    dispatch({ type: 'modelChosen', model: id });
    setSearchParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.set('model', id);
        return next;
      },
      { replace: true },
    );
    setFollowedUrlModel(id);
  }

  const hasDraft = draft.text.trim() !== '' || draft.images.length > 0;
  const sendDisabledReason = !profile
    ? 'No key profile: the BFF holds none (see Keys).'
    : !model
      ? 'Choose a model first.'
      : null;

  /**
   * Sends `messages` (by default the conversation plus the draft) to the chosen model, or to
   * every compared model at once.
   */
  async function send(explicitMessages?: ConversationMessage[]) {
    if (runner.running || !profile || !model) return;
    let messages = explicitMessages ?? session.messages;
    let draftMessage: ConversationMessage | null = null;
    if (!explicitMessages && hasDraft) {
      draftMessage = createMessage(draft.role, draft.text, { images: draft.images });
      messages = [...messages, draftMessage];
    }
    const builds = runModels.map((runModel) => ({
      model: runModel,
      result: buildChatRequest({
        profile,
        model: runModel,
        catalogModel: findModel(runModel),
        systemPrompt: session.systemPrompt,
        messages,
        parameters: session.parameters,
        toolsText: session.toolsText,
      }),
    }));
    const failed = builds.flatMap((build) =>
      build.result.ok ? [] : build.result.problems.map((problem) => (builds.length > 1 ? `${build.model}: ${problem}` : problem)),
    );
    if (failed.length > 0) {
      setProblems([...new Set(failed)]);
      return;
    }
    setProblems([]);
    setNotes([...new Set(builds.flatMap((build) => (build.result.ok ? build.result.notes : [])))]);
    if (session.model !== model) dispatch({ type: 'modelChosen', model });
    if (draftMessage) {
      dispatch({ type: 'messageAdded', message: draftMessage });
      setDraft({ ...emptyDraft, role: draft.role === 'tool' ? 'user' : draft.role });
    }

    const runs = builds.flatMap((build) =>
      build.result.ok ? [{ model: build.model, body: build.result.body, reply: pendingReply(createMessageId(), build.result.body) }] : [],
    );
    if (runs.length > 1) {
      dispatch({ type: 'compareStarted', lanes: runs.map((run) => ({ model: run.model, reply: run.reply })) });
    } else {
      dispatch({ type: 'compareStarted', lanes: [] });
      const only = runs[0];
      if (only) dispatch({ type: 'messageAdded', message: only.reply });
    }
    await Promise.all(runs.map((run) => runner.run(run.reply, run.body)));
  }

  function addDraftWithoutSending() {
    if (!hasDraft) return;
    dispatch({ type: 'messageAdded', message: createMessage(draft.role, draft.text, { images: draft.images }) });
    setDraft({ ...emptyDraft, role: draft.role });
  }

  function rerunFrom(message: ConversationMessage) {
    const cut = rerunCut(message);
    const index = session.messages.findIndex((candidate) => candidate.id === cut.id);
    if (index === -1) return;
    const kept = session.messages.slice(0, cut.keep ? index + 1 : index);
    dispatch({ type: 'conversationCut', ...cut });
    void send(kept);
  }

  function submitToolResults(results: { call: { id: string; function: { name: string } }; content: string }[]) {
    const toolMessages = results.map((result) =>
      createMessage('tool', result.content, { toolCallId: result.call.id, name: result.call.function.name }),
    );
    for (const message of toolMessages) dispatch({ type: 'messageAdded', message });
    void send([...session.messages, ...toolMessages]);
  }

  function openCode() {
    if (!profile || !model) {
      setCodeRequest(null);
      return;
    }
    const messages = hasDraft
      ? [...session.messages, createMessage(draft.role, draft.text, { images: draft.images })]
      : session.messages;
    const build = buildChatRequest({
      profile,
      model,
      catalogModel,
      systemPrompt: session.systemPrompt,
      messages: messages.length > 0 ? messages : [createMessage('user', 'Hello!')],
      parameters: session.parameters,
      toolsText: session.toolsText,
    });
    setCodeRequest(build.ok ? build.body.request : null);
  }

  function openHistoryEntry(entry: HistoryEntry) {
    runner.stop();
    dispatch({ type: 'sessionLoaded', session: entry.session });
    setHistoryId(entry.id);
    setHistoryOpen(false);
    setProblems([]);
    setNotes([]);
    if (entry.session.model) {
      setSearchParams(
        (current) => {
          const next = new URLSearchParams(current);
          next.set('model', entry.session.model);
          return next;
        },
        { replace: true },
      );
      setFollowedUrlModel(entry.session.model);
    }
  }

  function newConversation() {
    runner.stop();
    dispatch({ type: 'conversationCleared' });
    setHistoryId(createHistoryId());
    setProblems([]);
    setNotes([]);
  }

  // Every run is saved under this conversation's id: at once when a run ends, after a pause for
  // edits, and when the page goes away, so a reload right after a reply never loses it.
  const hasRun = session.messages.some((message) => message.run) || session.compareLanes.length > 0;
  const wasRunning = useRef(false);
  useEffect(() => {
    const runJustEnded = wasRunning.current && !runner.running;
    wasRunning.current = runner.running;
    if (!hasRun || runner.running) return;
    const save = () => {
      const saved = saveHistoryEntry(historyId, session);
      setHistoryNote(
        saved === null
          ? 'History could not be saved: the browser’s storage is full or blocked.'
          : saved.imagesOmitted
            ? 'Saved to history without the images: they did not fit in the browser’s storage.'
            : null,
      );
    };
    const timer = window.setTimeout(save, runJustEnded ? 0 : historySaveDelayMs);
    window.addEventListener('pagehide', save);
    return () => {
      window.clearTimeout(timer);
      window.removeEventListener('pagehide', save);
    };
  }, [session, historyId, hasRun, runner.running]);

  // Esc stops a streaming reply (unless a dialog is open); Ctrl/Cmd+Enter sends from anywhere.
  const onKeyDown = useEffectEvent((event: KeyboardEvent) => {
    if (event.defaultPrevented) return;
    if (event.key === 'Escape' && runner.running && !dialogIsOpen()) {
      event.preventDefault();
      runner.stop();
    } else if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && !runner.running && !dialogIsOpen()) {
      event.preventDefault();
      void send();
    }
  });
  useEffect(() => {
    const listener = (event: KeyboardEvent) => onKeyDown(event);
    document.addEventListener('keydown', listener);
    return () => document.removeEventListener('keydown', listener);
  }, []);

  const lastMessage = session.messages.at(-1);
  const pendingToolCalls =
    lastMessage?.role === 'assistant' && lastMessage.toolCalls && lastMessage.toolCalls.length > 0 && lastMessage.run?.status !== 'streaming'
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
          <Button size="small" variant="ghost" onClick={newConversation} disabled={session.messages.length === 0 && session.compareLanes.length === 0}>
            New conversation
          </Button>
        </>
      }
    >
      <div className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_17rem]">
        <div className="flex min-w-0 flex-col gap-3">
          <section aria-label="Model choice" className="flex flex-col gap-2 rounded-lg border border-zinc-200 p-3 dark:border-zinc-800">
            {catalogQuery.isError && <ErrorPanel what="Loading the catalog" error={catalogQuery.error} onRetry={() => void catalogQuery.refetch()} />}
            <div className="flex flex-wrap items-end gap-3">
              <ModelCombobox
                label="Model"
                value={model}
                models={models}
                onChange={chooseModel}
                placeholder={catalogQuery.isPending ? 'Loading the catalog…' : 'Search models…'}
                className="min-w-0 flex-1 basis-72"
              />
              <label className="flex h-9 items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  checked={session.compareEnabled}
                  onChange={(event) => dispatch({ type: 'compareToggled', enabled: event.target.checked })}
                  className="size-4 accent-sky-700"
                />
                Compare
              </label>
            </div>
            <div className="flex flex-wrap gap-1.5 text-xs">
              {catalogModel && (
                <>
                  <Badge tone={toolsSupported ? 'violet' : 'neutral'}>{toolsSupported ? 'tools' : 'no tools'}</Badge>
                  <Badge tone={imagesSupported ? 'sky' : 'neutral'}>{imagesSupported ? 'image input' : 'text input only'}</Badge>
                </>
              )}
              {!catalogModel && model && !catalogQuery.isPending && <Badge tone="amber">not in the catalog</Badge>}
            </div>
            {session.compareEnabled && (
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
                          onChange={(id) => dispatch({ type: 'compareModelChosen', index, model: id })}
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

          <div className="flex flex-col gap-1">
            <label htmlFor={systemPromptId} className="text-xs font-medium text-zinc-600 dark:text-zinc-400">
              System prompt
            </label>
            <textarea
              id={systemPromptId}
              value={session.systemPrompt}
              onChange={(event) => dispatch({ type: 'systemPromptChanged', text: event.target.value })}
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
                  locked={runner.running}
                  onEdit={(changes) => dispatch({ type: 'messageEdited', id: message.id, changes })}
                  onDelete={() => dispatch({ type: 'messageDeleted', id: message.id })}
                  onRerun={() => rerunFrom(message)}
                  onRemoveImage={(imageIndex) =>
                    dispatch({
                      type: 'messageEdited',
                      id: message.id,
                      changes: { images: message.images.filter((_, other) => other !== imageIndex) },
                    })
                  }
                  onShowRaw={setRawRun}
                  onShowCode={(run) => setCodeRequest(run.request.request)}
                />
              ))}
            </ol>
          )}

          {pendingToolCalls && (
            <ToolResultsForm key={lastMessage?.id} toolCalls={pendingToolCalls} disabled={runner.running} onSubmit={submitToolResults} />
          )}

          <CompareLanes
            lanes={session.compareLanes}
            findModel={findModel}
            running={runner.running}
            onKeep={(replyId) => {
              const lane = session.compareLanes.find((candidate) => candidate.reply?.id === replyId);
              dispatch({ type: 'compareReplyKept', replyId });
              if (lane) chooseModel(lane.model);
            }}
            onShowRaw={setRawRun}
            onShowCode={(run) => setCodeRequest(run.request.request)}
          />

          {problems.length > 0 && (
            <div role="alert" className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-950 dark:border-red-800 dark:bg-red-950/40 dark:text-red-100">
              <p className="font-semibold">Not sent:</p>
              <ul className="mt-1 list-disc pl-5">
                {problems.map((problem) => (
                  <li key={problem}>{problem}</li>
                ))}
              </ul>
            </div>
          )}
          {notes.length > 0 && (
            <ul className="text-xs text-amber-800 dark:text-amber-300">
              {notes.map((note) => (
                <li key={note}>{note}</li>
              ))}
            </ul>
          )}
          {historyNote && <p className="text-xs text-amber-800 dark:text-amber-300">{historyNote}</p>}

          <Composer
            draft={draft}
            onDraftChange={setDraft}
            running={runner.running}
            imagesSupported={imagesSupported}
            imagesReason={imagesSupported ? null : `${model || 'This model'} does not list image input.`}
            sendDisabledReason={sendDisabledReason}
            onSend={() => void send()}
            onAdd={addDraftWithoutSending}
            onStop={runner.stop}
          />
        </div>

        <aside aria-label="Request settings" className="flex flex-col gap-5 lg:sticky lg:top-16 lg:max-h-[calc(100vh-5rem)] lg:self-start lg:overflow-y-auto">
          <ParametersPanel
            parameters={session.parameters}
            model={catalogModel}
            onChange={(changes) => dispatch({ type: 'parametersChanged', changes })}
          />
          <ToolsEditor
            text={session.toolsText}
            onChange={(text) => dispatch({ type: 'toolsTextChanged', text })}
            supported={toolsSupported}
            modelId={model}
          />
        </aside>
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
        request={codeRequest ?? null}
        gatewayBaseUrl={gatewayBaseUrl}
        model={codeRequest ? findModel(codeRequest.model) : catalogModel}
      />
      <HistoryDialog open={historyOpen} onOpenChange={setHistoryOpen} currentId={historyId} onOpen={openHistoryEntry} />
    </PageLayout>
  );
}
