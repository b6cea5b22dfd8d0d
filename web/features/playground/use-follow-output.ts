/**
 * Keeps the newest streamed text in sight: while a reply streams, each time it grows the window
 * scrolls so the conversation's end (`endRef`, just below the composer) sits at the viewport's
 * bottom, unless the user has scrolled away to read; scrolling back there resumes. The end of the
 * conversation, not of the page: on a phone the settings follow it.
 */
import { useEffect, useLayoutEffect, useRef, type RefObject } from 'react';

/** How far from the viewport's bottom still counts as "at the end": a line or two of slack. */
const endSlackPx = 80;

/** True when the conversation's end (its top edge, in viewport pixels) is at the viewport's bottom. */
export function isAtEnd(endTop: number, viewportHeight: number): boolean {
  return Math.abs(endTop - viewportHeight) <= endSlackPx;
}

/**
 * `running`: a reply streams. `contentSize`: anything that grows with the streamed output (the
 * reply's length). A new run starts following; a scroll away from the end stops it.
 */
export function useFollowOutput(
  endRef: RefObject<HTMLElement | null>,
  running: boolean,
  contentSize: number,
) {
  const following = useRef(false);

  useEffect(() => {
    if (!running) return;
    following.current = true;
    const onScroll = () => {
      const end = endRef.current;
      if (end) following.current = isAtEnd(end.getBoundingClientRect().top, window.innerHeight);
    };
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => window.removeEventListener('scroll', onScroll);
  }, [running, endRef]);

  useLayoutEffect(() => {
    const end = endRef.current;
    if (!running || !following.current || !end) return;
    const distance = end.getBoundingClientRect().top - window.innerHeight;
    if (distance > 0) window.scrollBy({ top: distance });
  }, [running, contentSize, endRef]);
}
