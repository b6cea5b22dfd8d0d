/**
 * Sending from the playground: the draft (or a given conversation) to the chosen model, or to
 * every compared model at once; re-runs from a point; tool results; and what stops a send (the
 * problems to fix, shown while they last). After a compare run a new message must follow one of
 * the replies, so sending one first asks which.
 */
import { useState } from 'react';
import type { CatalogModel, InferenceApi } from '../../../contract/workbench-api';
import { useBalance } from '../../api/balance';
import { worstCaseShortfall } from './affordability';
import { buildChatRequest, toWireMessages } from './build-request';
import { resolveDraft, type ComposerDraft } from './components/composer';
import {
  createMessage,
  createMessageId,
  maximumCompareModels,
  rerunCut,
  turnsDiscardedByRerun,
  type PlaygroundAction,
} from './conversation-state';
import { estimatePromptTokens } from './metrics';
import type { ConversationMessage, PlaygroundSession, ToolCall } from './playground-types';
import { pendingReply, useChatRunner } from './use-chat-runner';

export interface PlaygroundRunsInput {
  session: PlaygroundSession;
  dispatch(action: PlaygroundAction): void;
  profile: string | null;
  /** The chosen model (the catalog's first until one is chosen). */
  model: string;
  /** The gateway route the requests go to (`?api=`). */
  api: InferenceApi;
  findModel(id: string): CatalogModel | undefined;
  draft: ComposerDraft;
  setDraft(draft: ComposerDraft): void;
  openToolCalls: ToolCall[];
  /** A compare column's reply was kept: its model becomes the chosen one (and the URL's). */
  onModelChosen(model: string): void;
  /**
   * A re-run is about to drop turns that came after its starting point: `session` is the
   * conversation as it is, to keep before it is cut.
   */
  onRerunDiscards?(session: PlaygroundSession): void;
}

/** What a send needs to ask first: which compared reply the new message follows. */
export type ContinueChoice = 'send' | 'add' | null;

