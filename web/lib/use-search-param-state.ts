/**
 * State kept in the URL's query string, shared by the catalog and the playground: a view can be
 * bookmarked and shared, and Back undoes a deliberate change.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useLocation, useSearchParams } from 'react-router';

/**
 * `push` adds a history entry (a deliberate change, which Back undoes); `replace` changes the
 * current one (a correction nobody would want to go back to, such as following a link's model).
 */
export type HistoryMode = 'push' | 'replace';

export interface SearchParamState {
  searchParams: URLSearchParams;
  /** Changes the query string; `change` gets a copy to edit and returns the next one. */
  update(change: (current: URLSearchParams) => URLSearchParams, history?: HistoryMode): void;
  /** Sets one parameter; null or empty removes it. */
  setParam(name: string, value: string | null, history?: HistoryMode): void;
}

export function useSearchParamState(): SearchParamState {
  const [searchParams, setSearchParams] = useSearchParams();
  // react-router hands a functional update the parameters of its last render, so a second change
  // made before the first is rendered would write the first one's old value back. Changes build
  // on the newest query string written until the router renders it (see `settle`).
  const writes = useRef<Writes>({ rendered: searchParams.toString(), pending: [] });
  useLayoutEffect(() => settle(writes.current, searchParams.toString()), [searchParams]);
  const update = useCallback(
    (change: (current: URLSearchParams) => URLSearchParams, history: HistoryMode = 'push') => {
      const base = writes.current.pending.at(-1) ?? writes.current.rendered;
      const next = change(new URLSearchParams(base)).toString();
      writes.current.pending.push(next);
      setSearchParams(new URLSearchParams(next), { replace: history === 'replace' });
    },
    [setSearchParams],
  );
  const setParam = useCallback(
    (name: string, value: string | null, history: HistoryMode = 'push') => {
      update((current) => {
        if (value === null || value === '') current.delete(name);
        else current.set(name, value);
        return current;
      }, history);
    },
    [update],
  );
  return { searchParams, update, setParam };
}

/** The query string the router rendered last, and those written since that it has not. */
type Writes = { rendered: string; pending: string[] };

/**
 * A new location rendered: the writes up to the one it shows are done; a location none of them
 * made (Back, a link) overrides those still pending.
 */
function settle(writes: Writes, rendered: string): void {
  const seen = writes.pending.indexOf(rendered);
  if (seen >= 0) writes.pending.splice(0, seen + 1);
  else writes.pending.length = 0;
  writes.rendered = rendered;
}

/** How long typing pauses before the URL follows, as one history entry. */
export const typingPauseMs = 400;

export interface UrlBoundText {
  /** The text as typed: shown in the field, and usable at once (filtering as one types). */
  text: string;
  /** A keystroke: the URL follows after a pause. */
  type(text: string): void;
  /** A deliberate value (Escape): the URL follows at once. */
  set(text: string): void;
  /** Shows `text` and drops a pending write, without writing: for a caller that writes the URL itself. */
  reset(text: string): void;
}

/**
 * A text field whose value lives in the URL. The typed text is kept here, so no keystroke waits
 * for the router: a field fed straight from the URL drops keys typed faster than the URL
 * updates. The URL gets the text once typing pauses, as one history entry; a URL change from
 * elsewhere (Back, a link) replaces the text, unless the person is still typing.
 */
export function useUrlBoundText(
  urlValue: string,
  write: (text: string) => void,
  pauseMs = typingPauseMs,
): UrlBoundText {
  // A navigation is told by its location key as well as by the value: Back to the value the URL
  // held before a write the router never rendered changes the key, not the value.
  const { key } = useLocation();
  const [text, setText] = useState(urlValue);
  const [seen, setSeen] = useState({ key, value: urlValue });
  const [typing, setTyping] = useState(false);
  // What this field wrote that the URL has not shown yet. The router renders in a transition, so
  // an older write may show after a newer one; it is this field's own, not a change from elsewhere.
  const [unshown, setUnshown] = useState<string[]>([]);
  // Back or Forward: the field takes what the URL holds, even when the router never rendered the
  // write Back undid (then neither the location nor the value it hands in changes).
  const [pops, setPops] = useState(0);
  const [seenPops, setSeenPops] = useState(0);
  useEffect(() => {
    const popped = () => {
      setUnshown([]);
      setPops((count) => count + 1);
    };
    window.addEventListener('popstate', popped);
    return () => window.removeEventListener('popstate', popped);
  }, []);
  const timer = useRef<number | null>(null);
  const latestWrite = useRef(write);
  useEffect(() => {
    latestWrite.current = write;
  });
  // Leaving the page drops a write still waiting: navigating from a page that is gone would
  // bring it back.
  useEffect(
    () => () => {
      if (timer.current !== null) window.clearTimeout(timer.current);
    },
    [],
  );

  if (pops !== seenPops) {
    setSeenPops(pops);
    if (!typing && urlValue !== text) setText(urlValue);
  } else if (key !== seen.key || urlValue !== seen.value) {
    setSeen({ key, value: urlValue });
    const ours = unshown.indexOf(urlValue);
    if (ours >= 0) setUnshown(unshown.slice(ours + 1));
    else {
      if (unshown.length > 0) setUnshown([]);
      if (!typing && urlValue !== text) setText(urlValue);
    }
  }

  const writeNow = useCallback((next: string) => {
    setUnshown((written) => [...written, next]);
    latestWrite.current(next);
  }, []);
  const type = useCallback(
    (next: string) => {
      setText(next);
      setTyping(true);
      if (timer.current !== null) window.clearTimeout(timer.current);
      timer.current = window.setTimeout(() => {
        timer.current = null;
        setTyping(false);
        writeNow(next);
      }, pauseMs);
    },
    [pauseMs, writeNow],
  );
  const reset = useCallback((next: string) => {
    if (timer.current !== null) window.clearTimeout(timer.current);
    timer.current = null;
    setText(next);
    setTyping(false);
  }, []);
  const set = useCallback(
    (next: string) => {
      reset(next);
      writeNow(next);
    },
    [reset, writeNow],
  );
  return { text, type, set, reset };
}
