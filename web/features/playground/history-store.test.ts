// @vitest-environment happy-dom
// (the store keeps its entries in localStorage)
import { createMessage, createSession } from './conversation-state';
import {
  deleteHistoryEntry,
  exportHistoryJson,
  firstWords,
  historyStorageKey,
  historyStore,
  historyTitleOf,
  renameHistoryEntry,
  saveConversationCopy,
  saveHistoryEntry,
} from './history-store';

beforeEach(() => window.localStorage.clear());

describe('history store', () => {
  // Built at run time so no key-shaped literal sits in the source.
  const fakeKey = ['sk', 'abcdefghijklmnopqrstuvwxyz012345'].join('-');
  const session = {
    ...createSession('sim/chat-standard'),
    messages: [
      createMessage('user', `Tell me about gateways, my key is ${fakeKey} ok`),
      createMessage('assistant', 'Sure.'),
    ],
  };

  it('saves, updates, renames and deletes one entry per conversation, never with a key', () => {
    expect(saveHistoryEntry('run-1', session, 1000)).toEqual({ imagesOmitted: false });
    expect(
      saveHistoryEntry('run-1', { ...session, systemPrompt: 'Be brief.' }, 2000),
    ).not.toBeNull();
    const [entry] = historyStore.read();
    expect(historyStore.read()).toHaveLength(1);
    expect(entry?.createdAt).toBe(1000);
    expect(entry?.updatedAt).toBe(2000);
    expect(entry?.session.systemPrompt).toBe('Be brief.');
    expect(window.localStorage.getItem(historyStorageKey)).not.toContain(fakeKey);

    renameHistoryEntry('run-1', 'Gateway chat');
    expect(historyStore.read()[0]?.title).toBe('Gateway chat');
    expect(exportHistoryJson(historyStore.read(), 0)).toContain('"title": "Gateway chat"');
    deleteHistoryEntry('run-1');
    expect(historyStore.read()).toEqual([]);
  });

  it('drops entries it cannot read instead of failing', () => {
    window.localStorage.setItem(historyStorageKey, JSON.stringify([{ id: 'broken' }]));
    expect(historyStore.read()).toEqual([]);
  });

  it('lists the first words of the first user message', () => {
    expect(firstWords(session, 4)).toBe('Tell me about gateways,…');
  });
});

describe('saveConversationCopy', () => {
  it('keeps the conversation as an entry of its own, named after the one it came from', () => {
    const session = {
      ...createSession('sim/chat-standard'),
      messages: ['one', 'two', 'three'].flatMap((text) => [
        createMessage('user', text),
        createMessage('assistant', `You said ${text}`),
      ]),
    };
    saveHistoryEntry('run-1', session);
    renameHistoryEntry('run-1', 'Counting');
    const copy = saveConversationCopy(session, historyTitleOf('run-1', session));
    expect(copy?.title).toBe('Counting (before re-run)');
    const entries = historyStore.read();
    expect(entries).toHaveLength(2);
    const kept = entries.find((entry) => entry.id === copy?.id);
    expect(kept?.title).toBe('Counting (before re-run)');
    expect(kept?.session.messages.map((message) => message.text)).toEqual([
      'one',
      'You said one',
      'two',
      'You said two',
      'three',
      'You said three',
    ]);
    // The original entry is left as it was.
    expect(entries.find((entry) => entry.id === 'run-1')?.title).toBe('Counting');
  });

  it('names an unsaved conversation after its first words', () => {
    const session = { ...createSession(), messages: [createMessage('user', 'one')] };
    expect(historyTitleOf('run-unsaved', session)).toBe('one');
  });
});
