import { createMessage, createSession } from './conversation-state';
import {
  deleteHistoryEntry,
  exportHistoryJson,
  firstWords,
  historyStorageKey,
  historyStore,
  renameHistoryEntry,
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
