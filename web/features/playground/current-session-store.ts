/**
 * The conversation on screen, kept in localStorage so a reload brings it back (system prompt,
 * messages, parameters, tools, compare columns), under the history id it is saved with. Like
 * history, it holds the session only, never a key, and key-shaped text is redacted.
 */
import { z } from 'zod';
import { compactSession } from './history-store';
import { playgroundSessionSchema, type PlaygroundSession } from './playground-types';

export const currentSessionStorageKey = 'workbench.playground.current.v1';

const currentSessionSchema = z.object({
  /** The history entry the conversation is saved under once it has a run. */
  historyId: z.string(),
  savedAt: z.number(),
  session: playgroundSessionSchema,
});
export type CurrentSession = z.infer<typeof currentSessionSchema>;

/** The saved conversation, or null when there is none (or it cannot be read). */
export function readCurrentSession(): CurrentSession | null {
  let text: string | null;
  try {
    text = window.localStorage.getItem(currentSessionStorageKey);
  } catch {
    return null;
  }
  if (text === null) return null;
  try {
    const parsed = currentSessionSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Saves the conversation; when the browser's storage is full, without its images. Returns what
 * was saved, or null when nothing could be.
 */
export function saveCurrentSession(
  historyId: string,
  session: PlaygroundSession,
  now = Date.now(),
): { imagesOmitted: boolean } | null {
  for (const keepImages of [true, false]) {
    const saved: CurrentSession = {
      historyId,
      savedAt: now,
      session: compactSession(session, keepImages),
    };
    try {
      window.localStorage.setItem(currentSessionStorageKey, JSON.stringify(saved));
      return { imagesOmitted: !keepImages };
    } catch {
      // Too large with the images, or storage blocked: try without them, then give up.
    }
  }
  return null;
}

/** True when a restored session has something a person would miss: messages or a system prompt. */
export function hasConversation(session: PlaygroundSession): boolean {
  return (
    session.messages.length > 0 ||
    session.systemPrompt.trim() !== '' ||
    session.compareLanes.length > 0
  );
}
