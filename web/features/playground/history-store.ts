/**
 * Every run of the playground, saved in localStorage: one entry per conversation, updated after
 * each run. Entries hold the session only (model, messages, parameters, metrics, the requests as
 * sent to the BFF): never a key, and key-shaped text typed into a message is redacted.
 */
import { z } from 'zod';
import { redactKeys } from './code-export/shared';
import { createLocalListStore, useLocalList } from './local-store';
import {
  playgroundSessionSchema,
  type ConversationMessage,
  type PlaygroundSession,
} from './playground-types';

export const historyStorageKey = 'workbench.playground.history.v1';

/** The most entries kept; older ones make room. */
export const maximumHistoryEntries = 50;
/** Stream events kept per run in history (the live raw view has them all). */
const maximumStoredEvents = 400;

export const historyEntrySchema = z.object({
  id: z.string(),
  /** A name the person gave; null shows the first words instead. */
  title: z.string().nullable(),
  createdAt: z.number(),
  updatedAt: z.number(),
  session: playgroundSessionSchema,
});
export type HistoryEntry = z.infer<typeof historyEntrySchema>;

export const historyStore = createLocalListStore(historyStorageKey, historyEntrySchema);

export function useHistoryEntries(): HistoryEntry[] {
  return useLocalList(historyStore);
}

/** The first words of the first user message, for the list. */
export function firstWords(session: PlaygroundSession, limit = 8): string {
  const first = session.messages.find(
    (message) => message.role === 'user' && message.text.trim() !== '',
  );
  if (!first) return session.messages.length === 0 ? '(empty conversation)' : '(no text)';
  const words = first.text.trim().split(/\s+/);
  return words.slice(0, limit).join(' ') + (words.length > limit ? '…' : '');
}

export function entryTitle(entry: HistoryEntry): string {
  return entry.title ?? firstWords(entry.session);
}

/** The models of a session: the chosen one, plus the compared ones. */
export function sessionModels(session: PlaygroundSession): string[] {
  const models = [session.model, ...(session.compareEnabled ? session.compareModels : [])];
  return [...new Set(models.filter((model) => model !== ''))];
}

function compactMessage(message: ConversationMessage, keepImages: boolean): ConversationMessage {
  const compacted: ConversationMessage = {
    ...message,
    text: redactKeys(message.text),
    images: keepImages ? message.images : [],
  };
  if (message.run) {
    const run = message.run;
    compacted.run = {
      ...run,
      // A run still streaming when saved is recorded as stopped: the page that ran it is gone.
      status: run.status === 'streaming' ? 'stopped' : run.status,
      request: {
        ...run.request,
        request: {
          ...run.request.request,
          // The images are in the messages already; the sent copy would store them once per turn.
          messages: run.request.request.messages.map((sent) =>
            Array.isArray(sent.content)
              ? {
                  ...sent,
                  content: sent.content.map((part) =>
                    part.type === 'image_url'
                      ? { ...part, image_url: { url: 'data:,(image omitted in history)' } }
                      : part,
                  ),
                }
              : typeof sent.content === 'string'
                ? { ...sent, content: redactKeys(sent.content) }
                : sent,
          ),
        },
      },
      response:
        run.response?.kind === 'stream'
          ? { ...run.response, events: run.response.events.slice(0, maximumStoredEvents) }
          : run.response,
    };
  }
  return compacted;
}

/** The session as history stores it: redacted, without duplicate image copies. */
export function compactSession(session: PlaygroundSession, keepImages = true): PlaygroundSession {
  return {
    ...session,
    systemPrompt: redactKeys(session.systemPrompt),
    messages: session.messages.map((message) => compactMessage(message, keepImages)),
    compareLanes: session.compareLanes.map((lane) => ({
      ...lane,
      reply: lane.reply ? compactMessage(lane.reply, keepImages) : null,
    })),
  };
}

/**
 * Saves (or updates) an entry. When storage is full, images are left out of it, then the oldest
 * entries go. Returns what was saved, or null when nothing could be.
 */
export function saveHistoryEntry(
  id: string,
  session: PlaygroundSession,
  now = Date.now(),
): { imagesOmitted: boolean } | null {
  const entries = historyStore.read();
  const existing = entries.find((entry) => entry.id === id);
  const others = entries.filter((entry) => entry.id !== id);
  for (const keepImages of [true, false]) {
    const entry: HistoryEntry = {
      id,
      title: existing?.title ?? null,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
      session: compactSession(session, keepImages),
    };
    let kept = others.slice(0, maximumHistoryEntries - 1);
    while (kept.length >= 0) {
      if (historyStore.write([entry, ...kept])) return { imagesOmitted: !keepImages };
      if (kept.length === 0) break;
      kept = kept.slice(0, -1);
    }
  }
  return null;
}

/**
 * Keeps `session` as an entry of its own, named after the conversation it came from: what a
 * re-run from an earlier point would otherwise drop. Returns the new entry's id and title, or
 * null when storage refused it.
 */
export function saveConversationCopy(
  session: PlaygroundSession,
  fromTitle: string,
  now = Date.now(),
): { id: string; title: string } | null {
  const id = createHistoryId();
  const title = `${fromTitle} (before re-run)`;
  if (saveHistoryEntry(id, session, now) === null) return null;
  renameHistoryEntry(id, title);
  return { id, title };
}

/** The title an entry has (or the first words of `session` while it has none saved yet). */
export function historyTitleOf(id: string, session: PlaygroundSession): string {
  const entry = historyStore.read().find((candidate) => candidate.id === id);
  return entry ? entryTitle(entry) : firstWords(session);
}

export function renameHistoryEntry(id: string, title: string): void {
  const trimmed = title.trim();
  historyStore.write(
    historyStore
      .read()
      .map((entry) =>
        entry.id === id ? { ...entry, title: trimmed === '' ? null : trimmed } : entry,
      ),
  );
}

export function deleteHistoryEntry(id: string): void {
  historyStore.write(historyStore.read().filter((entry) => entry.id !== id));
}

/** The entries as a JSON document a person can keep or share. */
export function exportHistoryJson(entries: HistoryEntry[], now = Date.now()): string {
  return JSON.stringify({ exported_at: new Date(now).toISOString(), entries }, null, 2);
}

export function createHistoryId(): string {
  return `run-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
