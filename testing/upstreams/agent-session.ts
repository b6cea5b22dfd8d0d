/**
 * A recorded agent session (Claude Code's 30-turn tool loop, `claude-code-session.json`) and its
 * requests turn by turn, written in each public form the way a client of that form sends them:
 * Claude Code's own Messages requests, with its cache breakpoints on the system blocks and on the
 * last block of the conversation; and the same conversation in the chat-completions, Gemini and
 * Responses forms, with OpenRouter's breakpoints on the chat form when asked for.
 */
import fs from 'node:fs';
import type { PublicFormName } from '../../gateway/canonical/model';
import { vendorFixturePath } from '../../gateway/vendors/fixtures';

export type SessionToolCall = { id: string; name: string; input: Record<string, unknown> };

/** One turn: what the model answered, and the results the client sent back for its calls. */
export type SessionExchange = {
  reply: { text: string; toolCalls: SessionToolCall[] };
  results: Array<{ toolUseId: string; content: string }>;
};

export type AgentSession = {
  /** The system blocks, in order. */
  system: string[];
  tools: Array<{ name: string; description: string; input_schema: Record<string, unknown> }>;
  /** The text blocks of the first user turn. */
  firstUser: string[];
  /** Turn `n`'s request holds the first `n` exchanges; its answer is exchange `n`'s reply. */
  exchanges: SessionExchange[];
};

/** The recorded session, cut to its first `turns` turns when asked. */
export function claudeCodeSession(turns?: number): AgentSession {
  const session = JSON.parse(
    fs.readFileSync(vendorFixturePath('anthropic', 'claude-code-session.json'), 'utf8'),
  ) as AgentSession;
  if (turns === undefined) return session;
  return { ...session, exchanges: session.exchanges.slice(0, turns) };
}

export type SessionRequestOptions = {
  model: string;
  /** Cache breakpoints where the client puts them (Messages always; chat as OpenRouter takes them). */
  breakpoints: boolean;
  maxTokens?: number;
};

const EPHEMERAL = { type: 'ephemeral' } as const;
type Json = Record<string, unknown>;

/** The names of the tools the model called, by call id. */
const callNames = (session: AgentSession) =>
  new Map(
    session.exchanges.flatMap((exchange) =>
      exchange.reply.toolCalls.map((call) => [call.id, call.name] as const),
    ),
  );

/** Turn `turn`'s request body (0-based) in `form`, the model and bounds as given. */
export function sessionRequest(
  form: PublicFormName,
  session: AgentSession,
  turn: number,
  options: SessionRequestOptions,
): Json {
  const past = session.exchanges.slice(0, turn);
  const maxTokens = options.maxTokens ?? 4_096;
  switch (form) {
    case 'messages':
      return messagesRequest(session, past, options, maxTokens);
    case 'chat_completions':
      return chatRequest(session, past, options, maxTokens);
    case 'gemini':
      return geminiRequest(session, past, maxTokens);
    case 'responses':
      return responsesRequest(session, past, options, maxTokens);
  }
}

/** Claude Code's shape: every system block marked, and the last block of the conversation. */
function messagesRequest(
  session: AgentSession,
  past: SessionExchange[],
  options: SessionRequestOptions,
  maxTokens: number,
): Json {
  const mark = options.breakpoints ? { cache_control: EPHEMERAL } : {};
  const messages: Array<{ role: string; content: Json[] }> = [
    { role: 'user', content: session.firstUser.map((text) => ({ type: 'text', text })) },
  ];
  for (const exchange of past) {
    messages.push({
      role: 'assistant',
      content: [
        ...(exchange.reply.text === '' ? [] : [{ type: 'text', text: exchange.reply.text }]),
        ...exchange.reply.toolCalls.map((call) => ({ type: 'tool_use', ...call })),
      ],
    });
    messages.push({
      role: 'user',
      content: exchange.results.map((result) => ({
        type: 'tool_result',
        tool_use_id: result.toolUseId,
        content: result.content,
      })),
    });
  }
  const last = messages.at(-1)!.content;
  last[last.length - 1] = { ...last.at(-1)!, ...mark };
  return {
    model: options.model,
    max_tokens: maxTokens,
    system: session.system.map((text) => ({ type: 'text', text, ...mark })),
    tools: session.tools,
    messages,
    stream: false,
  };
}

