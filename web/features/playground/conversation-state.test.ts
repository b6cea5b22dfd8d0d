import {
  createMessage,
  createSession,
  lastSentRequest,
  openToolCalls,
  playgroundReducer,
  rerunCut,
  turnsDiscardedByRerun,
} from './conversation-state';
import type { ConversationMessage } from './playground-types';
import { finishedRun } from './test-fixtures';

function sessionWith(messages: ConversationMessage[]) {
  return { ...createSession('sim/chat-standard'), messages };
}

describe('playgroundReducer', () => {
  const first = createMessage('user', 'one');
  const reply = createMessage('assistant', 'two');
  const second = createMessage('user', 'three');

  it('adds, edits (text and role) and deletes messages', () => {
    let state = playgroundReducer(createSession(), { type: 'messageAdded', message: first });
    state = playgroundReducer(state, {
      type: 'messageEdited',
      id: first.id,
      changes: { text: 'uno', role: 'system' },
    });
    expect(state.messages).toEqual([{ ...first, text: 'uno', role: 'system' }]);
    state = playgroundReducer(state, { type: 'messageDeleted', id: first.id });
    expect(state.messages).toEqual([]);
  });

  it('cuts the conversation at a point, keeping or dropping that message', () => {
    const state = sessionWith([first, reply, second]);
    expect(
      playgroundReducer(state, { type: 'conversationCut', id: reply.id, keep: false }).messages,
    ).toEqual([first]);
    expect(
      playgroundReducer(state, { type: 'conversationCut', id: reply.id, keep: true }).messages,
    ).toEqual([first, reply]);
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
    state = playgroundReducer(state, {
      type: 'compareStarted',
      lanes: [{ model: 'sim/echo-mini', reply: laneReply }],
    });
    state = playgroundReducer(state, {
      type: 'replyUpdated',
      reply: { ...laneReply, text: 'lane' },
    });
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

  it('keeps comparing the same models after a compared reply is kept', () => {
    const kept = createMessage('assistant', 'kept');
    let state = { ...createSession('sim/chat-standard'), compareModels: ['sim/echo-mini'] };
    state = playgroundReducer(state, {
      type: 'compareStarted',
      lanes: [
        { model: 'sim/chat-standard', reply: createMessage('assistant', 'other') },
        { model: 'sim/echo-mini', reply: kept },
      ],
    });
    state = playgroundReducer(state, { type: 'compareReplyKept', replyId: kept.id });
    expect(state.model).toBe('sim/echo-mini');
    expect(state.compareModels).toEqual(['sim/chat-standard']);
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

describe('openToolCalls', () => {
  const call = (id: string) => ({
    id,
    type: 'function' as const,
    function: { name: 'get_weather', arguments: '{}' },
  });

  it('lists the calls no tool message answers yet, oldest first', () => {
    const messages = [
      createMessage('user', 'Weather in Oslo and Bergen?'),
      createMessage('assistant', '', { toolCalls: [call('call_1'), call('call_2')] }),
      createMessage('tool', '{"c":3}', { toolCallId: 'call_1' }),
    ];
    expect(openToolCalls(messages).map((open) => open.id)).toEqual(['call_2']);
    expect(openToolCalls(messages.slice(0, 1))).toEqual([]);
  });

  it('ignores the partial calls of a reply still streaming', () => {
    const streaming = createMessage('assistant', '', {
      toolCalls: [call('call_9')],
      run: { ...finishedRun, status: 'streaming' },
    });
    expect(openToolCalls([streaming])).toEqual([]);
  });
});

describe('turnsDiscardedByRerun', () => {
  const one = createMessage('user', 'one');
  const oneReply = createMessage('assistant', 'You said one');
  const two = createMessage('user', 'two');
  const twoReply = createMessage('assistant', 'You said two');
  const messages = [one, oneReply, two, twoReply];

  it('names the turns after an earlier reply that a re-run would drop', () => {
    expect(turnsDiscardedByRerun(messages, oneReply)).toEqual([two, twoReply]);
    expect(turnsDiscardedByRerun(messages, one)).toEqual([two, twoReply]);
  });

  it('is empty when the re-run only replaces the last reply', () => {
    expect(turnsDiscardedByRerun(messages, twoReply)).toEqual([]);
    expect(turnsDiscardedByRerun(messages, two)).toEqual([]);
  });
});

describe('lastSentRequest', () => {
  it('is the request of the last reply as sent, when the conversation ends with it', () => {
    const question = createMessage('user', 'one');
    const reply = createMessage('assistant', 'You said one', { run: finishedRun });
    expect(lastSentRequest([question, reply])).toBe(finishedRun.request.request);
    expect(lastSentRequest([question, reply])?.messages.at(-1)?.role).not.toBe('assistant');
  });

  it('is null when the conversation does not end with a reply that ran', () => {
    const question = createMessage('user', 'one');
    expect(lastSentRequest([question])).toBeNull();
    expect(lastSentRequest([question, createMessage('assistant', 'typed by hand')])).toBeNull();
    expect(lastSentRequest([])).toBeNull();
  });
});
