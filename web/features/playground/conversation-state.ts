/**
 * The playground session as a reducer: the conversation, the model choice, the parameters and
 * the compare columns. Pure, so every edit (delete, re-run from a point, a streamed update) is
 * testable without a browser.
 */
import {
  defaultParameters,
  type ConversationMessage,
  type MessageRole,
  type Parameters,
  type PlaygroundSession,
  type ToolCall,
} from './playground-types';

export type PlaygroundAction =
  | { type: 'modelChosen'; model: string }
  | { type: 'compareToggled'; enabled: boolean }
  | { type: 'compareModelChosen'; index: number; model: string }
  | { type: 'compareModelRemoved'; index: number }
  | { type: 'systemPromptChanged'; text: string }
  | { type: 'parametersChanged'; changes: Partial<Parameters> }
  | { type: 'toolsTextChanged'; text: string }
  | { type: 'messageAdded'; message: ConversationMessage }
  | {
      type: 'messageEdited';
      id: string;
      changes: { text?: string; role?: MessageRole; images?: string[] };
    }
  | { type: 'messageDeleted'; id: string }
  /** Keeps the messages before `id` (and `id` itself when `keep` is true), drops the rest. */
  | { type: 'conversationCut'; id: string; keep: boolean }
  /** A reply (in the conversation or in a compare column) changed while it streamed. */
  | { type: 'replyUpdated'; reply: ConversationMessage }
  | { type: 'compareStarted'; lanes: { model: string; reply: ConversationMessage }[] }
  /** A compare column's reply joins the conversation; its model becomes the chosen one. */
  | { type: 'compareReplyKept'; replyId: string }
  | { type: 'sessionLoaded'; session: PlaygroundSession }
  | { type: 'conversationCleared' };

/** The most models compare mode runs at once (the chosen one plus two). */
export const maximumCompareModels = 3;

export function createSession(model = ''): PlaygroundSession {
  return {
    model,
    compareModels: [],
    compareEnabled: false,
    systemPrompt: '',
    messages: [],
    parameters: { ...defaultParameters },
    toolsText: '',
    compareLanes: [],
  };
}

let messageCounter = 0;

/** A message id unique within this page (and practically across saved sessions). */
export function createMessageId(): string {
  messageCounter += 1;
  return `message-${Date.now().toString(36)}-${messageCounter.toString(36)}-${Math.random().toString(36).slice(2, 7)}`;
}

export function createMessage(
  role: MessageRole,
  text: string,
  extra: Partial<Omit<ConversationMessage, 'id' | 'role' | 'text'>> = {},
): ConversationMessage {
  return { id: createMessageId(), role, text, images: [], ...extra };
}

function replaceMessage(
  messages: ConversationMessage[],
  reply: ConversationMessage,
): ConversationMessage[] | null {
  const index = messages.findIndex((message) => message.id === reply.id);
  if (index === -1) return null;
  const next = messages.slice();
  next[index] = reply;
  return next;
}

