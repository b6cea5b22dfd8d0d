import { createMessage, createSession, playgroundReducer, rerunCut } from './conversation-state';
import type { ConversationMessage } from './playground-types';

function sessionWith(messages: ConversationMessage[]) {
  return { ...createSession('sim/chat-standard'), messages };
}

describe('playgroundReducer', () => {
  const first = createMessage('user', 'one');
  const reply = createMessage('assistant', 'two');
  const second = createMessage('user', 'three');

  it('adds, edits (text and role) and deletes messages', () => {
    let state = playgroundReducer(createSession(), { type: 'messageAdded', message: first });
    state = playgroundReducer(state, { type: 'messageEdited', id: first.id, changes: { text: 'uno', role: 'system' } });
    expect(state.messages).toEqual([{ ...first, text: 'uno', role: 'system' }]);
    state = playgroundReducer(state, { type: 'messageDeleted', id: first.id });
    expect(state.messages).toEqual([]);
  });

  it('cuts the conversation at a point, keeping or dropping that message', () => {
    const state = sessionWith([first, reply, second]);
    expect(playgroundReducer(state, { type: 'conversationCut', id: reply.id, keep: false }).messages).toEqual([first]);
    expect(playgroundReducer(state, { type: 'conversationCut', id: reply.id, keep: true }).messages).toEqual([first, reply]);
  });

  it('re-runs a reply by dropping it, and a user message by keeping it', () => {
    expect(rerunCut(reply)).toEqual({ id: reply.id, keep: false });
    expect(rerunCut(first)).toEqual({ id: first.id, keep: true });
  });

  it('updates a streaming reply in the conversation or in a compare column', () => {
    let state = sessionWith([first, reply]);
    state = playgroundReducer(state, { type: 'replyUpdated', reply: { ...reply, text: 'two!' } });
    expect(state.messages[1]?.text).toBe('two!');

    const laneReply = createMessage('assistant', '');
    state = playgroundReducer(state, { type: 'compareStarted', lanes: [{ model: 'sim/echo-mini', reply: laneReply }] });
    state = playgroundReducer(state, { type: 'replyUpdated', reply: { ...laneReply, text: 'lane' } });
    expect(state.compareLanes[0]?.reply?.text).toBe('lane');
    expect(state.messages).toHaveLength(2);
  });

  it('keeps a compare reply: it joins the conversation and its model becomes the chosen one', () => {
    const laneReply = createMessage('assistant', 'kept');
    let state = playgroundReducer(sessionWith([first]), {
      type: 'compareStarted',
      lanes: [
        { model: 'sim/echo-mini', reply: laneReply },
        { model: 'sim/vision-pro', reply: createMessage('assistant', 'other') },
      ],
    });
    state = playgroundReducer(state, { type: 'compareReplyKept', replyId: laneReply.id });
    expect(state.model).toBe('sim/echo-mini');
    expect(state.messages.map((message) => message.text)).toEqual(['one', 'kept']);
    expect(state.compareLanes).toEqual([]);
  });

  it('chooses at most two compare models beside the chosen one', () => {
    let state = createSession('sim/chat-standard');
    state = playgroundReducer(state, { type: 'compareModelChosen', index: 0, model: 'a/one' });
    state = playgroundReducer(state, { type: 'compareModelChosen', index: 1, model: 'b/two' });
    state = playgroundReducer(state, { type: 'compareModelChosen', index: 2, model: 'c/three' });
    expect(state.compareModels).toEqual(['a/one', 'b/two']);
    state = playgroundReducer(state, { type: 'compareModelRemoved', index: 0 });
    expect(state.compareModels).toEqual(['b/two']);
  });
});
