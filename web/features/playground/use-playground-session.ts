/**
 * The conversation on screen and what surrounds it: the session (restored after a reload), its
 * History entry, the composer's draft, the chosen model (kept in the URL's `?model=`), and the
 * notes about a restored conversation or a re-run's kept copy. Sending lives in
 * `use-playground-runs`; the page stops and resets runs around `loadEntry` and `startNew`.
 */
import { useEffect, useReducer, useState } from 'react';
import { compareChoiceOf, compareParamOf } from './compare-param';
import type { ComposerDraft } from './components/composer';
import { createSession, playgroundReducer } from './conversation-state';
import { hasConversation, readCurrentSession } from './current-session-store';
import {
  createHistoryId,
  historyTitleOf,
  saveConversationCopy,
  type HistoryEntry,
} from './history-store';
import type { PlaygroundSession } from './playground-types';

const emptyDraft: ComposerDraft = { role: 'user', text: '', images: [] };

/** The History entry a re-run kept the dropped turns in (or that it could not keep them). */
export type RerunCopy = { kept: true; id: string; title: string } | { kept: false };

/**
 * The session to start with: the conversation on screen before a reload (a `?model=` or
 * `?compare=` in the URL still wins, as a link's deliberate choice), else a new one.
 */
function initialState(
  urlModel: string | null,
  urlCompare: string | null,
): {
  session: PlaygroundSession;
  historyId: string;
  restored: boolean;
} {
  const start = initialSession(urlModel);
  const compare = compareChoiceOf(urlCompare);
  return compare
    ? {
        ...start,
        session: { ...start.session, compareEnabled: true, compareModels: compare.models },
      }
    : start;
}

function initialSession(urlModel: string | null): {
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

export interface PlaygroundSessionInput {
  /** The URL's `?model=`. */
  urlModel: string | null;
  /** Writes the chosen model back to the URL. */
  setUrlModel(model: string): void;
  /** The URL's `?compare=` (compare-param.ts). */
  urlCompare: string | null;
  /** Writes compare mode back to the URL; null removes the parameter. */
  setUrlCompare(value: string | null): void;
}

export function usePlaygroundSession({
  urlModel,
  setUrlModel,
  urlCompare,
  setUrlCompare,
}: PlaygroundSessionInput) {
  const [initial] = useState(() => initialState(urlModel, urlCompare));
  const [session, dispatch] = useReducer(playgroundReducer, initial.session);

  // Compare mode and its models follow into the URL whenever they change, so a reload keeps them.
  const compareParam = compareParamOf({
    enabled: session.compareEnabled,
    models: session.compareModels,
  });
  useEffect(() => {
    if (compareParam !== urlCompare) setUrlCompare(compareParam);
    // Only the session's changes are written: a URL changed by Back is not fought over.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [compareParam]);
  const [historyId, setHistoryId] = useState(initial.historyId);
  const [restoredNote, setRestoredNote] = useState(initial.restored);
  const [draft, setDraft] = useState<ComposerDraft>(emptyDraft);
  const [rerunCopy, setRerunCopy] = useState<RerunCopy | null>(null);

  // A `?model=` that changes while the page is open (a link from the catalog) is followed.
  const [followedUrlModel, setFollowedUrlModel] = useState(urlModel);
  if (urlModel !== followedUrlModel) {
    setFollowedUrlModel(urlModel);
    if (urlModel) dispatch({ type: 'modelChosen', model: urlModel });
  }

  function chooseModel(id: string) {
    dispatch({ type: 'modelChosen', model: id });
    setUrlModel(id);
    setFollowedUrlModel(id);
  }

  return {
    session,
    dispatch,
    historyId,
    draft,
    setDraft,
    restoredNote,
    dismissRestoredNote: () => setRestoredNote(false),
    rerunCopy,
    dismissRerunCopy: () => setRerunCopy(null),
    chooseModel,
    /** A re-run is about to drop later turns: they are kept in History, never just dropped. */
    keepRerunDiscards(current: PlaygroundSession) {
      const copy = saveConversationCopy(current, historyTitleOf(historyId, current));
      setRerunCopy(copy ? { kept: true, ...copy } : { kept: false });
    },
    loadEntry(entry: HistoryEntry) {
      setRerunCopy(null);
      dispatch({ type: 'sessionLoaded', session: entry.session });
      setHistoryId(entry.id);
      setRestoredNote(false);
      if (entry.session.model) chooseModel(entry.session.model);
    },
    startNew() {
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
    },
  };
}

export type PlaygroundSessionState = ReturnType<typeof usePlaygroundSession>;