export function playgroundReducer(
  state: PlaygroundSession,
  action: PlaygroundAction,
): PlaygroundSession {
  switch (action.type) {
    case 'modelChosen':
      return { ...state, model: action.model };
    case 'compareToggled':
      return { ...state, compareEnabled: action.enabled };
    case 'compareModelChosen': {
      if (action.index < 0 || action.index >= maximumCompareModels - 1) return state;
      const compareModels = state.compareModels.slice();
      compareModels[action.index] = action.model;
      return { ...state, compareModels: compareModels.filter((model) => model !== '') };
    }
    case 'compareModelRemoved':
      return {
        ...state,
        compareModels: state.compareModels.filter((_, index) => index !== action.index),
      };
    case 'systemPromptChanged':
      return { ...state, systemPrompt: action.text };
    case 'parametersChanged':
      return { ...state, parameters: { ...state.parameters, ...action.changes } };
    case 'toolsTextChanged':
      return { ...state, toolsText: action.text };
    case 'messageAdded':
      return { ...state, messages: [...state.messages, action.message] };
    case 'messageEdited':
      return {
        ...state,
        messages: state.messages.map((message) =>
          message.id === action.id ? { ...message, ...action.changes } : message,
        ),
      };
    case 'messageDeleted':
      return { ...state, messages: state.messages.filter((message) => message.id !== action.id) };
    case 'conversationCut': {
      const index = state.messages.findIndex((message) => message.id === action.id);
      if (index === -1) return state;
      return { ...state, messages: state.messages.slice(0, action.keep ? index + 1 : index) };
    }
    case 'replyUpdated': {
      const messages = replaceMessage(state.messages, action.reply);
      if (messages) return { ...state, messages };
      const laneIndex = state.compareLanes.findIndex((lane) => lane.reply?.id === action.reply.id);
      if (laneIndex === -1) return state;
      const compareLanes = state.compareLanes.slice();
      const lane = compareLanes[laneIndex];
      if (lane) compareLanes[laneIndex] = { ...lane, reply: action.reply };
      return { ...state, compareLanes };
    }
    case 'compareStarted':
      return { ...state, compareLanes: action.lanes };
    case 'compareReplyKept': {
      const lane = state.compareLanes.find((candidate) => candidate.reply?.id === action.replyId);
      if (!lane?.reply) return state;
      // The model chosen before takes the kept one's place among the compared models, so the
      // comparison goes on with the same models.
      const compareModels =
        lane.model === state.model
          ? state.compareModels
          : state.compareModels
              .map((id) => (id === lane.model ? state.model : id))
              .filter((id) => id !== '');
      return {
        ...state,
        model: lane.model,
        compareModels,
        messages: [...state.messages, lane.reply],
        compareLanes: [],
      };
    }
    case 'sessionLoaded':
      return action.session;
    case 'conversationCleared':
      return { ...state, messages: [], compareLanes: [] };
    default:
      return state;
  }
}

/**
 * Where a re-run from `id` starts: from a user, system or tool message the conversation is kept
 * up to it and answered again; from an assistant reply, that reply is dropped and regenerated.
 */
export function rerunCut(message: ConversationMessage): { id: string; keep: boolean } {
  return { id: message.id, keep: message.role !== 'assistant' };
}

/**
 * The messages a re-run from `message` would drop beyond the one reply it regenerates: the turns
 * that came after. Empty when the re-run only replaces the reply it starts from (or the last one).
 */
export function turnsDiscardedByRerun(
  messages: ConversationMessage[],
  message: ConversationMessage,
): ConversationMessage[] {
  const cut = rerunCut(message);
  const index = messages.findIndex((candidate) => candidate.id === cut.id);
  if (index === -1) return [];
  const dropped = messages.slice(cut.keep ? index + 1 : index);
  // The first dropped message is the reply the re-run answers again when it is one.
  return dropped[0]?.role === 'assistant' ? dropped.slice(1) : dropped;
}

/**
 * The request that produced the conversation's last reply, as it was sent, when the
 * conversation ends with that reply: what "Get code" reproduces without a draft. Building one
 * from the messages instead would end with the reply, and a trailing assistant message asks the
 * model to continue it: another request.
 */
export function lastSentRequest(messages: ConversationMessage[]) {
  const last = messages.at(-1);
  return last?.role === 'assistant' && last.run ? last.run.request.request : null;
}

/**
 * The tool calls of the conversation that no `tool` message answers yet, oldest first: what a
 * `tool` message may answer (a tool message needs the id of the call it answers).
 */
export function openToolCalls(messages: ConversationMessage[]): ToolCall[] {
  const answered = new Set(
    messages.flatMap((message) =>
      message.role === 'tool' && message.toolCallId ? [message.toolCallId] : [],
    ),
  );
  return messages
    .flatMap((message) =>
      message.role === 'assistant' && message.run?.status !== 'streaming'
        ? (message.toolCalls ?? [])
        : [],
    )
    .filter((call) => !answered.has(call.id));
}