/** A chat client's shape: the system blocks joined (or parts with breakpoints, OpenRouter's way). */
function chatRequest(
  session: AgentSession,
  past: SessionExchange[],
  options: SessionRequestOptions,
  maxTokens: number,
): Json {
  const messages: Json[] = [
    {
      role: 'system',
      content: options.breakpoints
        ? session.system.map((text) => ({ type: 'text', text, cache_control: EPHEMERAL }))
        : session.system.join('\n\n'),
    },
    { role: 'user', content: session.firstUser.map((text) => ({ type: 'text', text })) },
  ];
  for (const exchange of past) {
    messages.push({
      role: 'assistant',
      content: exchange.reply.text,
      tool_calls: exchange.reply.toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.input) },
      })),
    });
    for (const result of exchange.results)
      messages.push({ role: 'tool', tool_call_id: result.toolUseId, content: result.content });
  }
  const last = messages.at(-1)!;
  if (options.breakpoints) {
    const parts: Json[] =
      typeof last.content === 'string'
        ? [{ type: 'text', text: last.content }]
        : [...(last.content as Json[])];
    parts[parts.length - 1] = { ...parts.at(-1)!, cache_control: EPHEMERAL };
    last.content = parts;
  }
  return {
    model: options.model,
    max_tokens: maxTokens,
    messages,
    tools: session.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
    })),
    stream: false,
  };
}

function geminiRequest(session: AgentSession, past: SessionExchange[], maxTokens: number): Json {
  const names = callNames(session);
  const contents: Json[] = [{ role: 'user', parts: session.firstUser.map((text) => ({ text })) }];
  for (const exchange of past) {
    contents.push({
      role: 'model',
      parts: [
        ...(exchange.reply.text === '' ? [] : [{ text: exchange.reply.text }]),
        ...exchange.reply.toolCalls.map((call) => ({
          functionCall: { id: call.id, name: call.name, args: call.input },
        })),
      ],
    });
    contents.push({
      role: 'user',
      parts: exchange.results.map((result) => ({
        functionResponse: {
          id: result.toolUseId,
          name: names.get(result.toolUseId),
          response: { content: result.content },
        },
      })),
    });
  }
  return {
    systemInstruction: { parts: [{ text: session.system.join('\n\n') }] },
    contents,
    tools: [
      {
        functionDeclarations: session.tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          parametersJsonSchema: tool.input_schema,
        })),
      },
    ],
    generationConfig: { maxOutputTokens: maxTokens },
  };
}

function responsesRequest(
  session: AgentSession,
  past: SessionExchange[],
  options: SessionRequestOptions,
  maxTokens: number,
): Json {
  const input: Json[] = [
    {
      role: 'user',
      content: session.firstUser.map((text) => ({ type: 'input_text', text })),
    },
  ];
  for (const exchange of past) {
    if (exchange.reply.text !== '')
      input.push({
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: exchange.reply.text }],
      });
    for (const call of exchange.reply.toolCalls)
      input.push({
        type: 'function_call',
        call_id: call.id,
        name: call.name,
        arguments: JSON.stringify(call.input),
      });
    for (const result of exchange.results)
      input.push({
        type: 'function_call_output',
        call_id: result.toolUseId,
        output: result.content,
      });
  }
  return {
    model: options.model,
    instructions: session.system.join('\n\n'),
    input,
    tools: session.tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description,
      parameters: tool.input_schema,
    })),
    max_output_tokens: maxTokens,
    store: false,
  };
}