export function usePlaygroundRuns(input: PlaygroundRunsInput) {
  const { session, dispatch, profile, model, findModel, draft, setDraft, openToolCalls } = input;
  const runner = useChatRunner(dispatch);
  const [problemsShown, setProblemsShown] = useState(false);
  const [notes, setNotes] = useState<string[]>([]);
  const [continueChoice, setContinueChoice] = useState<ContinueChoice>(null);
  // A send held because the key cannot afford its worst case, until it is fixed or confirmed.
  const [budgetHeld, setBudgetHeld] = useState(false);
  const balance = useBalance(profile).data?.balance;

  const resolvedDraft = resolveDraft(draft, openToolCalls);
  const hasDraft = draft.text.trim() !== '' || draft.images.length > 0;
  const compareModels = session.compareEnabled
    ? session.compareModels.filter((id) => id !== '')
    : [];
  // A kept compare reply makes its model the chosen one; the model chosen before takes its
  // place among the compared ones, so the comparison goes on with the same models.
  const runModelsFor = (mainModel: string) =>
    [...new Set([mainModel, ...(compareModels.length > 0 ? [model, ...compareModels] : [])])]
      .filter((id) => id !== '')
      .slice(0, maximumCompareModels);
  // Why Send would not work now, shown beside it. Compare with no second model would quietly
  // run one model, so it waits for the second.
  const sendDisabledReason = !profile
    ? 'No key profile: the BFF holds none (see Keys).'
    : !model
      ? 'Choose a model first.'
      : session.compareEnabled && runModelsFor(model).length < 2
        ? 'Choose a second model to compare with, or untick Compare.'
        : null;
  const keepableLanes = session.compareLanes.filter(
    (lane) => lane.reply && lane.reply.run?.status !== 'error',
  );

  function draftMessage(): ConversationMessage {
    return createMessage(resolvedDraft.role, draft.text, {
      images: draft.images,
      ...(resolvedDraft.role === 'tool' && resolvedDraft.toolCallId
        ? {
            toolCallId: resolvedDraft.toolCallId,
            name: openToolCalls.find((call) => call.id === resolvedDraft.toolCallId)?.function.name,
          }
        : {}),
    });
  }

  function build(mainModel: string, messages: ConversationMessage[]) {
    return runModelsFor(mainModel).map((runModel) => ({
      model: runModel,
      result: profile
        ? buildChatRequest({
            profile,
            model: runModel,
            catalogModel: findModel(runModel),
            systemPrompt: session.systemPrompt,
            messages,
            parameters: session.parameters,
            toolsText: session.toolsText,
            api: input.api,
          })
        : ({ ok: false, problems: ['No key profile.'] } as const),
    }));
  }

  function problemsOf(builds: ReturnType<typeof build>): string[] {
    const failed = builds.flatMap((entry) =>
      entry.result.ok
        ? []
        : entry.result.problems.map((problem) =>
            builds.length > 1 ? `${entry.model}: ${problem}` : problem,
          ),
    );
    return [...new Set(failed)];
  }

  // What stops a send is shown from a failed send until it is fixed, recomputed as the person
  // edits: an alert about a value that is fine by now would only mislead.
  const liveProblems =
    problemsShown && profile && model
      ? problemsOf(
          build(model, hasDraft ? [...session.messages, draftMessage()] : session.messages),
        )
      : [];
  if (problemsShown && liveProblems.length === 0) setProblemsShown(false);

  /** What the key lacks for the worst case of sending `messages` to `mainModel`, if anything. */
  function shortfallOf(mainModel: string, messages: ConversationMessage[]) {
    const catalogModel = findModel(mainModel);
    if (!balance || !catalogModel) return null;
    return worstCaseShortfall({
      balance,
      model: catalogModel,
      promptTokens: estimatePromptTokens(toWireMessages(session.systemPrompt, messages)),
      maxTokens: session.parameters.max_tokens,
    });
  }
  const budgetShortfall =
    budgetHeld && model
      ? shortfallOf(model, hasDraft ? [...session.messages, draftMessage()] : session.messages)
      : null;
  if (budgetHeld && budgetShortfall === null) setBudgetHeld(false);

  /** Runs `messages` on `mainModel` (and the compared models); false when a problem stopped it. */
  async function run(
    mainModel: string,
    messages: ConversationMessage[],
    added: ConversationMessage | null,
  ) {
    const builds = build(mainModel, messages);
    if (problemsOf(builds).length > 0) {
      setProblemsShown(true);
      return;
    }
    setProblemsShown(false);
    setNotes([...new Set(builds.flatMap((entry) => (entry.result.ok ? entry.result.notes : [])))]);
    if (session.model !== mainModel) dispatch({ type: 'modelChosen', model: mainModel });
    if (added) {
      dispatch({ type: 'messageAdded', message: added });
      setDraft({ role: added.role === 'tool' ? 'user' : added.role, text: '', images: [] });
    }
    const runs = builds.flatMap((entry) =>
      entry.result.ok
        ? [
            {
              model: entry.model,
              body: entry.result.body,
              reply: pendingReply(createMessageId(), entry.result.body),
            },
          ]
        : [],
    );
    if (runs.length > 1) {
      dispatch({
        type: 'compareStarted',
        lanes: runs.map((entry) => ({ model: entry.model, reply: entry.reply })),
      });
    } else {
      dispatch({ type: 'compareStarted', lanes: [] });
      const only = runs[0];
      if (only) dispatch({ type: 'messageAdded', message: only.reply });
    }
    await Promise.all(runs.map((entry) => runner.run(entry.reply, entry.body)));
  }

  /**
   * Sends the conversation plus the draft; after a compare run, first asks which reply it follows.
   * A worst case the key cannot afford is held, with the fix offered, unless `anyway`.
   */
  function send(anyway = false) {
    if (runner.running || sendDisabledReason !== null || !model) return;
    if (hasDraft && keepableLanes.length > 0) {
      setContinueChoice('send');
      return;
    }
    const added = hasDraft ? draftMessage() : null;
    const messages = added ? [...session.messages, added] : session.messages;
    if (!anyway && shortfallOf(model, messages) !== null) {
      setBudgetHeld(true);
      return;
    }
    setBudgetHeld(false);
    void run(model, messages, added);
  }

  /** Adds the draft without a reply; after a compare run, first asks which reply it follows. */
  function addDraft() {
    if (!hasDraft) return;
    if (keepableLanes.length > 0) {
      setContinueChoice('add');
      return;
    }
    dispatch({ type: 'messageAdded', message: draftMessage() });
    setDraft({ role: resolvedDraft.role, text: '', images: [] });
  }

  /** The answer to "which reply does your message follow?": keep it, then send or add. */
  function continueWith(replyId: string) {
    const choice = continueChoice;
    setContinueChoice(null);
    const lane = session.compareLanes.find((candidate) => candidate.reply?.id === replyId);
    if (!lane?.reply || !choice) return;
    dispatch({ type: 'compareReplyKept', replyId });
    input.onModelChosen(lane.model);
    const added = draftMessage();
    if (choice === 'add') {
      dispatch({ type: 'messageAdded', message: added });
      setDraft({ role: resolvedDraft.role, text: '', images: [] });
      return;
    }
    void run(lane.model, [...session.messages, lane.reply, added], added);
  }

  function rerunFrom(message: ConversationMessage) {
    if (runner.running || !profile || !model) return;
    const cut = rerunCut(message);
    const index = session.messages.findIndex((candidate) => candidate.id === cut.id);
    if (index === -1) return;
    const kept = session.messages.slice(0, cut.keep ? index + 1 : index);
    if (turnsDiscardedByRerun(session.messages, message).length > 0) {
      input.onRerunDiscards?.(session);
    }
    dispatch({ type: 'conversationCut', ...cut });
    void run(model, kept, null);
  }

  function submitToolResults(results: { call: ToolCall; content: string }[]) {
    if (runner.running || !profile || !model) return;
    const toolMessages = results.map((result) =>
      createMessage('tool', result.content, {
        toolCallId: result.call.id,
        name: result.call.function.name,
      }),
    );
    for (const message of toolMessages) dispatch({ type: 'messageAdded', message });
    void run(model, [...session.messages, ...toolMessages], null);
  }

  /** Forgets what the last send said (a new conversation, a reopened one). */
  function reset() {
    setProblemsShown(false);
    setNotes([]);
    setContinueChoice(null);
    setBudgetHeld(false);
  }

  return {
    running: runner.running,
    stop: runner.stop,
    send: () => send(),
    sendAnyway: () => send(true),
    budgetShortfall,
    /** Lowers `max_tokens` to what the key can afford, as the held send's notice offers. */
    fitMaxTokens: (maxTokens: number) => {
      dispatch({ type: 'parametersChanged', changes: { max_tokens: maxTokens } });
    },
    dismissBudget: () => setBudgetHeld(false),
    addDraft,
    rerunFrom,
    submitToolResults,
    continueChoice,
    continueWith,
    cancelContinue: () => setContinueChoice(null),
    keepableLanes,
    sendDisabledReason,
    problems: liveProblems,
    notes,
    reset,
    hasDraft,
  };
}

export type PlaygroundRuns = ReturnType<typeof usePlaygroundRuns>;
